package appserver

import (
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/segmentio/encoding/json"
)

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
	deltaTok       []byte          // the raw "delta" token, for parse
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

// wireLegacyTokens is a token breakdown of codex/event/token_count (v1,
// snake_case).
type wireLegacyTokens struct {
	TotalTokens           int `json:"total_tokens"`
	InputTokens           int `json:"input_tokens"`
	CachedInputTokens     int `json:"cached_input_tokens"`
	OutputTokens          int `json:"output_tokens"`
	ReasoningOutputTokens int `json:"reasoning_output_tokens"`
}

func (t wireLegacyTokens) tokens() wireTokens {
	return wireTokens(t) // same fields, other tags
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

// parse fills the params a notification handler reads from the params
// object without decoding the rest: one pass over the top-level members
// (f.Members, which replays what the reader's classifying pass recorded
// instead of walking params again), strings decoded, the small nested
// objects (turn, thread, tokenUsage, error) decoded, item kept as a
// borrowed span. Big members the parser does not read (command output
// deltas, items of custom notifications) are skipped, not decoded. It
// reports false when a member the parser reads has the wrong type.
func (pr *params) parse(p *Parser, f jsonrpc.Frame) bool {
	ok := true
	f.Members(f.Params, func(name, v []byte) bool {
		str := func(dst *string) {
			if v[0] == 'n' {
				return
			}
			s, good := p.intern(v)
			if !good {
				ok = false
			}
			*dst = s
		}
		dec := func(dst any) {
			if v[0] != 'n' && jsonguard.Unmarshal(v, dst, 0) != nil {
				ok = false
			}
		}
		switch string(name) {
		case "threadId":
			str(&pr.ThreadID)
		case "turnId":
			str(&pr.TurnID)
		case "itemId":
			str(&pr.ItemID)
		case "delta":
			// Decoded by the handlers that use it (text and reasoning
			// deltas), not for command output deltas.
			pr.deltaTok = v
		case "item":
			pr.Item = v
		case "turn":
			pr.Turn = &wireTurn{}
			dec(pr.Turn)
		case "thread":
			pr.Thread = &wireThread{}
			dec(pr.Thread)
		case "tokenUsage":
			pr.TokenUsage = &wireTokenUsage{}
			dec(pr.TokenUsage)
		case "error":
			pr.Error = &wireError{}
			dec(pr.Error)
		case "willRetry":
			pr.WillRetry = string(v) == "true"
		case "requestId":
			pr.RequestID = v
		case "summary":
			str(&pr.Summary)
		case "message":
			str(&pr.Message)
		}
		return true
	})
	return ok
}

// delta decodes the "delta" member of a notification read by parse.
func (pr *params) delta() (string, bool) {
	if pr.deltaTok == nil || pr.deltaTok[0] == 'n' {
		return "", true
	}
	return jsonrpc.String(pr.deltaTok)
}

// intern decodes a string token, returning the thread or turn id string
// already held when equal (ids repeat on every notification).
func (p *Parser) intern(tok []byte) (string, bool) {
	if len(tok) >= 2 && tok[0] == '"' {
		in := tok[1 : len(tok)-1]
		if string(in) == p.threadID {
			return p.threadID, true
		}
		if string(in) == p.turnID {
			return p.turnID, true
		}
		if string(in) == p.lastItem {
			return p.lastItem, true
		}
	}
	s, ok := jsonrpc.String(tok)
	if ok && len(s) < 128 {
		p.lastItem = s
	}
	return s, ok
}
