package appserver

import (
	"bytes"
	"strings"

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

	// Where fastItem points AggregatedOutput, ExitCode, DurationMs and
	// Success: the parser's item is reused, so they cost no allocation.
	aggOut   string
	exitCode int
	duration int64
	success  bool
}

// wireItemNames are wireItem's member names, in the order of the fi
// constants.
var wireItemNames = [...]string{"type", "id", "text", "phase", "content", "summary", "command", "cwd",
	"status", "aggregatedOutput", "exitCode", "durationMs", "changes", "server", "tool", "arguments",
	"result", "error", "query", "action", "path", "prompt", "receiverThreadIds", "contentItems",
	"success", "savedPath", "revisedPrompt"}

const (
	fiType = iota
	fiID
	fiText
	fiPhase
	fiContent
	fiSummary
	fiCommand
	fiCwd
	fiStatus
	fiAggregatedOutput
	fiExitCode
	fiDurationMs
	fiChanges
	fiServer
	fiTool
	fiArguments
	fiResult
	fiError
	fiQuery
	fiAction
	fiPath
	fiPrompt
	fiReceiverThreads
	fiContentItems
	fiSuccess
	fiSavedPath
	fiRevisedPrompt
	fiCount
)

// itemStrings are item types and statuses every item carries: decoded to
// these constants instead of a new string each.
var itemStrings = [...]string{"agentMessage", "reasoning", "userMessage", "commandExecution", "fileChange",
	"mcpToolCall", "dynamicToolCall", "webSearch", "imageView", "imageGeneration", "inProgress", "completed",
	"failed", "declined"}

// fastItem decodes the item object obj (a value of f's params, so valid
// JSON within the reader's depth) into it, which must be zero, as
// jsonguard.Unmarshal would, in one pass over the members the reader's
// classifying pass recorded (f.Iter), instead of segmentio's reflective
// decoder matching every name case-insensitively. The RawMessage members
// alias obj (they are read during the Feed call only); the pointer members
// point into it. It handles the shape the app-server writes: exact member
// names, each at most once, values of the field's type or null, integers
// without fraction or exponent. On anything else it gives up (false),
// leaving it in an unspecified state, and the caller resets it and uses
// Unmarshal, whose behaviour (case-insensitive names, last duplicate
// wins, type errors) is then the only one: an unknown member name with an
// escape or a non-ASCII byte, or an ASCII case variant of a field name; a
// duplicate field; a value of another type. TestFastItem and FuzzFastItem
// hold it to Unmarshal.
func (p *Parser) fastItem(f *jsonrpc.Frame, obj []byte, it *wireItem) bool {
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	var seen uint32 // one bit per field
	ok := true
	for mi := f.Iter(obj); ok; {
		name, v, more := mi.Next()
		if !more {
			break
		}
		var k int
		if k, ok = itemNames.take(name, &seen); !ok || k < 0 {
			continue
		}
		null := v[0] == 'n'
		switch k {
		case fiType, fiStatus:
			dst := &it.Type
			if k == fiStatus {
				dst = &it.Status
			}
			if !null {
				*dst, ok = constString(v, itemStrings[:])
			}
		case fiID:
			if !null {
				it.ID, ok = p.intern(v)
			}
		case fiText, fiPhase, fiCwd, fiServer, fiTool, fiQuery, fiPath, fiPrompt, fiSavedPath, fiRevisedPrompt:
			if !null {
				var s string
				if s, ok = jsonrpc.String(v); ok {
					*itemString(it, k) = s
				}
			}
		case fiAggregatedOutput:
			if !null {
				if it.aggOut, ok = jsonrpc.String(v); ok {
					it.AggregatedOutput = &it.aggOut
				}
			}
		case fiExitCode:
			if !null {
				var n int64
				if n, ok = jsonguard.PlainInt(v); ok {
					it.exitCode = int(n)
					it.ExitCode = &it.exitCode
				}
			}
		case fiDurationMs:
			if !null {
				if it.duration, ok = jsonguard.PlainInt(v); ok {
					it.DurationMs = &it.duration
				}
			}
		case fiSuccess:
			switch string(v) {
			case "true", "false":
				it.success = v[0] == 't'
				it.Success = &it.success
			case "null":
			default:
				ok = false
			}
		default: // the RawMessage members, null included, as Unmarshal keeps them
			*itemRaw(it, k) = v
		}
	}
	return ok
}

