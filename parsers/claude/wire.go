package claude

import (
	"bytes"
	"encoding/json"

	segjson "github.com/segmentio/encoding/json"
)

// This file holds the typed wire shapes the parser decodes, one struct per
// message type, each decoded once with ndjson.Frame.Decode after the
// discriminator was peeked. Fields whose type has drifted between CLI
// versions, or that are only passed through, stay json.RawMessage so that a
// new shape in a secondary field never costs the line.

// apiUsage is the snake_case Anthropic usage object of message.usage,
// message_start/message_delta usage and result.usage.
type apiUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// contentBlock is one element of message.content (assistant or user) and
// the content_block of content_block_start.
type contentBlock struct {
	Type string `json:"type"`
	// text
	Text      string          `json:"text"`
	Citations json.RawMessage `json:"citations"`
	// thinking, redacted_thinking
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	Data      string `json:"data"`
	// tool_use, server_tool_use, mcp_tool_use
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Input      json.RawMessage `json:"input"`
	ServerName string          `json:"server_name"`
	// tool_result and the server *_tool_result blocks
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type assistantMessage struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	// Content is decoded block by block, so that an unknown block keeps
	// its raw value.
	Content    []json.RawMessage `json:"content"`
	StopReason string            `json:"stop_reason"`
	Usage      *apiUsage         `json:"usage"`
}

// assistantLine is {"type":"assistant"}: one content block per line in
// CLI 2.x (several in older releases), the message id and usage repeated.
type assistantLine struct {
	Message         assistantMessage `json:"message"`
	ParentToolUseID string           `json:"parent_tool_use_id"`
	// Error is set on a synthetic message the CLI writes for an API
	// failure ("unknown", "rate_limit", "authentication_failed", ...).
	Error             json.RawMessage `json:"error"`
	IsAPIErrorMessage bool            `json:"is_api_error_message"`
	APIErrorStatus    json.RawMessage `json:"api_error_status"`
	APIErrorType      string          `json:"api_error_type"`
}

// userLine is {"type":"user"}: tool results, subagent prompts, CLI
// synthesized prompts (isSynthetic) and, with --replay-user-messages, echoed
// user input. message.content is a string or an array of blocks.
type userLine struct {
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	ParentToolUseID string `json:"parent_tool_use_id"`
	IsSynthetic     bool   `json:"isSynthetic"`
	IsReplay        bool   `json:"isReplay"`
}

// systemLine is {"type":"system"} with every subtype's typed fields.
type systemLine struct {
	Subtype string `json:"subtype"`
	// init
	Model             string `json:"model"`
	CWD               string `json:"cwd"`
	ClaudeCodeVersion string `json:"claude_code_version"`
	PermissionMode    string `json:"permissionMode"`
	APIKeySource      string `json:"apiKeySource"`
	OutputStyle       string `json:"output_style"`
	// api_retry
	Attempt      int             `json:"attempt"`
	MaxRetries   int             `json:"max_retries"`
	RetryDelayMS float64         `json:"retry_delay_ms"`
	ErrorStatus  json.RawMessage `json:"error_status"`
	Error        json.RawMessage `json:"error"`
	// task_*, status, compact_boundary
	TaskID      string `json:"task_id"`
	ToolUseID   string `json:"tool_use_id"`
	Description string `json:"description"`
	Status      string `json:"status"`
	Summary     string `json:"summary"`

	ParentToolUseID string `json:"parent_tool_use_id"`
}

// resultLine is {"type":"result"}, the terminal line of a turn.
type resultLine struct {
	Subtype string `json:"subtype"`
	// IsError is a pointer: success needs it present and false.
	IsError *bool `json:"is_error"`
	// Result is null on error_during_execution.
	Result         *string         `json:"result"`
	SessionID      string          `json:"session_id"`
	DurationMS     int64           `json:"duration_ms"`
	DurationAPIMS  int64           `json:"duration_api_ms"`
	NumTurns       int             `json:"num_turns"`
	TotalCostUSD   *float64        `json:"total_cost_usd"`
	Usage          *apiUsage       `json:"usage"`
	ModelUsage     json.RawMessage `json:"modelUsage"`
	Denials        json.RawMessage `json:"permission_denials"`
	Structured     json.RawMessage `json:"structured_output"`
	TerminalReason string          `json:"terminal_reason"`
	StopReason     string          `json:"stop_reason"`
	APIErrorStatus json.RawMessage `json:"api_error_status"`
	Errors         json.RawMessage `json:"errors"`

	ParentToolUseID string `json:"parent_tool_use_id"`
}

