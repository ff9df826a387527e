package anthropic

import (
	"encoding/json"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/anthropicapi"
)

// The typed wire shapes of the Messages stream, decoded with
// jsonguard.Unmarshal when the fast path (fast.go) does not take an event.
// Members whose shape is only passed on stay json.RawMessage.

// The event types.
const (
	evMessageStart = "message_start"
	evMessageDelta = "message_delta"
	evMessageStop  = "message_stop"
	evBlockStart   = "content_block_start"
	evBlockDelta   = "content_block_delta"
	evBlockStop    = "content_block_stop"
	evPing         = "ping"
	evError        = "error"
)

// wireEvent is any event; which members are set depends on Type.
type wireEvent struct {
	Type         string          `json:"type"`
	Index        *int            `json:"index"`
	Message      *wireMessage    `json:"message"`
	ContentBlock json.RawMessage `json:"content_block"`
	// Delta is a content block delta (content_block_delta) or the message
	// delta (message_delta).
	Delta json.RawMessage `json:"delta"`
	Usage *wireUsage      `json:"usage"`
	Error *wireError      `json:"error"`
	// RequestID is set on some error events.
	RequestID string `json:"request_id"`
}

type wireMessage struct {
	ID    string     `json:"id"`
	Model string     `json:"model"`
	Usage *wireUsage `json:"usage"`
}

// wireUsage is the usage object of message_start.message and of
// message_delta. Pointers tell a member that is absent from one that is
// zero: message_delta replaces only the members it carries.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
	ServerToolUse json.RawMessage `json:"server_tool_use"`
}

// usage is the provider's figures as reported so far, member by member.
type usage struct {
	input, cacheWrite, cacheRead, output, thinking *int
	serverToolUse                                  json.RawMessage
}

// merge replaces the members u carries.
func (s *usage) merge(u *wireUsage) {
	if u == nil {
		return
	}
	set := func(dst **int, v *int) {
		if v != nil {
			n := *v
			*dst = &n
		}
	}
	set(&s.input, u.InputTokens)
	set(&s.cacheWrite, u.CacheCreationInputTokens)
	set(&s.cacheRead, u.CacheReadInputTokens)
	set(&s.output, u.OutputTokens)
	if d := u.OutputTokensDetails; d != nil {
		set(&s.thinking, d.ThinkingTokens)
	}
	if len(u.ServerToolUse) > 0 && string(u.ServerToolUse) != "null" {
		s.serverToolUse = append(json.RawMessage(nil), u.ServerToolUse...)
	}
}

// normalized returns the driver.Usage of the figures (see the package
// doc's usage table), or nil when none was reported.
func (s *usage) normalized() *driver.Usage {
	if s.input == nil && s.cacheWrite == nil && s.cacheRead == nil && s.output == nil && s.thinking == nil {
		return nil
	}
	v := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return anthropicapi.Usage(v(s.input), v(s.cacheRead), v(s.cacheWrite), v(s.output), v(s.thinking))
}

type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// wireErrorBody is the JSON body of a non-2xx response, and the data of an
// error event.
type wireErrorBody struct {
	Type      string     `json:"type"`
	Error     *wireError `json:"error"`
	RequestID string     `json:"request_id"`
}

// wireBlock is the content_block of content_block_start.
type wireBlock struct {
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
	// the *_tool_result blocks
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// wireDelta is the delta of content_block_delta.
type wireDelta struct {
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	PartialJSON string          `json:"partial_json"`
	Thinking    string          `json:"thinking"`
	Signature   string          `json:"signature"`
	Citation    json.RawMessage `json:"citation"`
}

// wireMessageDelta is the delta of message_delta.
type wireMessageDelta struct {
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}