// itemString is wireItem's string field k.
func itemString(it *wireItem, k int) *string {
	switch k {
	case fiText:
		return &it.Text
	case fiPhase:
		return &it.Phase
	case fiCwd:
		return &it.Cwd
	case fiServer:
		return &it.Server
	case fiTool:
		return &it.Tool
	case fiQuery:
		return &it.Query
	case fiPath:
		return &it.Path
	case fiPrompt:
		return &it.Prompt
	case fiSavedPath:
		return &it.SavedPath
	}
	return &it.RevisedPrompt
}

// itemRaw is wireItem's RawMessage field k.
func itemRaw(it *wireItem, k int) *json.RawMessage {
	switch k {
	case fiContent:
		return &it.Content
	case fiSummary:
		return &it.Summary
	case fiCommand:
		return &it.Command
	case fiChanges:
		return &it.Changes
	case fiArguments:
		return &it.Arguments
	case fiResult:
		return &it.Result
	case fiError:
		return &it.Error
	case fiAction:
		return &it.Action
	case fiReceiverThreads:
		return &it.ReceiverThreads
	}
	return &it.ContentItems
}

// constString decodes the string token tok, returning the element of
// consts it equals when there is one (no allocation).
func constString(tok []byte, consts []string) (string, bool) {
	if len(tok) >= 2 && tok[0] == '"' {
		in := tok[1 : len(tok)-1]
		for _, c := range consts {
			if string(in) == c {
				return c, true
			}
		}
	}
	return jsonrpc.String(tok)
}

// fieldNames matches member names to the fields of a struct the parser
// decodes by hand (fastItem, fastUsage) as jsonguard.Unmarshal would
// match them: a hash table of the field names, each with its index, and
// of the names the protocol sends that are no field's (index -1); and the
// field names by length, for the names the table does not hold.
type fieldNames struct {
	slots []fieldName // open addressing from nameHash, a power of two long, at most half full
	byLen [][]fieldName
}

type fieldName struct {
	name string
	b    []byte // name
	k    int    // the field's index; -1 for a name to skip
}

// nameHash spreads the names of a table over its slots: their lengths,
// first, middle and last bytes tell them apart.
func nameHash(name []byte) uint {
	n := len(name)
	return uint(n)*0x9e ^ uint(name[0])*0x3b ^ uint(name[n/2])*0x0d ^ uint(name[n-1])
}

// newFieldNames indexes names, the fields in order (distinct
// case-insensitively, ASCII), and skip, member names the app-server
// sends that the decoder matches to no field: recorded names (0.169.0's
// ThreadItem and token usage members the parser does not read), found by
// the one lookup instead of being compared with the field names
// case-insensitively and scanned for escapes. It panics on a skip name
// that folds to a field name (the decoder would match it) or to another.
func newFieldNames(names []string, skip ...string) fieldNames {
	var t fieldNames
	size := 16
	for size < 2*(len(names)+len(skip)) {
		size *= 2
	}
	t.slots = make([]fieldName, size)
	var all []fieldName
	add := func(n string, k int) {
		for _, o := range all {
			if strings.EqualFold(n, o.name) {
				panic("appserver: member names " + o.name + " and " + n + " fold to each other")
			}
		}
		e := fieldName{n, []byte(n), k}
		all = append(all, e)
		i := nameHash(e.b) & uint(size-1)
		for t.slots[i].name != "" {
			i = (i + 1) & uint(size-1)
		}
		t.slots[i] = e
		if k >= 0 {
			for len(t.byLen) <= len(n) {
				t.byLen = append(t.byLen, nil)
			}
			t.byLen[len(n)] = append(t.byLen[len(n)], e)
		}
	}
	for k, n := range names {
		add(n, k)
	}
	for _, n := range skip {
		add(n, -1)
	}
	return t
}

// match returns the field a member name matches: exact is true for the
// field's own name (k its index); otherwise k is -1 for a name the
// decoder matches to no field, which can be skipped, and 0 for one it
// could match (an ASCII case variant of a field name, or a name with an
// escape or a non-ASCII byte, which could spell one or a Unicode case
// fold of one). A name is looked up exactly (a skip name ends there),
// then compared case-insensitively with the field names of its length.
func (t *fieldNames) match(name []byte) (k int, exact bool) {
	if len(name) == 0 {
		return -1, false
	}
	mask := uint(len(t.slots) - 1)
	for i := nameHash(name) & mask; t.slots[i].name != ""; i = (i + 1) & mask {
		if n := &t.slots[i]; string(name) == n.name {
			return n.k, n.k >= 0
		}
	}
	if len(name) < len(t.byLen) {
		// A name that folds to a field name (lower-case letters first)
		// begins with that letter in either case; c|0x20 is it then.
		c := name[0]
		for _, n := range t.byLen[len(name)] {
			if c|0x20 == n.name[0]|0x20 && bytes.EqualFold(name, n.b) {
				return 0, false
			}
		}
	}
	for _, c := range name {
		if c == '\\' || c >= 0x80 {
			return 0, false
		}
	}
	return -1, false
}

