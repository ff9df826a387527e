package acp

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// message is the message being streamed: a run of agent_message_chunk,
// agent_thought_chunk or user_message_chunk updates of one messageId.
type message struct {
	kind string // the update kind
	id   string // the provider's messageId, "" when it sends none
	key  string // the emitter id: id, or a synthesized "message-N"
	text strings.Builder
}

// toolState is a tool call announced by tool_call (or first named by an
// update or a permission request).
type toolState struct {
	id       string // toolCallId
	name     string // _meta.toolName (Qwen Code), else the kind, else "other": ACP has no tool name
	named    bool   // name is a _meta.toolName
	title    string
	status   string
	open     bool // tool_call.start emitted
	done     bool
	input    json.RawMessage
	content  json.RawMessage
	location json.RawMessage
	output   json.RawMessage
	meta     json.RawMessage
}

// turnUsage is the usage reported during the current turn by updates
// (Qwen Code's _meta.usage on empty agent_message_chunk updates, one per
// model call); the prompt result's own report replaces it.
type turnUsage struct {
	meta *driver.Usage
}

// stopReasons maps each ACP StopReason to the FinishReason union; the
// failure ones (cancelled) are absent from success.
var stopReasons = map[string]driver.FinishReason{
	"end_turn":          driver.FinishStop,
	"max_tokens":        driver.FinishLength,
	"max_turn_requests": driver.FinishOther,
	"refusal":           driver.FinishContentFilter,
	"cancelled":         driver.FinishOther,
}

// sessionUpdate maps a session/update notification.
func (p *Parser) sessionUpdate(f *jsonrpc.Frame) error {
	u := &p.u
	if !u.read(f) {
		return p.malformedFrame(f, "session/update without a valid update (sessionId, update.sessionUpdate)")
	}
	if p.opts.Unpaired != nil {
		p.pairs.seq++
	}
	kind, known := updateKind(u.kind)
	if p.replay {
		p.replayed++
		raw := map[string]any{"scope": "replay", "update": p.raw.copy(u.obj)}
		return p.custom(kind, driver.StreamPayload{ThreadID: p.sessionID, Raw: raw})
	}
	if !p.inScope(u.session) {
		s, _ := jsonrpc.String(u.session)
		return p.otherScopeMessage(kind, s, map[string]any{"update": p.raw.copy(u.obj)})
	}
	switch kind {
	case uAgentMessage:
		return p.chunk(f, uAgentMessage, emit.Text)
	case uAgentThought:
		return p.chunk(f, uAgentThought, emit.Reasoning)
	case uUserMessage:
		return p.chunk(f, uUserMessage, 0)
	case uToolCall:
		return p.toolCall(f, true)
	case uToolCallUpdate:
		return p.toolCall(f, false)
	case uUsage:
		return p.usageUpdate(f)
	case uMode:
		if m, ok := jsonguard.PeekString(u.obj, "currentModeId", nil); ok {
			p.mode = string(m)
		}
	}
	if !known {
		p.unknown++
	}
	return p.custom(kind, driver.StreamPayload{ThreadID: p.sessionID, Raw: map[string]any{"update": p.raw.copy(u.obj)}})
}

// updateKind returns the kind a sessionUpdate token (a string token, as
// update.read checked) names, decoded, and whether it is one of
// knownUpdates. A kind of the schema written without escapes, as every
// agent writes it, is told from the token's bytes: its constant, with no
// copy, scan or map lookup.
func updateKind(tok []byte) (kind string, known bool) {
	const q = `"`
	switch string(tok) {
	case q + uAgentMessage + q:
		return uAgentMessage, false
	case q + uAgentThought + q:
		return uAgentThought, false
	case q + uUserMessage + q:
		return uUserMessage, false
	case q + uToolCall + q:
		return uToolCall, false
	case q + uToolCallUpdate + q:
		return uToolCallUpdate, false
	case q + uUsage + q:
		return uUsage, true
	case q + uCommands + q:
		return uCommands, true
	case q + uConfigOption + q:
		return uConfigOption, true
	case q + uSessionInfo + q:
		return uSessionInfo, true
	case q + uMode + q:
		return uMode, true
	case q + uPlan + q:
		return uPlan, true
	}
	if in, ok := unquoted(tok); ok {
		kind = string(in)
	} else {
		kind, _ = jsonrpc.String(tok)
	}
	k, known := knownUpdates[kind]
	if known {
		kind = k
	}
	return kind, known
}

