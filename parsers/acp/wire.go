package acp

import (
	"bytes"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// Method names of ACP v1 (schema/v1/meta.json of
// agentclientprotocol/agent-client-protocol).
const (
	mInitialize        = "initialize"
	mAuthenticate      = "authenticate"
	mSessionNew        = "session/new"
	mSessionLoad       = "session/load"
	mSessionResume     = "session/resume"
	mSessionPrompt     = "session/prompt"
	mSessionCancel     = "session/cancel"
	mSessionUpdate     = "session/update"
	mRequestPermission = "session/request_permission"
	mFSRead            = "fs/read_text_file"
	mFSWrite           = "fs/write_text_file"
	mTermCreate        = "terminal/create"
	mTermOutput        = "terminal/output"
	mTermRelease       = "terminal/release"
	mTermWait          = "terminal/wait_for_exit"
	mTermKill          = "terminal/kill"
	mElicitation       = "elicitation/create"
	mElicitationDone   = "elicitation/complete"
	mCancelRequest     = "$/cancel_request"
)

// TerminalEvent is Terminal.Event: the method whose response ends a turn.
const TerminalEvent = mSessionPrompt

// The session/update kinds (update.sessionUpdate) of the v1 schema,
// stable and unstable.
const (
	uAgentMessage     = "agent_message_chunk"
	uAgentThought     = "agent_thought_chunk"
	uUserMessage      = "user_message_chunk"
	uToolCall         = "tool_call"
	uToolCallUpdate   = "tool_call_update"
	uPlan             = "plan"
	uCommands         = "available_commands_update"
	uMode             = "current_mode_update"
	uConfigOption     = "config_option_update"
	uSessionInfo      = "session_info_update"
	uUsage            = "usage_update"
	uPlanUpdate       = "plan_update"
	uPlanRemoved      = "plan_removed"
	uNotice           = "notice"
	uCompaction       = "compaction_update"
	uCompactionChunk  = "compaction_summary_chunk"
	uMalformedUpdates = "malformed"
)

// knownUpdates are the update kinds kept as custom payloads by design
// (audit value, nothing to normalize); they do not count as unknown. The
// value is the kind itself: looking it up with the token's bytes gives
// the event name without a copy.
var knownUpdates = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{uPlan, uCommands, uMode, uConfigOption, uSessionInfo, uUsage,
		uPlanUpdate, uPlanRemoved, uNotice, uCompaction, uCompactionChunk} {
		m[k] = k
	}
	return m
}()

// wireUsage is the ACP Usage object (prompt result "usage", unstable in
// the v1 schema) and the shape Qwen Code puts in an update's _meta.usage.
type wireUsage struct {
	TotalTokens       *int `json:"totalTokens"`
	InputTokens       int  `json:"inputTokens"`
	OutputTokens      int  `json:"outputTokens"`
	ThoughtTokens     int  `json:"thoughtTokens"`
	CachedReadTokens  int  `json:"cachedReadTokens"`
	CachedWriteTokens int  `json:"cachedWriteTokens"`
}

// wireQuota is Gemini CLI's prompt result _meta.quota.
type wireQuota struct {
	TokenCount *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"token_count"`
}

// wireInit is the part of an InitializeResponse the parser reads.
type wireInit struct {
	ProtocolVersion json.RawMessage `json:"protocolVersion"`
	AgentCaps       *struct {
		LoadSession bool `json:"loadSession"`
		SessionCaps *struct {
			Resume json.RawMessage `json:"resume"`
		} `json:"sessionCapabilities"`
	} `json:"agentCapabilities"`
	AgentInfo *struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"agentInfo"`
}

// wireSession is the part of a session/new (or load, resume) response the
// parser reads.
type wireSession struct {
	SessionID string `json:"sessionId"`
	Models    *struct {
		Current string `json:"currentModelId"`
	} `json:"models"`
	Modes *struct {
		Current string `json:"currentModeId"`
	} `json:"modes"`
}

// wirePermission is a session/request_permission request's params.
type wirePermission struct {
	SessionID string          `json:"sessionId"`
	ToolCall  json.RawMessage `json:"toolCall"`
	Options   []wireOption    `json:"options"`
}

// wireOption is a PermissionOption on the wire.
type wireOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// update is what the hot path reads of a session/update notification:
// borrowed spans of the params, found by one pass over each object
// (jsonrpc.Members), nothing decoded that a handler does not use.
type update struct {
	session []byte     // the sessionId token, with its quotes
	obj     []byte     // the update object
	kind    []byte     // the sessionUpdate token, with its quotes
	content []byte     // content (a ContentBlock, or a ToolCallContent array)
	block   block      // content's type and text, when content is an object
	msgID   []byte     // messageId token
	meta    []byte     // the update's _meta
	tool    toolFields // the update's members as a ToolCall or ToolCallUpdate
}

// read fills u from a session/update's params: the members of params,
// of its update and of the update's content, which the framing's one pass
// indexed (jsonrpc.Frame.Iter: these lines are most of a session, and
// nothing is walked a second time), gathering the update's members as
// tool fields on the way; ok is false when a member has the wrong type.
func (u *update) read(f *jsonrpc.Frame) bool {
	*u = update{}
	ok := true
	for ps := f.Iter(f.Params); ; {
		name, v, more := ps.Next()
		if !more {
			break
		}
		switch string(name) {
		case "sessionId":
			if v[0] != '"' {
				ok = false
			}
			u.session = v
		case "update":
			if v[0] != '{' {
				ok = false
				continue
			}
			u.readUpdate(f, v, &ok)
			u.obj = v
		}
	}
	return ok && u.obj != nil && u.kind != nil
}

