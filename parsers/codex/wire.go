package codex

import "encoding/json"

// Wire shapes of `codex exec --json` (codex-rs/exec/src/exec_events.rs and
// the recordings under corpus/codex/). Each event is decoded once into the
// struct for its "type"; optional fields are pointers so that "absent" and
// "zero" stay distinct where it matters.

// The top-level event types.
const (
	evThreadStarted = "thread.started"
	evTurnStarted   = "turn.started"
	evTurnCompleted = "turn.completed"
	evTurnFailed    = "turn.failed"
	evItemStarted   = "item.started"
	evItemUpdated   = "item.updated"
	evItemCompleted = "item.completed"
	evError         = "error"
)

// The item types.
const (
	itAgentMessage     = "agent_message"
	itReasoning        = "reasoning"
	itCommandExecution = "command_execution"
	itFileChange       = "file_change"
	itMCPToolCall      = "mcp_tool_call"
	itWebSearch        = "web_search"
	itTodoList         = "todo_list"
	itError            = "error"
)

type wireThreadStarted struct {
	ThreadID *string `json:"thread_id"`
}

type wireUsage struct {
	InputTokens           *int `json:"input_tokens"`
	CachedInputTokens     *int `json:"cached_input_tokens"`
	OutputTokens          *int `json:"output_tokens"`
	CacheWriteInputTokens *int `json:"cache_write_input_tokens"`
	ReasoningOutputTokens *int `json:"reasoning_output_tokens"`
}

type wireTurnCompleted struct {
	Usage *wireUsage `json:"usage"`
}

type wireMessage struct {
	Message string `json:"message"`
}

type wireTurnFailed struct {
	Error *wireMessage `json:"error"`
}

type wireItemEvent struct {
	Item *wireItem `json:"item"`
}

// wireItem is the union of every item type's fields; which ones are
// meaningful depends on Type.
type wireItem struct {
	ID   string `json:"id"`
	Type string `json:"type"`

	// prevID, when set before the fast decode, is the previous item
	// event's id: an equal id is given this string instead of a new one
	// (an item's started and completed events name it twice); prevCommand
	// likewise the last command (a command's started and completed events
	// both carry it). exit is where the fast decode points ExitCode. None
	// is a member.
	prevID, prevCommand string
	exit                int

	// agent_message, reasoning, plan
	Text jsonText `json:"text"`

	// command_execution
	Command          string   `json:"command"`
	AggregatedOutput jsonText `json:"aggregated_output"`
	ExitCode         *int     `json:"exit_code"`

	// command_execution, file_change, mcp_tool_call, collab_tool_call
	Status string `json:"status"`

	// file_change
	Changes []wireChange `json:"changes"`

	// mcp_tool_call
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`

	// web_search
	Query  string          `json:"query"`
	Action json.RawMessage `json:"action"`

	// todo_list
	Items []wireTodo `json:"items"`

	// error
	Message string `json:"message"`
}

type wireChange struct {
	Path string  `json:"path"`
	Kind string  `json:"kind"`
	Diff *string `json:"diff"`
}

type wireTodo struct {
	Text      string `json:"text"`
	Completed bool   `json:"completed"`
}

// present reports whether a raw member holds a value other than null.
func present(m json.RawMessage) bool {
	return len(m) > 0 && string(m) != "null"
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