// chunk maps a content chunk: text streams into the message of its
// messageId (a new one when the id changes or another kind of update came
// between); other content (images, resources) is kept as a custom
// payload; the _meta usage of Qwen Code's empty chunks is taken.
func (p *Parser) chunk(f *jsonrpc.Frame, kind string, fam emit.Family) error {
	u := &p.u
	if u.meta != nil {
		if err := p.metaUsage(f, u.meta); err != nil {
			return err
		}
	}
	bl := u.block
	if !bl.ok {
		return p.malformedFrame(f, kind+" without a content block")
	}
	if !bl.isText() {
		raw := map[string]any{"update": p.raw.copy(u.obj)}
		return p.custom(kind, driver.StreamPayload{ThreadID: p.sessionID, Raw: raw})
	}
	lit := bl.text
	switch {
	case lit == nil || string(lit) == "null":
	case lit[0] != '"':
		return p.malformedFrame(f, kind+" text is not a string")
	}
	if len(lit) <= 2 {
		// An empty chunk (Qwen Code's carrier of _meta.usage): no delta,
		// and it neither opens nor ends a message.
		return p.em.Err()
	}
	id := ""
	if u.msgID != nil {
		if in, ok := unquoted(u.msgID); ok && p.cur != nil && string(in) == p.cur.id {
			id = p.cur.id
		} else {
			id, _ = jsonrpc.String(u.msgID)
		}
	}
	p.st = stateTurn
	m := p.cur
	if m == nil || m.kind != kind || m.id != id {
		if err := p.closeMessage(); err != nil {
			return err
		}
		p.msgSeq++
		m = &message{kind: kind, id: id, key: id}
		if id == "" {
			m.key = "message-" + strconv.Itoa(p.msgSeq)
		}
		p.cur = m
	}
	text := p.appendText(&m.text, lit)
	if fam == 0 {
		return p.em.Err()
	}
	if err := p.start(); err != nil {
		return err
	}
	return p.em.Delta(fam, "", m.key, text)
}

// appendText decodes the string literal lit (a chunk's text, which the
// framing validated) onto dst and returns the decoded text, a substring
// of dst's contents (apistream.Append): the delta costs no copy of its
// own, and a message's text is not copied a second time.
func (p *Parser) appendText(dst *strings.Builder, lit []byte) string {
	text, scratch := apistream.AppendLiteral(dst, p.scratch, lit)
	p.scratch = scratch
	return text
}

// closeMessage ends the message being streamed: its lifecycle closes and
// its transcript item (assistant, thinking or user) is emitted.
func (p *Parser) closeMessage() error {
	m := p.cur
	if m == nil {
		return p.em.Err()
	}
	p.cur = nil
	text := m.text.String()
	var meta map[string]string
	if m.id != "" {
		meta = map[string]string{"message_id": m.id}
	}
	var kind driver.TranscriptKind
	switch m.kind {
	case uAgentMessage:
		if err := p.em.Close(emit.Text, "", m.key, nil); err != nil {
			return err
		}
		p.output = text
		kind = driver.TranscriptAssistant
	case uAgentThought:
		if err := p.em.Close(emit.Reasoning, "", m.key, nil); err != nil {
			return err
		}
		kind = driver.TranscriptThinking
	default:
		kind = driver.TranscriptUser
	}
	return p.em.Item(driver.TranscriptItem{Kind: kind, Text: text, Metadata: meta})
}

// metaUsage takes the usage Qwen Code reports per model call in an
// update's _meta.usage (the ACP Usage shape, camelCase); the calls of a
// turn add up.
func (p *Parser) metaUsage(f *jsonrpc.Frame, meta []byte) error {
	var m struct {
		Usage *wireUsage `json:"usage"`
	}
	if !bytes.Contains(meta, []byte(`"usage"`)) {
		return p.em.Err()
	}
	if jsonguard.Unmarshal(meta, &m, 0) != nil || m.Usage == nil {
		return p.em.Err()
	}
	u := m.Usage.usage()
	if p.turnUse.meta == nil {
		p.turnUse.meta = &driver.Usage{}
	}
	addTo(p.turnUse.meta, u)
	return p.em.Err()
}