// readUpdate takes the members of the update object obj (read's inner
// loop); ok is cleared when a member has the wrong type.
func (u *update) readUpdate(f *jsonrpc.Frame, obj []byte, ok *bool) {
	for ms := f.Iter(obj); ; {
		name, v, more := ms.Next()
		if !more {
			return
		}
		switch string(name) {
		case "content":
			if v[0] == '{' {
				for cs := f.Iter(v); ; {
					name, v, more := cs.Next()
					if !more {
						break
					}
					switch string(name) {
					case "type":
						u.block.typ = v
					case "text":
						u.block.text = v
					}
				}
				u.block.ok = true
			}
			u.content = v
			if string(v) != "null" {
				u.tool.content = v // as u.tool.member takes it
			}
		case "sessionUpdate":
			if v[0] != '"' {
				*ok = false
			}
			u.kind = v
		case "messageId":
			if v[0] == '"' {
				u.msgID = v
			}
		case "_meta":
			if v[0] == '{' {
				u.meta = v
			}
			u.tool.member(name, v)
		default:
			// The names above are the only ones this switch and
			// u.tool.member's share (sessionUpdate and messageId are
			// no tool field).
			u.tool.member(name, v)
		}
	}
}

// block is the part of a ContentBlock the parser reads: its type and, for
// text, the text token.
type block struct {
	typ  []byte // token with quotes
	text []byte // token with quotes
	ok   bool   // the content is an object
}

func readBlock(b []byte) (block, bool) {
	var bl block
	if len(b) == 0 || b[0] != '{' {
		return bl, false
	}
	jsonrpc.Members(b, func(name, v []byte) bool {
		switch string(name) {
		case "type":
			bl.typ = v
		case "text":
			bl.text = v
		}
		return true
	})
	bl.ok = true
	return bl, true
}

// isText reports whether a block's type token is "text".
func (bl block) isText() bool { return string(bl.typ) == `"text"` }

// tokenString decodes a string token as jsonguard.String does; an absent
// member (nil) or null gives "".
func tokenString(tok []byte) (string, bool) {
	if tok == nil || string(tok) == "null" {
		return "", true
	}
	return jsonguard.String(tok)
}

// unquoted returns a string token's bytes between the quotes when it has
// no escapes (the common case), for comparisons that must not allocate.
func unquoted(tok []byte) ([]byte, bool) {
	if len(tok) < 2 || tok[0] != '"' {
		return nil, false
	}
	in := tok[1 : len(tok)-1]
	if bytes.IndexByte(in, '\\') >= 0 {
		return nil, false
	}
	return in, true
}

// anyOf decodes a raw JSON value for a payload map (nil when absent; its
// text when it does not decode). raw is a part of a frame the framing
// validated whole (or a copy of one), so it is decoded without being
// validated again (jsonguard.DecodeChecked, maps sized to their members);
// a number float64 cannot hold takes jsonguard.Unmarshal's path and gives
// the text. The depth is the framing's limit (jsonrpc.Options.MaxDepth),
// not jsonguard.DefaultMaxDepth again.
func anyOf(raw []byte) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if v, ok := jsonguard.DecodeChecked(raw); ok {
		return v
	}
	var v any
	if jsonguard.Unmarshal(raw, &v, 0) != nil {
		return string(raw)
	}
	return v
}

// objectOf decodes a frame's params for a decision payload: the map of an
// object, nil for null or another value. Like anyOf it decodes an object
// the framing validated without validating it again; a number float64
// cannot hold, and any value that is not an object, take
// jsonguard.Unmarshal's path into a map, whose result (nil on its error)
// it returns.
func objectOf(raw []byte) map[string]any {
	if len(raw) > 0 && raw[0] == '{' {
		if v, ok := jsonguard.DecodeChecked(raw); ok {
			return v.(map[string]any)
		}
	}
	var m map[string]any
	jsonguard.Unmarshal(raw, &m, 0)
	return m
}

// rawBlock is the size of the blocks rawCopies carves its copies from.
const rawBlock = 16 << 10

// rawCopies makes the owned copies of frame bytes that payloads and tool
// calls keep (a custom payload's update, a call's input and output),
// carved from blocks of rawBlock bytes: one allocation per block, not one
// per copy (most of a session's frames keep a copy of their update), and
// no pointers for the collector to scan. A copy's capacity ends where it
// does, so appending to it never writes over the next one. A value over a
// quarter of a block gets its own allocation, so that a block is at most
// a quarter empty when it is left. A consumer that keeps a copy keeps its
// block: at most rawBlock bytes, all of them input bytes.
type rawCopies struct{ block []byte }

// copy returns an owned copy of b (nil for nil).
func (c *rawCopies) copy(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	if len(b) > rawBlock/4 {
		return append(json.RawMessage(nil), b...)
	}
	if cap(c.block)-len(c.block) < len(b) {
		c.block = make([]byte, 0, rawBlock)
	}
	n := len(c.block)
	c.block = append(c.block, b...)
	return c.block[n:len(c.block):len(c.block)]
}
