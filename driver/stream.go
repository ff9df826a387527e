package driver

import (
	"strings"
	"time"
)

// StreamCapability describes the streaming fidelity a driver delivers. The
// fields are conservative, deterministic and stable across instances; each is
// additive, and consumers degrade gracefully when one is false.
//
// The negative rules are hard: with Reasoning false a driver emits no
// reasoning.* payload, with ToolCallArgs false no tool_call.args payload
// (tool_call.start then carries the complete Args), with HITL false no hitl.*
// payload. Native and TokenLevel describe the transport's origin and
// granularity and forbid nothing: a coarse text lifecycle is always allowed.
type StreamCapability struct {
	// Native: the transport is a formal event protocol, not events guessed
	// from free text.
	Native bool `json:"native,omitempty"`
	// TokenLevel: one assistant message can arrive as several text deltas.
	TokenLevel bool `json:"token_level,omitempty"`
	// Reasoning: the protocol exposes a reasoning/thinking lifecycle.
	Reasoning bool `json:"reasoning,omitempty"`
	// ToolCallArgs: the protocol streams tool-call arguments incrementally.
	ToolCallArgs bool `json:"tool_call_args,omitempty"`
	// HITL: the protocol exposes human-decision events. Answering still goes
	// through DecisionCapableSink.
	HITL bool `json:"hitl,omitempty"`
	// Finish: the protocol always reports why generation stopped (the model
	// APIs), so every successful run carries exactly one Finish (see Finish).
	Finish bool `json:"finish,omitempty"`
}

// StreamKind names a normalized stream payload.
//
// The lifecycle grammar every streaming run obeys:
//
//  1. exactly one StreamRunStarted, and it is the first payload;
//  2. intermediate payloads obey their lifecycles below; lifecycles of
//     different ids may interleave, but the start, content and end of one id
//     are strictly ordered and an id is opened at most once per run;
//  3. every text, reasoning, tool and step lifecycle is closed before the
//     terminal;
//  4. exactly one StreamRunFinished or StreamRunError, and it is the last
//     payload: nothing, not even a custom kind or a drop report, follows it.
//
// Field requirements per kind:
//
//	run.started              optional provider RunID/ThreadID/TurnID; no MessageID/ToolCallID
//	run.finished             optional Usage and Finish; no MessageID/ToolCallID
//	run.error                non-nil Error with a message; no Usage; Finish nil
//	                         or FinishError; no MessageID/ToolCallID
//	step.started/finished    Name; finished matches an open started of that Name
//	text.start               MessageID, opens the message
//	text.content             MessageID of an open message, non-empty Delta
//	text.end                 MessageID of an open message, closes it
//	reasoning.start/content/end   as text
//	tool_call.start          ToolCallID and Name; optional complete Args
//	tool_call.args           open ToolCallID, non-empty Delta; only when
//	                         StreamCapability.ToolCallArgs; never after a
//	                         start that carried complete Args
//	tool_call.end            open ToolCallID, optional Result
//	tool_call.result         a ToolCallID started earlier (open or closed),
//	                         optional Result; at most once per id
//	hitl.requested/resolved  the HITLRequested / HITLResolved envelope
//	stream.dropped           Raw["dropped_count"]: loss reported by the provider
//
// A provider event with no canonical kind is never dropped: it travels as a
// custom kind built with CustomKind ("<provider>/<event>"), with its fields in
// Raw. Custom kinds are exempt from field rules but not from ordering: none
// may precede run.started or follow the terminal.
type StreamKind string

// The canonical stream kinds.
const (
	StreamRunStarted  StreamKind = "run.started"
	StreamRunFinished StreamKind = "run.finished"
	StreamRunError    StreamKind = "run.error"

	StreamStepStarted  StreamKind = "step.started"
	StreamStepFinished StreamKind = "step.finished"

	StreamTextStart   StreamKind = "text.start"
	StreamTextContent StreamKind = "text.content"
	StreamTextEnd     StreamKind = "text.end"

	StreamReasoningStart   StreamKind = "reasoning.start"
	StreamReasoningContent StreamKind = "reasoning.content"
	StreamReasoningEnd     StreamKind = "reasoning.end"

	StreamToolCallStart  StreamKind = "tool_call.start"
	StreamToolCallArgs   StreamKind = "tool_call.args"
	StreamToolCallEnd    StreamKind = "tool_call.end"
	StreamToolCallResult StreamKind = "tool_call.result"

	StreamHITLRequested StreamKind = "hitl.requested"
	StreamHITLResolved  StreamKind = "hitl.resolved"

	StreamDropped StreamKind = "stream.dropped"
)