// usage normalizes an ACP Usage. Whether inputTokens counts the cache
// reads and writes, and outputTokens the thought tokens, the ACP schema
// does not say; the report's own totalTokens does: when it equals the sum
// with them counted apart, they are added in (driver.Usage counts them
// among input and output).
func (w *wireUsage) usage() driver.Usage {
	in, out, th := w.InputTokens, w.OutputTokens, w.ThoughtTokens
	cache := w.CachedReadTokens + w.CachedWriteTokens
	if w.TotalTokens != nil {
		switch t := *w.TotalTokens; t {
		case in + out:
		case in + out + th:
			out += th
		case in + cache + out:
			in += cache
		case in + cache + out + th:
			in += cache
			out += th
		}
	}
	if cache > in {
		in += cache
	}
	if th > out {
		out += th
	}
	return driver.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: w.CachedReadTokens, CacheWriteInputTokens: w.CachedWriteTokens, ReasoningTokens: th}
}

func addTo(dst *driver.Usage, u driver.Usage) {
	dst.InputTokens += u.InputTokens
	dst.OutputTokens += u.OutputTokens
	dst.CachedInputTokens += u.CachedInputTokens
	dst.CacheWriteInputTokens += u.CacheWriteInputTokens
	dst.ReasoningTokens += u.ReasoningTokens
}

// addUsage adds a finished turn's usage to the run's and notes its source.
func (p *Parser) addUsage(u *driver.Usage, source string) {
	if p.usage == nil {
		p.usage = &driver.Usage{}
	}
	addTo(p.usage, *u)
	for _, s := range p.sources {
		if s == source {
			return
		}
	}
	p.sources = append(p.sources, source)
}

// usageUpdate keeps the context window figures of usage_update (used and
// size of the session's context, the session's cost so far): they are
// not the turn's token usage, so they go to Metadata, the last report
// replacing the earlier ones.
func (p *Parser) usageUpdate(f *jsonrpc.Frame) error {
	used, size, ok := usageFigures(f, p.u.obj)
	if !ok {
		var w wireUsageUpdate
		if jsonguard.Unmarshal(p.u.obj, &w, 0) != nil {
			return p.malformedFrame(f, "usage_update with fields of the wrong type")
		}
		used, size = "", ""
		if w.Used != nil {
			used = w.Used.String()
		}
		if w.Size != nil {
			size = w.Size.String()
		}
		if w.Cost != nil {
			p.cost = strings.TrimSpace(w.Cost.Amount.String() + " " + w.Cost.Currency)
		}
	}
	if used != "" {
		p.ctxUsed = used
	}
	if size != "" {
		p.ctxSize = size
	}
	return p.custom(uUsage, driver.StreamPayload{ThreadID: p.sessionID, Raw: map[string]any{"update": p.raw.copy(p.u.obj)}})
}

// wireUsageUpdate is what usageUpdate decodes of a usage_update.
type wireUsageUpdate struct {
	Used *json.Number `json:"used"`
	Size *json.Number `json:"size"`
	Cost *struct {
		Amount   json.Number `json:"amount"`
		Currency string      `json:"currency"`
	} `json:"cost"`
}

// usageFigures reads the used and size of a usage_update object without
// decoding it, for the shape the agents send (Copilot's
// {"sessionUpdate":"usage_update","used":8801,"size":64000}): members
// named exactly sessionUpdate, used or size, the figures number literals,
// whose text is what decoding them as a json.Number gives (the last of a
// repeated name counting, as in decoding). ok is false for anything else
// (another member, such as cost; a null, a string, an escaped or
// differently cased name, which decoding may match): the caller decodes
// instead. A figure absent is "".
func usageFigures(f *jsonrpc.Frame, obj []byte) (used, size string, ok bool) {
	ok = true
	f.Members(obj, func(name, v []byte) bool {
		switch string(name) {
		case "sessionUpdate":
			return true
		case "used", "size":
			if c := v[0]; c != '-' && (c < '0' || c > '9') {
				ok = false
				return false
			}
			if name[0] == 'u' {
				used = string(v)
			} else {
				size = string(v)
			}
			return true
		}
		ok = false
		return false
	})
	return used, size, ok
}

