package claude

import (
	"bytes"
	"strings"

	"github.com/agentwire/agentwire/internal/jsonguard"
	json "github.com/segmentio/encoding/json"
)

// The UnmarshalJSON methods of this file run only inside a decode that
// the depth guard admitted (ndjson.Frame.Decode, jsonguard.Unmarshal), on
// a complete value the decoder has checked: they call segmentio directly.
//
// This file holds the typed wire shapes the parser decodes, one struct per
// message type, each decoded once with ndjson.Frame.Decode (segmentio,
// behind the depth guard: the one JSON library of this package). Nothing
// decoded is decoded again: message content blocks, tool inputs and tool
// results are decoded with their line (lineBlock, jsonguard.Any,
// toolContent, lenient) instead of being kept as json.RawMessage and
// decoded afterwards. Fields whose type has drifted between CLI versions
// are lenient, so that a new shape in a secondary field never costs the
// line. Only what is passed through whole (a custom payload's Raw, an
// unmapped block's Data) is built from the line's bytes, when it is kept.

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
	Text      string        `json:"text"`
	Citations jsonguard.Any `json:"citations"`
	// thinking, redacted_thinking
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	Data      string `json:"data"`
	// tool_use, server_tool_use, mcp_tool_use
	ID         string        `json:"id"`
	Name       string        `json:"name"`
	Input      jsonguard.Any `json:"input"`
	ServerName string        `json:"server_name"`
	// tool_result and the server *_tool_result blocks
	ToolUseID string      `json:"tool_use_id"`
	Content   toolContent `json:"content"`
	IsError   bool        `json:"is_error"`
}

// lineBlock is one element of an assistant or user message's content,
// decoded with its line. A block that does not fit contentBlock does not
// cost the line's other blocks: err says why, and the parser reports that
// block alone. raw is the block's bytes, aliasing the frame (valid during
// Feed only): an unmapped block is kept whole from them.
type lineBlock struct {
	contentBlock
	raw []byte
	err error
}

func (b *lineBlock) UnmarshalJSON(data []byte) error {
	*b = lineBlock{raw: data}
	b.err = jsonguard.Unmarshal(data, &b.contentBlock, 0)
	return nil
}

// toolContent is the content of a tool_result block, decoded with it: a
// string, or an array of blocks whose text parts are joined by newlines,
// or anything else, kept whole.
type toolContent struct {
	kind contentKind
	text string
	// value is the decoded array (kind contentBlocks) or other value
	// (contentRaw; nil when it does not decode).
	value any
	// other counts the array's blocks that are not text.
	other int
}

type contentKind uint8

const (
	contentNone   contentKind = iota // absent or null
	contentString                    // text
	contentBlocks                    // an array of blocks: text and other
	contentRaw                       // value, kept whole
)

func (c *toolContent) UnmarshalJSON(b []byte) error {
	*c = toolContent{}
	switch {
	case string(b) == "null":
	case b[0] == '"':
		c.kind = contentString
		_ = json.Unmarshal(b, &c.text)
	default:
		var a jsonguard.Any
		_ = a.UnmarshalJSON(b)
		c.fromValue(a.V)
	}
	return nil
}

// fromValue sets c from v, the decoded value of a content that is neither
// null nor a string (nil when it does not decode): an array of blocks
// whose text textBlocks can join, or a value kept whole.
func (c *toolContent) fromValue(v any) {
	c.kind, c.value = contentRaw, v
	if elems, ok := v.([]any); ok {
		c.text, c.other, ok = textBlocks(elems)
		if ok {
			c.kind = contentBlocks
		} else {
			c.text = ""
		}
	}
}

// textBlocks joins the text of the text blocks in elems by newlines and
// counts the others. ok is false when an element is not an object (null
// counts as a block without type) or its type or text is not a string.
func textBlocks(elems []any) (text string, other int, ok bool) {
	var parts []string
	for _, e := range elems {
		if e == nil {
			other++
			continue
		}
		m, isObj := e.(map[string]any)
		if !isObj {
			return "", 0, false
		}
		typ, ok1 := optionalString(m["type"])
		txt, ok2 := optionalString(m["text"])
		if !ok1 || !ok2 {
			return "", 0, false
		}
		if typ == "text" {
			parts = append(parts, txt)
		} else {
			other++
		}
	}
	switch len(parts) {
	case 0:
		return "", other, true
	case 1:
		return parts[0], other, true
	}
	return strings.Join(parts, "\n"), other, true
}

// optionalString is v when it is a string; absent and null are "", ok; any
// other value is not ok.
func optionalString(v any) (string, bool) {
	switch s := v.(type) {
	case nil:
		return "", true
	case string:
		return s, true
	}
	return "", false
}

// userContent is message.content of a user line, decoded with it: a
// string or an array of blocks.
type userContent struct {
	kind   contentKind // contentString, contentBlocks, contentRaw (neither)
	text   string
	blocks []lineBlock
}

