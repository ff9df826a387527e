package driver

import "time"

// RunEventType names an operational event.
type RunEventType string

// The operational event types.
const (
	// RunEventChunk carries raw bytes exactly as read from the provider
	// process, at any chunk boundary. Stream is "stdout" or "stderr".
	RunEventChunk RunEventType = "chunk"
	// RunEventItem carries one transcript item; the sequence of item events
	// equals Response.Transcript.
	RunEventItem RunEventType = "item"
	// RunEventInvocation describes the command about to run (Text, Metadata).
	RunEventInvocation RunEventType = "invocation"
	// RunEventSpawn reports a started process (pid, start time in Data).
	RunEventSpawn RunEventType = "spawn"
	// RunEventRuntime reports runtime-service observations.
	RunEventRuntime RunEventType = "runtime"
	// RunEventLifecycle reports driver lifecycle changes (stopping, killed...).
	RunEventLifecycle RunEventType = "lifecycle"
)

// The Stream values of a RunEventChunk.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// RunEvent is one operational event. Seq belongs to the host and stays zero
// in drivers. Chunk events use Stream and Bytes; item events use Item;
// invocation, spawn, runtime and lifecycle events use Text, Metadata and
// Data.
type RunEvent struct {
	Type      RunEventType      `json:"type"`
	Seq       uint64            `json:"seq,omitempty"`
	Timestamp time.Time         `json:"timestamp,omitzero"`
	Stream    string            `json:"stream,omitempty"`
	Bytes     []byte            `json:"bytes,omitempty"`
	Item      *TranscriptItem   `json:"item,omitempty"`
	Text      string            `json:"text,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Data      map[string]any    `json:"data,omitempty"`
}

// TranscriptKind names a transcript item.
type TranscriptKind string

// The transcript kinds and the fields each requires (adaptertest TRN-*).
const (
	// TranscriptAssistant is assistant text. Requires Text; may be a Delta.
	TranscriptAssistant TranscriptKind = "assistant"
	// TranscriptThinking is reasoning text. Requires Text; may be a Delta.
	TranscriptThinking TranscriptKind = "thinking"
	// TranscriptUser is user text the protocol echoed. Requires Text.
	TranscriptUser TranscriptKind = "user"
	// TranscriptToolCall is a tool invocation. Requires ToolName.
	TranscriptToolCall TranscriptKind = "tool_call"
	// TranscriptToolResult is a tool's result. Requires ToolUseID.
	TranscriptToolResult TranscriptKind = "tool_result"
	// TranscriptInit is the session announcement (Model, SessionID).
	TranscriptInit TranscriptKind = "init"
	// TranscriptResult is the provider's terminal result (Text, Usage,
	// CostUSD, Subtype, IsError, Errors).
	TranscriptResult TranscriptKind = "result"
	// TranscriptStdout is unparsed stdout text kept by a parser. Requires Text.
	TranscriptStdout TranscriptKind = "stdout"
	// TranscriptStderr is stderr text kept by a parser. Requires Text.
	TranscriptStderr TranscriptKind = "stderr"
	// TranscriptSystem is a provider system notice. Requires Text.
	TranscriptSystem TranscriptKind = "system"
	// TranscriptSummary is a formal summary. Requires Text.
	TranscriptSummary TranscriptKind = "summary"
	// TranscriptQuestion is a question to the user. Requires Text;
	// Data["choices"] may list the choices.
	TranscriptQuestion TranscriptKind = "question"
	// TranscriptFailure is a failure the protocol reported. Requires Text;
	// Metadata["code"] may carry a code.
	TranscriptFailure TranscriptKind = "failure"
)

// TranscriptKinds lists every transcript kind.
var TranscriptKinds = []TranscriptKind{
	TranscriptAssistant, TranscriptThinking, TranscriptUser,
	TranscriptToolCall, TranscriptToolResult, TranscriptInit, TranscriptResult,
	TranscriptStdout, TranscriptStderr, TranscriptSystem, TranscriptSummary,
	TranscriptQuestion, TranscriptFailure,
}

// TranscriptItem is one normalized semantic item of a run, produced by the
// formal protocol parser only (never by scanning arbitrary JSON). Delta is
// allowed on assistant and thinking items only. A value captured by a field
// is not duplicated into Metadata or Data.
type TranscriptItem struct {
	ScopeID          string `json:"scope_id,omitempty"`
	ParentScopeID    string `json:"parent_scope_id,omitempty"`
	ParentToolCallID string `json:"parent_tool_call_id,omitempty"`

	Kind      TranscriptKind `json:"kind"`
	Text      string         `json:"text,omitempty"`
	Delta     bool           `json:"delta,omitempty"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
	ToolName  string         `json:"tool_name,omitempty"`
	Input     any            `json:"input,omitempty"`
	IsError   bool           `json:"is_error,omitempty"`
	Model     string         `json:"model,omitempty"`
	SessionID string         `json:"session_id,omitempty"`
	Usage     *Usage         `json:"usage,omitempty"`
	CostUSD   *float64       `json:"cost_usd,omitempty"`
	Subtype   string         `json:"subtype,omitempty"`
	Errors    []string       `json:"errors,omitempty"`

	Metadata map[string]string `json:"metadata,omitempty"`
	Data     map[string]any    `json:"data,omitempty"`
}