// toolFields are the members of a ToolCall or ToolCallUpdate, gathered
// by the walk that reads them (update.read for a session/update, readTool
// for a permission request's toolCall): borrowed spans of the frame,
// string members as their tokens (quotes included), decoded only where a
// call's state takes them, so that an update that changes nothing (a late
// update, a repeated title or status) decodes nothing.
type toolFields struct {
	idTok, kindTok, statusTok []byte // string or null tokens; the last one counts
	titleTok                  []byte // the last non-null title token
	toolName                  []byte // _meta.toolName, Qwen Code's name of the tool (decoded)
	bad                       bool   // a string member has another type
	content                   []byte
	location                  []byte
	input                     []byte
	output                    []byte
	meta                      []byte
}

// member takes one member of the object (name raw, value exact bytes);
// with duplicate names the last one counts, as in decoding, except that a
// null title or value is no value.
func (t *toolFields) member(name, v []byte) {
	str := func(dst *[]byte) {
		if v[0] == '"' || string(v) == "null" {
			*dst = v
		} else {
			t.bad = true
		}
	}
	set := func(dst *[]byte) {
		if string(v) != "null" {
			*dst = v
		}
	}
	switch string(name) {
	case "toolCallId":
		str(&t.idTok)
	case "kind":
		str(&t.kindTok)
	case "status":
		str(&t.statusTok)
	case "title":
		if string(v) != "null" {
			str(&t.titleTok)
		}
	case "content":
		set(&t.content)
	case "locations":
		set(&t.location)
	case "rawInput":
		set(&t.input)
	case "rawOutput":
		set(&t.output)
	case "_meta":
		set(&t.meta)
		if n, good := jsonguard.PeekString(v, "toolName", nil); good {
			t.toolName = n
		}
	}
}

// id returns the toolCallId as the bytes of its decoded value (aliasing
// the frame when it has no escapes): a map lookup with it allocates
// nothing. ok is false when a string member had another type or the id
// is missing or empty.
func (t *toolFields) id() ([]byte, bool) {
	if t.bad || len(t.idTok) <= 2 || t.idTok[0] != '"' {
		return nil, false
	}
	// The token is a string the framing validated: plain ASCII up to its
	// last byte is an id without escapes (one scan, eight bytes at a
	// time).
	in := t.idTok[1 : len(t.idTok)-1]
	if jsonguard.PlainEnd(t.idTok, 1) == len(t.idTok)-1 || bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return in, true
	}
	s, _ := tokenString(t.idTok)
	return []byte(s), s != ""
}

// title returns the decoded title, ok false when none was given.
func (t *toolFields) title() (string, bool) {
	if t.titleTok == nil {
		return "", false
	}
	s, _ := tokenString(t.titleTok)
	return s, true
}

// readTool reads a ToolCall or ToolCallUpdate object; ok is false when a
// string member has another type or toolCallId is missing.
func readTool(obj []byte) (toolFields, bool) {
	var t toolFields
	if len(obj) == 0 || obj[0] != '{' {
		return t, false
	}
	jsonrpc.Members(obj, func(name, v []byte) bool {
		t.member(name, v)
		return true
	})
	_, ok := t.id()
	return t, ok
}

// toolCall maps tool_call (announce) and tool_call_update.
func (p *Parser) toolCall(f *jsonrpc.Frame, announce bool) error {
	w := &p.u.tool
	idb, ok := w.id()
	if !ok {
		kind := uToolCallUpdate
		if announce {
			kind = uToolCall
		}
		return p.malformedFrame(f, kind+" without a valid toolCallId")
	}
	if err := p.closeMessage(); err != nil {
		return err
	}
	p.st = stateTurn
	ts := p.tools[string(idb)]
	if ts == nil {
		ts = p.newTool(string(idb))
		if !announce && p.opts.Unpaired != nil {
			p.opts.Unpaired(f.Offset, f.Line, "tool_call_update for tool call "+ts.id+" that no tool_call announced")
		}
	} else if ts.done {
		// A late update of a finished call: audit only.
		return p.custom(uToolCallUpdate, driver.StreamPayload{ThreadID: p.sessionID, Raw: map[string]any{"update": p.raw.copy(p.u.obj), "late": true}})
	}
	if announce && p.opts.Unpaired != nil {
		p.pairTool(f, ts.id)
	}
	ts.merge(w, &p.raw)
	switch ts.status {
	case "completed", "failed":
		if err := p.openTool(ts.id, ts); err != nil {
			return err
		}
		return p.closeTool(ts.id, ts, ts.status)
	}
	if ts.status == "in_progress" {
		if err := p.openTool(ts.id, ts); err != nil {
			return err
		}
	}
	if announce {
		return p.em.Err()
	}
	// A progress update (status in_progress, streamed content): kept as a
	// custom payload; the call's end carries the final state.
	return p.custom(uToolCallUpdate, driver.StreamPayload{ThreadID: p.sessionID, Raw: map[string]any{"update": p.raw.copy(p.u.obj)}})
}