func (c *userContent) UnmarshalJSON(b []byte) error {
	*c = userContent{blocks: c.blocks[:0]} // the room a reused line kept
	switch {
	case string(b) == "null":
		return nil
	case b[0] == '"':
		c.kind = contentString
		return json.Unmarshal(b, &c.text)
	case b[0] == '[':
		c.kind = contentBlocks
		return json.Unmarshal(b, &c.blocks)
	}
	c.kind = contentRaw
	return nil
}

// errorText is an element of result.errors: a string's value, or any
// other value's JSON text.
type errorText string

func (e *errorText) UnmarshalJSON(b []byte) error {
	*e = errorText(b)
	if b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			*e = errorText(s)
		}
	}
	return nil
}

// passthrough is a value kept both as its exact bytes (a copy) and decoded
// (jsonguard.Any), from one decode; null and absent leave both empty.
type passthrough struct {
	raw json.RawMessage
	v   any
}

func (p *passthrough) UnmarshalJSON(b []byte) error {
	*p = passthrough{}
	if string(b) == "null" {
		return nil
	}
	p.raw = bytes.Clone(b)
	var a jsonguard.Any
	_ = a.UnmarshalJSON(b)
	p.v = a.V
	return nil
}

// lenient is a field whose shape may drift: its value when it decodes as
// T, else T's zero value with ok false; either way the line decodes.
type lenient[T any] struct {
	v  T
	ok bool
}

func (l *lenient[T]) UnmarshalJSON(b []byte) error {
	*l = lenient[T]{}
	if string(b) != "null" && json.Unmarshal(b, &l.v) == nil {
		l.ok = true
	} else {
		var zero T
		l.v = zero
	}
	return nil
}

type assistantMessage struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	// Content is decoded with the line, block by block (lineBlock), so
	// that a bad block costs only itself and an unknown block is kept
	// whole.
	Content    []lineBlock `json:"content"`
	StopReason string      `json:"stop_reason"`
	Usage      *apiUsage   `json:"usage"`
}

// assistantLine is {"type":"assistant"}: one content block per line in
// CLI 2.x (several in older releases), the message id and usage repeated.
type assistantLine struct {
	Message         assistantMessage `json:"message"`
	ParentToolUseID string           `json:"parent_tool_use_id"`
	// Error is set on a synthetic message the CLI writes for an API
	// failure ("unknown", "rate_limit", "authentication_failed", ...).
	Error             lenient[string] `json:"error"`
	IsAPIErrorMessage bool            `json:"is_api_error_message"`
	APIErrorStatus    json.RawMessage `json:"api_error_status"`
	APIErrorType      string          `json:"api_error_type"`
}

// userLine is {"type":"user"}: tool results, subagent prompts, CLI
// synthesized prompts (isSynthetic) and, with --replay-user-messages, echoed
// user input. message.content is a string or an array of blocks.
type userLine struct {
	Message struct {
		Content userContent `json:"content"`
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
	Error        lenient[string] `json:"error"`
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
	Result         *string                        `json:"result"`
	SessionID      string                         `json:"session_id"`
	DurationMS     int64                          `json:"duration_ms"`
	DurationAPIMS  int64                          `json:"duration_api_ms"`
	NumTurns       int                            `json:"num_turns"`
	TotalCostUSD   *float64                       `json:"total_cost_usd"`
	Usage          *apiUsage                      `json:"usage"`
	ModelUsage     lenient[map[string]ModelUsage] `json:"modelUsage"`
	Denials        lenient[[]PermissionDenial]    `json:"permission_denials"`
	Structured     passthrough                    `json:"structured_output"`
	TerminalReason string                         `json:"terminal_reason"`
	StopReason     string                         `json:"stop_reason"`
	APIErrorStatus json.RawMessage                `json:"api_error_status"`
	Errors         lenient[[]errorText]           `json:"errors"`

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

// envelope holds the members the general path of Parser.Feed peeks at
// before it decodes a line: its type and session id. A fast path decodes
// them with the line (assistantFast, userFast, systemFast).
type envelope struct {
	Type      typeField `json:"type"`
	SessionID idField   `json:"session_id"`
}

type assistantFast struct {
	envelope
	assistantLine
}

type userFast struct {
	envelope
	userLine
}

type systemFast struct {
	envelope
	systemLine
}

// reset zeroes l for a decode, keeping the room of its blocks (the
// decoder and fastAssistant append to it).
func (l *assistantFast) reset() {
	blocks := l.Message.Content[:0]
	*l = assistantFast{}
	l.Message.Content = blocks
}

// reset is assistantFast.reset for a user line.
func (l *userFast) reset() {
	blocks := l.Message.Content.blocks[:0]
	*l = userFast{}
	l.Message.Content.blocks = blocks
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
		"input_json_delta", "citations_delta", "text", "thinking", "tool_use", "assistant", "user"} {
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
	if err := json.Unmarshal(b, &s); err != nil {
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
	if err := json.Unmarshal(b, &s); err != nil {
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
