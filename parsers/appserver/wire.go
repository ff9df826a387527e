package appserver

import "github.com/segmentio/encoding/json"

// Method names of the app-server protocol v2 (codex 0.169.0).
const (
	mInitialize      = "initialize"
	mThreadStart     = "thread/start"
	mThreadResume    = "thread/resume"
	mThreadFork      = "thread/fork"
	mTurnStart       = "turn/start"
	mTurnInterrupt   = "turn/interrupt"
	mThreadStarted   = "thread/started"
	mTurnStarted     = "turn/started"
	mTurnCompleted   = "turn/completed"
	mItemStarted     = "item/started"
	mItemCompleted   = "item/completed"
	mAgentDelta      = "item/agentMessage/delta"
	mReasoningDelta  = "item/reasoning/summaryTextDelta"
	mReasoningText   = "item/reasoning/textDelta"
	mReasoningPart   = "item/reasoning/summaryPartAdded"
	mTokenUsage      = "thread/tokenUsage/updated"
	mError           = "error"
	mServerResolved  = "serverRequest/resolved"
	mConfigWarning   = "configWarning"
	mDeprecation     = "deprecationNotice"
	mCmdApproval     = "item/commandExecution/requestApproval"
	mFileApproval    = "item/fileChange/requestApproval"
	mPermApproval    = "item/permissions/requestApproval"
	mUserInput       = "item/tool/requestUserInput"
	mElicitation     = "mcpServer/elicitation/request"
	mLegacyExec      = "execCommandApproval"
	mLegacyPatch     = "applyPatchApproval"
	mSkillApproval   = "skill/requestApproval"
	mToolCallRequest = "item/tool/call"
)

// TerminalEvent is Terminal.Event: the method of the terminal notification.
const TerminalEvent = mTurnCompleted

// params is the union of the notification params the parser reads. Every
// field is optional; unknown members are ignored (they stay in raw).
type params struct {
	ThreadID       string          `json:"threadId"`
	TurnID         string          `json:"turnId"`
	ItemID         string          `json:"itemId"`
	Delta          string          `json:"delta"`
	SummaryIndex   *int            `json:"summaryIndex"`
	Item           json.RawMessage `json:"item"`
	Turn           *wireTurn       `json:"turn"`
	Thread         *wireThread     `json:"thread"`
	TokenUsage     *wireTokenUsage `json:"tokenUsage"`
	Error          *wireError      `json:"error"`
	WillRetry      bool            `json:"willRetry"`
	RequestID      json.RawMessage `json:"requestId"`
	Summary        string          `json:"summary"`
	Details        json.RawMessage `json:"details"`
	Message        string          `json:"message"`
	Reason         string          `json:"reason"`
	Command        json.RawMessage `json:"command"`
	Cwd            string          `json:"cwd"`
	AvailDecisions json.RawMessage `json:"availableDecisions"`
	CallID         string          `json:"callId"`
	ConversationID string          `json:"conversationId"`
}

type wireThread struct {
	ID string `json:"id"`
}

type wireTurn struct {
	ID     string     `json:"id"`
	Status string     `json:"status"`
	Error  *wireError `json:"error"`
}

type wireError struct {
	Message        string          `json:"message"`
	CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
	Details        json.RawMessage `json:"additionalDetails"`
}

type wireTokens struct {
	TotalTokens           int `json:"totalTokens"`
	InputTokens           int `json:"inputTokens"`
	CachedInputTokens     int `json:"cachedInputTokens"`
	OutputTokens          int `json:"outputTokens"`
	ReasoningOutputTokens int `json:"reasoningOutputTokens"`
}

type wireTokenUsage struct {
	Total *wireTokens `json:"total"`
	Last  *wireTokens `json:"last"`
}

// rpcResult is the union of the response results the parser reads.
type rpcResult struct {
	Thread *wireThread `json:"thread"`
	Turn   *wireTurn   `json:"turn"`
	Model  string      `json:"model"`
}

// wireItem is a v2 ThreadItem: the union of the fields of the item types
// the parser maps.
type wireItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Text             string          `json:"text"`
	Phase            string          `json:"phase"`
	Content          json.RawMessage `json:"content"`
	Summary          json.RawMessage `json:"summary"`
	Command          json.RawMessage `json:"command"`
	Cwd              string          `json:"cwd"`
	Status           string          `json:"status"`
	AggregatedOutput *string         `json:"aggregatedOutput"`
	ExitCode         *int            `json:"exitCode"`
	DurationMs       *int64          `json:"durationMs"`
	Changes          json.RawMessage `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Error            json.RawMessage `json:"error"`
	Query            string          `json:"query"`
	Action           json.RawMessage `json:"action"`
	Path             string          `json:"path"`
	Prompt           string          `json:"prompt"`
	ReceiverThreads  json.RawMessage `json:"receiverThreadIds"`
	ContentItems     json.RawMessage `json:"contentItems"`
	Success          *bool           `json:"success"`
	SavedPath        string          `json:"savedPath"`
	RevisedPrompt    string          `json:"revisedPrompt"`
}