func (p *Parser) newTool(id string) *toolState {
	ts := &toolState{id: id, name: "other"}
	p.tools[id] = ts
	p.toolOrder = append(p.toolOrder, id)
	return ts
}

// merge takes the fields an update carries (only the changed ones need
// be present), copying the values out of the frame; a string equal to
// the one held is not decoded again, a value equal to the one held not
// copied again.
func (ts *toolState) merge(w *toolFields, c *rawCopies) {
	switch {
	case len(w.toolName) > 0:
		if string(w.toolName) != ts.name {
			ts.name = string(w.toolName)
		}
		ts.named = true
	case !ts.named && len(w.kindTok) > 2 && w.kindTok[0] == '"':
		setString(&ts.name, w.kindTok)
	}
	if w.titleTok != nil {
		setString(&ts.title, w.titleTok)
	}
	if len(w.statusTok) > 2 && w.statusTok[0] == '"' {
		setString(&ts.status, w.statusTok)
	}
	set := func(dst *json.RawMessage, v []byte) {
		// The held values are the state's own until closeTool hands them
		// out (and forgets them): the buffer can be reused.
		switch {
		case v == nil || bytes.Equal(*dst, v):
		case cap(*dst) >= len(v):
			*dst = append((*dst)[:0], v...)
		default:
			*dst = c.copy(v)
		}
	}
	set(&ts.input, w.input)
	set(&ts.content, w.content)
	set(&ts.location, w.location)
	set(&ts.output, w.output)
	set(&ts.meta, w.meta)
}

// setString sets *dst to the decoded string token tok, without decoding
// (or allocating) when tok holds the same string already, or one of the
// schema's tool call statuses and kinds (a call's status changes two or
// three times, and each call names its kind).
func setString(dst *string, tok []byte) {
	in, ok := unquoted(tok)
	if ok && string(in) == *dst {
		return
	}
	if ok {
		if s, known := toolWord(in); known {
			*dst = s
			return
		}
	}
	*dst, _ = tokenString(tok)
}

// toolWord returns the ToolCallStatus or ToolKind value of the schema
// that b spells, as a constant: a token's bytes give a value without an
// allocation, and a switch finds it without hashing them.
func toolWord(b []byte) (string, bool) {
	switch string(b) {
	case "pending":
		return "pending", true
	case "in_progress":
		return "in_progress", true
	case "completed":
		return "completed", true
	case "failed":
		return "failed", true
	case "read":
		return "read", true
	case "edit":
		return "edit", true
	case "delete":
		return "delete", true
	case "move":
		return "move", true
	case "search":
		return "search", true
	case "execute":
		return "execute", true
	case "think":
		return "think", true
	case "fetch":
		return "fetch", true
	case "switch_mode":
		return "switch_mode", true
	case "other":
		return "other", true
	}
	return "", false
}

// openTool emits the tool call's start (with its complete input: ACP
// sends rawInput whole) and its tool_call transcript item, once. A call
// is opened when it runs (in_progress), ends, or asks for permission, not
// while it is pending: a pending call's input "is either streaming or
// awaiting approval" (the schema), and the agents do stream it (opencode
// announces {"cwd"} and sends the command with in_progress; Qwen Code
// announces {} and sends it with the permission request).
func (p *Parser) openTool(id string, ts *toolState) error {
	if ts.open {
		return p.em.Err()
	}
	ts.open = true
	if err := p.start(); err != nil {
		return err
	}
	var args map[string]any
	switch v := anyOf(ts.input).(type) {
	case map[string]any:
		args = v
	case nil:
		args = map[string]any{}
	default:
		args = map[string]any{"input": v}
	}
	if _, err := p.em.OpenTool("", id, ts.name, args, "", ""); err != nil {
		return err
	}
	meta := map[string]string{"kind": ts.name}
	if ts.title != "" {
		meta["title"] = ts.title
	}
	var data map[string]any
	if ts.location != nil {
		data = map[string]any{"locations": anyOf(ts.location)}
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: id, ToolName: ts.name, Input: args, Metadata: meta, Data: data})
}