// ModelUsage is one entry of result.modelUsage (camelCase on the wire),
// cumulative for the session and keyed by model id.
type ModelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
	MaxOutputTokens          int     `json:"maxOutputTokens"`
}

// PermissionDenial is one entry of result.permission_denials.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// streamLine is {"type":"stream_event"} (--include-partial-messages): an
// Anthropic Messages SSE event object in event.
//
// It is the hot path (one line per token with partial messages), so it
// decodes without allocating beyond the delta text: the parser reuses one
// streamLine, names are interned, the session id is compared in place.
type streamLine struct {
	Type            typeField `json:"type"`
	Event           sseEvent  `json:"event"`
	ParentToolUseID string    `json:"parent_tool_use_id"`
	SessionID       idField   `json:"session_id"`
}

type sseEvent struct {
	Type         name          `json:"type"`
	Index        int           `json:"index"`
	Message      *sseMessage   `json:"message"`
	ContentBlock *contentBlock `json:"content_block"`
	Delta        sseDelta      `json:"delta"`
	Usage        *apiUsage     `json:"usage"`
	Error        *apiError     `json:"error"`
}

type sseMessage struct {
	ID    string    `json:"id"`
	Model string    `json:"model"`
	Usage *apiUsage `json:"usage"`
}

// sseDelta is the delta of content_block_delta (text_delta, thinking_delta,
// signature_delta, input_json_delta, citations_delta) and of message_delta
// (stop_reason).
type sseDelta struct {
	Type        name   `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	PartialJSON string `json:"partial_json"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// rateLimitLine is {"type":"rate_limit_event"}.
type rateLimitLine struct {
	Info struct {
		Status        string `json:"status"`
		RateLimitType string `json:"rateLimitType"`
		ResetsAt      int64  `json:"resetsAt"`
	} `json:"rate_limit_info"`
}

// controlLine is the envelope of control_request, control_response and
// control_cancel_request, in both directions.
type controlLine struct {
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  *struct {
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Response  json.RawMessage `json:"response"`
		Error     string          `json:"error"`
	} `json:"response"`
}

// name is a protocol name (an event, delta or block type). Known names are
// interned, so decoding one does not allocate.
type name string

var knownNames = func() map[string]name {
	m := map[string]name{}
	for _, s := range []string{"stream_event", "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "ping", "error", "text_delta", "thinking_delta", "signature_delta",
		"input_json_delta", "citations_delta", "text", "thinking", "tool_use"} {
		m[s] = name(s)
	}
	return m
}()

func (n *name) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		if v, ok := knownNames[string(b[1:len(b)-1])]; ok {
			*n = v
			return nil
		}
	}
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := segjson.Unmarshal(b, &s); err != nil {
		return err
	}
	*n = name(s)
	return nil
}

// idField holds a session id as decoded, without allocating for ids of
// up to 64 bytes without escapes (UUIDs); longer or escaped ids are
// decoded into a string.
type idField struct {
	set  bool
	n    int
	b    [64]byte
	long string
}

func (f *idField) UnmarshalJSON(b []byte) error {
	*f = idField{}
	if string(b) == "null" {
		return nil
	}
	if len(b) >= 2 && len(b)-2 <= len(f.b) && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0 {
		f.set, f.n = true, copy(f.b[:], b[1:len(b)-1])
		return nil
	}
	var s string
	if err := segjson.Unmarshal(b, &s); err != nil {
		return err
	}
	f.set, f.long, f.n = true, s, -1
	return nil
}

// bytes returns the id; it aliases f.
func (f *idField) bytes() []byte {
	if f.n < 0 {
		return []byte(f.long)
	}
	return f.b[:f.n]
}

// typeField is a top-level "type" member that counts its occurrences, so
// that the stream_event fast path can tell a line whose only "type" is
// "stream_event" (what Frame.Type would return) from one with duplicates.
type typeField struct {
	n int
	v name
}

func (t *typeField) UnmarshalJSON(b []byte) error {
	t.n++
	return t.v.UnmarshalJSON(b)
}