// take is match for one object of a decoding pass under fastItem's
// rules, seen holding a bit per field taken before: ok is false when the
// pass must give up (a name the decoder could match that is no field's
// own, or a field's second time); otherwise k is the field, or -1 for a
// member to skip.
func (t *fieldNames) take(name []byte, seen *uint32) (k int, ok bool) {
	k, exact := t.match(name)
	if !exact {
		return -1, k < 0
	}
	if *seen&(1<<k) != 0 {
		return -1, false
	}
	*seen |= 1 << k
	return k, true
}

// itemNames matches wireItem's member names to the fi constants.
var itemNames = newFieldNames(wireItemNames[:], "startedAtMs", "completedAtMs", "clientId", "moderation",
	"memoryCitation", "delivery", "questions", "pluginId", "scriptPath", "processId", "source", "commandActions")

// usageNames and tokenNames match wireTokenUsage's and wireTokens' member
// names, in field order.
var (
	usageNames = newFieldNames([]string{"total", "last"}, "modelContextWindow")
	tokenNames = newFieldNames([]string{"totalTokens", "inputTokens", "cachedInputTokens", "outputTokens", "reasoningOutputTokens"}, "cacheWriteInputTokens")
)

// usageBuf is where fastUsage decodes a tokenUsage: the parser's own, so
// that it costs no allocation (read during the Feed call only).
type usageBuf struct {
	tu          wireTokenUsage
	total, last wireTokens
}

// fastUsage decodes the tokenUsage object obj (a value of f's params) into
// p's usageBuf as jsonguard.Unmarshal would into a zero wireTokenUsage, in
// one pass over the members the reader's classifying pass recorded, under
// fastItem's rules: exact member names, each at most once, objects or
// null for total and last, integers of at most 18 digits without fraction
// or exponent or null for the counts. On anything else it gives up (nil),
// and the caller uses Unmarshal. TestFastUsage and FuzzFastUsage hold it
// to Unmarshal.
func (p *Parser) fastUsage(f *jsonrpc.Frame, obj []byte) *wireTokenUsage {
	u := &p.usageDec
	*u = usageBuf{}
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	var seen uint32
	ok := true
	for mi := f.Iter(obj); ok; {
		name, v, more := mi.Next()
		if !more {
			break
		}
		var k int
		if k, ok = usageNames.take(name, &seen); !ok || k < 0 || v[0] == 'n' {
			continue
		}
		dst, ptr := &u.total, &u.tu.Total
		if k == 1 {
			dst, ptr = &u.last, &u.tu.Last
		}
		if ok = fastTokens(f, v, dst); ok {
			*ptr = dst
		}
	}
	if !ok {
		return nil
	}
	return &u.tu
}

// fastTokens decodes the object obj into t, which must be zero, for
// fastUsage.
func fastTokens(f *jsonrpc.Frame, obj []byte, t *wireTokens) bool {
	if obj[0] != '{' {
		return false
	}
	var seen uint32
	ok := true
	for mi := f.Iter(obj); ok; {
		name, v, more := mi.Next()
		if !more {
			break
		}
		var k int
		if k, ok = tokenNames.take(name, &seen); !ok || k < 0 || v[0] == 'n' {
			continue
		}
		n, good := jsonguard.PlainInt(v)
		if !good || int64(int(n)) != n {
			return false
		}
		switch k {
		case 0:
			t.TotalTokens = int(n)
		case 1:
			t.InputTokens = int(n)
		case 2:
			t.CachedInputTokens = int(n)
		case 3:
			t.OutputTokens = int(n)
		default:
			t.ReasoningOutputTokens = int(n)
		}
	}
	return ok
}

// parse fills the params a notification handler reads from the params
// object without decoding the rest: one pass over the top-level members
// (f.Iter, which replays what the reader's classifying pass recorded
// instead of walking params again), strings decoded, the small nested
// objects (turn, thread, tokenUsage, error) decoded, item kept as a
// borrowed span. Big members the parser does not read (command output
// deltas, items of custom notifications) are skipped, not decoded. It
// reports false when a member the parser reads has the wrong type.
func (pr *params) parse(p *Parser, f *jsonrpc.Frame) bool {
	ok := true
	for mi := f.Iter(f.Params); ; {
		name, v, more := mi.Next()
		if !more {
			break
		}
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
			if pr.TokenUsage = p.fastUsage(f, v); pr.TokenUsage == nil {
				pr.TokenUsage = &wireTokenUsage{}
				dec(pr.TokenUsage)
			}
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
	}
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