// closeTool emits the tool call's end with its result and the tool_result
// item; status failed (or incomplete, for a call the turn's end left
// open) is an error.
func (p *Parser) closeTool(id string, ts *toolState, status string) error {
	ts.done = true
	res := map[string]any{"status": status}
	if ts.title != "" {
		res["title"] = ts.title
	}
	// The values go out as the agent's exact JSON (json.RawMessage), not
	// decoded: a tool's output can be large.
	put := func(k string, v json.RawMessage) {
		if v != nil {
			res[k] = v
		}
	}
	put("output", ts.output)
	put("content", ts.content)
	put("locations", ts.location)
	put("_meta", ts.meta)
	text := contentText(ts.content)
	if text == "" && len(ts.output) > 0 && ts.output[0] == '"' {
		text, _ = jsonrpc.String(ts.output)
	}
	// The lifecycle is over: keep only the done marker.
	ts.input, ts.content, ts.location, ts.output, ts.meta = nil, nil, nil, nil, nil
	if p.opts.Bounded {
		p.finished(ts, status)
	}
	if err := p.em.Close(emit.Tool, "", id, res); err != nil {
		return err
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: id, ToolName: ts.name, Text: text, IsError: status != "completed", Data: res})
}

// maxDone is how many finished calls a bounded parser keeps, for their
// late updates (Options.Bounded).
const maxDone = 1024

// finished keeps the finished call ts among the last maxDone (bounded,
// Options.Bounded), forgetting the oldest: a later update of a
// call forgotten is taken for a new call.
func (p *Parser) finished(ts *toolState, status string) {
	if status == "completed" || status == "failed" {
		delete(p.pairs.pending, ts.id)
	}
	if len(p.doneTools) < maxDone {
		p.doneTools = append(p.doneTools, ts)
		return
	}
	old := p.doneTools[p.nextDone]
	if p.tools[old.id] == old {
		delete(p.tools, old.id)
		if len(p.toolOrder) > 2*len(p.tools)+64 {
			p.toolOrder = slices.DeleteFunc(p.toolOrder, func(id string) bool { return p.tools[id] == nil })
		}
	}
	p.doneTools[p.nextDone] = ts
	p.nextDone = (p.nextDone + 1) % maxDone
}

// closeTools ends the calls still open at the end of a turn with status.
func (p *Parser) closeTools(status string) error {
	for _, id := range p.toolOrder {
		ts := p.tools[id]
		if ts == nil || ts.done {
			continue // forgotten (Options.Bounded), or finished
		}
		if err := p.openTool(id, ts); err != nil {
			return err
		}
		if err := p.closeTool(id, ts, status); err != nil {
			return err
		}
	}
	p.toolOrder = p.toolOrder[:0]
	return p.em.Err()
}

// contentText joins the text of a ToolCallContent array's content
// blocks, walking the array without decoding the rest.
func contentText(raw []byte) string {
	var first string
	var b strings.Builder
	elements(raw, func(el []byte) {
		var typ, content []byte
		jsonrpc.Members(el, func(name, v []byte) bool {
			switch string(name) {
			case "type":
				typ = v
			case "content":
				content = v
			}
			return true
		})
		if string(typ) != `"content"` {
			return
		}
		bl, ok := readBlock(content)
		if !ok || !bl.isText() {
			return
		}
		t, ok := tokenString(bl.text)
		switch {
		case !ok || t == "":
		case first == "" && b.Len() == 0:
			first = t // the usual single block: no copy
		default:
			if b.Len() == 0 {
				b.WriteString(first)
			}
			b.WriteByte('\n')
			b.WriteString(t)
		}
	})
	if b.Len() > 0 {
		return b.String()
	}
	return first
}

// elements calls fn with each element of a JSON array (a value the
// framing has validated); anything else calls it never.
func elements(arr []byte, fn func(el []byte)) {
	i := jsonguard.SkipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	for i = jsonguard.SkipWS(arr, i+1); i < len(arr) && arr[i] != ']'; {
		end := jsonguard.ValueEnd(arr, i)
		if end <= i || end > len(arr) {
			return
		}
		fn(arr[i:end])
		i = jsonguard.SkipWS(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = jsonguard.SkipWS(arr, i+1)
		}
	}
}