// StreamKinds lists every canonical kind, in the order of the contract table.
var StreamKinds = []StreamKind{
	StreamRunStarted, StreamRunFinished, StreamRunError,
	StreamStepStarted, StreamStepFinished,
	StreamTextStart, StreamTextContent, StreamTextEnd,
	StreamReasoningStart, StreamReasoningContent, StreamReasoningEnd,
	StreamToolCallStart, StreamToolCallArgs, StreamToolCallEnd, StreamToolCallResult,
	StreamHITLRequested, StreamHITLResolved,
	StreamDropped,
}

// CustomKind returns the custom kind for a provider event that has no
// canonical kind: provider + "/" + event, for example "codex/todo_list".
// Canonical kinds never contain a slash, so a custom kind cannot collide
// with one, and the empty kind is never valid.
func CustomKind(provider, event string) StreamKind {
	return StreamKind(provider + "/" + event)
}

// IsCanonical reports whether k is one of StreamKinds.
func (k StreamKind) IsCanonical() bool {
	switch k {
	case StreamRunStarted, StreamRunFinished, StreamRunError,
		StreamStepStarted, StreamStepFinished,
		StreamTextStart, StreamTextContent, StreamTextEnd,
		StreamReasoningStart, StreamReasoningContent, StreamReasoningEnd,
		StreamToolCallStart, StreamToolCallArgs, StreamToolCallEnd, StreamToolCallResult,
		StreamHITLRequested, StreamHITLResolved, StreamDropped:
		return true
	}
	return false
}

// IsCustom reports whether k is a well-formed custom kind: a non-empty
// provider and event joined by the first slash.
func (k StreamKind) IsCustom() bool {
	p, e, ok := strings.Cut(string(k), "/")
	return ok && p != "" && e != ""
}

// IsTerminal reports whether k ends a run (run.finished or run.error).
func (k StreamKind) IsTerminal() bool {
	return k == StreamRunFinished || k == StreamRunError
}

// Role says who authored a payload. The zero value is RoleAssistant, and a
// driver leaves every payload at it: RoleUser is reserved for a bridge or
// host that synthesizes a human-input lifecycle above the driver.
type Role string

const (
	// RoleAssistant is the zero value: the agent's own output.
	RoleAssistant Role = ""
	// RoleUser marks host-synthesized user input; never set by drivers.
	RoleUser Role = "user"
)

// StreamPayload is one normalized live event. Which fields a kind requires
// is documented on StreamKind.
//
// Sequence, Seq and Timestamp belong to the host, which assigns them in
// receive order: a driver leaves them zero. ScopeID, ParentScopeID and
// ParentToolCallID place nested (sub-agent) work: a tool call's identity is
// the pair (ScopeID, ToolCallID), and an empty parent means "unknown", never
// a guess.
type StreamPayload struct {
	Kind StreamKind `json:"kind"`

	Sequence uint64 `json:"sequence,omitempty"`
	Seq      uint64 `json:"seq,omitempty"`

	RunID    string `json:"run_id,omitempty"`
	ThreadID string `json:"thread_id,omitempty"`
	TurnID   string `json:"turn_id,omitempty"`

	ScopeID          string `json:"scope_id,omitempty"`
	ParentScopeID    string `json:"parent_scope_id,omitempty"`
	ParentToolCallID string `json:"parent_tool_call_id,omitempty"`

	MessageID  string `json:"message_id,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
	Delta      string `json:"delta,omitempty"`

	Args   map[string]any `json:"args,omitempty"`
	Result map[string]any `json:"result,omitempty"`

	Usage  *Usage      `json:"usage,omitempty"`
	Finish *Finish     `json:"finish,omitempty"`
	Error  *RunFailure `json:"error,omitempty"`

	Timestamp time.Time `json:"timestamp,omitzero"`

	HITLRequested *HITLRequestedPayload `json:"hitl_requested,omitempty"`
	HITLResolved  *HITLResolvedPayload  `json:"hitl_resolved,omitempty"`

	Role Role `json:"role,omitempty"`

	// Raw holds provider fields that have no normalized home, and the whole
	// value of a custom kind.
	Raw map[string]any `json:"raw,omitempty"`
}
