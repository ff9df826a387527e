package geminicli

import "encoding/json"

// Wire shapes of `gemini -p ... -o stream-json` (Gemini CLI 0.61.0,
// packages/cli/src/nonInteractiveCli.ts and
// packages/core/src/output/stream-json-formatter.ts, JsonStreamEventType;
// the recordings under corpus/gemini-cli). Each line is one JSON object
// written by JSON.stringify with a "type" and a "timestamp" (ISO 8601,
// ignored here). Optional members are pointers so that "absent" and
// "zero" stay distinct where it matters.

// The event types.
const (
	evInit       = "init"
	evMessage    = "message"
	evToolUse    = "tool_use"
	evToolResult = "tool_result"
	evError      = "error"
	evResult     = "result"
)

// The roles of a message event.
const (
	roleUser      = "user"
	roleAssistant = "assistant"
)

// The status values of tool_result and result.
const (
	statusSuccess = "success"
	statusError   = "error"
)

type wireInit struct {
	SessionID *string `json:"session_id"`
	Model     string  `json:"model"`
}

type wireMessage struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
	Delta   bool    `json:"delta"`
}

type wireToolUse struct {
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
}

type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type wireToolResult struct {
	ToolID string     `json:"tool_id"`
	Status string     `json:"status"`
	Output *string    `json:"output"`
	Error  *wireError `json:"error"`
}

type wireErrorEvent struct {
	Severity string  `json:"severity"`
	Message  *string `json:"message"`
}

// wireStats is result.stats: the CLI's telemetry summed over every model
// request of the process (convertToStreamStats).
type wireStats struct {
	TotalTokens  *int `json:"total_tokens"`
	InputTokens  *int `json:"input_tokens"`
	OutputTokens *int `json:"output_tokens"`
	Cached       *int `json:"cached"`
}

type wireResult struct {
	Status string          `json:"status"`
	Error  *wireError      `json:"error"`
	Stats  json.RawMessage `json:"stats"`
}
