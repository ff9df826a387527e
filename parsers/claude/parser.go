package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// Outcome is the observed process outcome given to Finish; it is the
// shared emit.Outcome so that one value serves every parser.
type Outcome = emit.Outcome

// ErrFinished is returned by Feed, FeedError, FeedInput and Finish after
// Finish.
var ErrFinished = emit.ErrFinished

// ErrUnknownRequest is returned by Resolve for a request id that is not
// pending (never seen, already answered, or cancelled by the CLI).
var ErrUnknownRequest = errors.New("claude: no pending control request with that id")

// Provider is Response.Provider and the prefix of the custom stream
// kinds: claude/<event>.
const Provider = "claude"

const provider = Provider

// Options configures a Parser. The zero value parses a plain
// `claude -p --output-format stream-json --verbose` run without live
// stream payloads.
type Options struct {
	// Streaming emits normalized StreamPayloads through EmitStream
	// (Request.Streaming). Transcript items are emitted either way.
	Streaming bool

	// SessionData is copied into the checkpoint's SessionState.Data:
	// the guard inputs cwd, workspace_id and profile_fingerprint (see the
	// driver.Param* keys), and any other entry the driver wants kept.
	SessionData map[string]string

	// PartialMessages says the CLI ran with --include-partial-messages:
	// it then writes stream_event lines carrying the Anthropic SSE events
	// of every model response, and the capability gains TokenLevel and
	// ToolCallArgs (tool input streamed by input_json_delta). stream_event
	// lines are parsed whatever this says; it only fixes the capability,
	// so set it exactly when the flag is passed.
	PartialMessages bool

	// ControlProtocol says the CLI ran with --input-format stream-json and
	// --permission-prompt-tool stdio: it then asks the host for permission
	// with can_use_tool control_request lines, and the capability gains
	// HITL (hitl.requested / hitl.resolved audit payloads). Answers go
	// through Resolve, or are recorded by FeedInput when replaying stdin.
	ControlProtocol bool
}

// state is the parser's position in the run.
type state uint8

const (
	// stateIdle: no protocol line yet.
	stateIdle state = iota
	// stateRunning: lines seen, no root result yet.
	stateRunning
	// stateResult: a root result was seen; another turn may follow (stream
	// input), and its result then replaces the terminal.
	stateResult
	// stateFinished: Finish was called.
	stateFinished
)

func (s state) String() string {
	switch s {
	case stateIdle:
		return "idle"
	case stateRunning:
		return "running"
	case stateResult:
		return "result"
	case stateFinished:
		return "finished"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Parser is the Claude Code stream-json state machine. Create it with New,
// Feed it every stdout frame in order, then call Finish once. It is not
// safe for concurrent use and starts no goroutines.
type Parser struct {
	opts Options
	cap  driver.StreamCapability
	em   *emit.Emitter

	state state

	// sid is the session id the first line carrying one announced (or the
	// new_conversation_id of a conversation_reset); every later line must
	// announce the same one.
	sid        string
	sidChanged bool
	// malformed counts malformed lines and framing errors; any poisons the
	// checkpoint.
	malformed int
	// problem is the first malformed line's reason.
	problem string
	// custom counts payloads of kinds this parser does not know.
	custom int

	// The root result that ends the run (the last one seen) and its exact
	// bytes.
	result   *resultLine
	terminal json.RawMessage
	success  bool

	model, version string

	// toolScope maps a tool_use id to the scope (parent_tool_use_id) of
	// the message that called it.
	toolScope map[string]string

	// Partial-message state: messages by (scope, id), the current message
	// of each scope, and creation order.
	msgs     map[msgKey]*message
	cur      map[string]*message
	msgOrder []*message
	anon     int
	// snapOrd counts the snapshot blocks seen per message.
	snapOrd map[msgKey]int

	// usage of root messages, last report per message id, in first-seen
	// order: the fallback when no result reports usage.
	msgUsage  map[string]apiUsage
	usageKeys []string

	// sl is the reused decode target of stream_event lines.
	sl streamLine

	// pending CLI control requests, by id and in arrival order.
	pending      map[string]*ControlRequest
	pendingOrder []string
}

// New returns a Parser emitting to sink.
func New(sink driver.EventSink, opts Options) *Parser {
	p := &Parser{
		opts:      opts,
		cap:       capabilityFor(opts),
		toolScope: map[string]string{},
		msgs:      map[msgKey]*message{},
		cur:       map[string]*message{},
		snapOrd:   map[msgKey]int{},
		msgUsage:  map[string]apiUsage{},
		pending:   map[string]*ControlRequest{},
	}
	p.em = emit.New(sink, opts.Streaming, p.cap)
	return p
}

func capabilityFor(o Options) driver.StreamCapability {
	return driver.StreamCapability{
		Native:       true,
		TokenLevel:   o.PartialMessages,
		Reasoning:    true,
		ToolCallArgs: o.PartialMessages,
		HITL:         o.ControlProtocol,
	}
}

// Capability returns the stream capability, fixed by the options:
// Native and Reasoning always, TokenLevel and ToolCallArgs with
// PartialMessages, HITL with ControlProtocol.
func (p *Parser) Capability() driver.StreamCapability { return p.cap }

// Feed parses one stdout frame. Frames must come in stream order. Blank
// and BOM frames are skipped. A malformed line (not a JSON object, no
// type, a value that does not decode, a session id that differs from the
// one announced before) is recorded as a transcript item and a
// claude/malformed payload and poisons the checkpoint; an unknown type is
// kept as a custom payload. Feed returns only sink errors (sticky), and
// ErrFinished after Finish. The frame's slices are not retained.
func (p *Parser) Feed(f ndjson.Frame) error {
	if p.state == stateFinished {
		return ErrFinished
	}
	if err := p.em.Err(); err != nil {
		return err
	}
	if f.Kind != ndjson.KindLine {
		return nil
	}
	if p.state == stateIdle {
		p.state = stateRunning
	}
	data := f.Data
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i == len(data) || data[i] != '{' {
		return p.nonJSON(f)
	}
	if bytes.HasPrefix(data, streamPrefix) {
		// The fast path of the line type that comes once per token: decode
		// first, and trust the decoded type only when it is the line's one
		// and only "type" member, which is then what Frame.Type returns.
		// Anything else takes the general path below.
		l := &p.sl
		*l = streamLine{}
		if f.Decode(l) == nil && l.Type.n == 1 && l.Type.v == "stream_event" {
			return p.streamDecoded(f, l)
		}
	}
	typ, ok := f.Type()
	if !ok {
		if err := jsonguard.Check(data, 0); err != nil {
			return p.bad(f, "invalid JSON: "+err.Error())
		}
		return p.bad(f, "message without a string type")
	}
	if string(typ) == "stream_event" {
		// It checks its session id while decoding.
		return p.streamEvent(f)
	}
	if sid, ok := f.Peek("session_id"); ok && len(sid) > 0 {
		if err := p.session(f, sid); err != nil {
			return err
		}
	}
	switch string(typ) {
	case "assistant":
		return p.assistant(f)
	case "user":
		return p.user(f)
	case "system":
		return p.system(f)
	case "result":
		return p.resultLine(f)
	case "control_request":
		return p.controlRequest(f)
	case "control_response":
		return p.controlResponse(f)
	case "control_cancel_request":
		return p.controlCancel(f)
	case "rate_limit_event":
		return p.rateLimit(f)
	case "conversation_reset":
		return p.conversationReset(f)
	case "transcript_mirror":
		// The SDK's internal session mirroring: no audit value, kept as a
		// custom payload only.
		return p.customLine(f, string(typ), false)
	}
	return p.customLine(f, string(typ), true)
}

var streamPrefix = []byte(`{"type":"stream_event"`)

// session checks the session id a line announced.
func (p *Parser) session(f ndjson.Frame, sid []byte) error {
	if p.sid == "" {
		p.sid = string(sid)
		return p.em.Start("", p.sid, "")
	}
	if string(sid) == p.sid {
		return nil
	}
	p.sidChanged = true
	return p.bad(f, "session_id changed from "+quote(p.sid)+" to "+quote(string(sid)))
}

// FeedError records a framing error (such as an *ndjson.LineError for a
// line over the size limit) as malformed protocol: a transcript item and a
// claude/malformed payload. It poisons the checkpoint; parsing goes on. It
// returns only sink errors.
func (p *Parser) FeedError(err error) error {
	if p.state == stateFinished {
		return ErrFinished
	}
	if err == nil {
		return p.em.Err()
	}
	p.poison(err.Error())
	raw := map[string]any{"error": err.Error()}
	meta := map[string]string{}
	var le *ndjson.LineError
	if errors.As(err, &le) {
		raw["line"], raw["offset"] = le.Line, le.Offset
		meta["line"], meta["offset"] = strconv.Itoa(le.Line), strconv.FormatInt(le.Offset, 10)
		if le.Len > 0 {
			raw["skipped_bytes"] = le.Len
		}
	}
	if e := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "malformed", Text: err.Error(), Metadata: meta}); e != nil {
		return e
	}
	return p.em.Custom(provider, "malformed", driver.StreamPayload{Raw: raw})
}

// nonJSON records a stdout line that is not a JSON object (a banner, a
// debug print, a truncated line) as a stdout item, verbatim.
func (p *Parser) nonJSON(f ndjson.Frame) error {
	p.poison("line " + strconv.Itoa(f.Line) + ": not a JSON object")
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: string(f.Data),
		Metadata: map[string]string{"line": strconv.Itoa(f.Line)}}); err != nil {
		return err
	}
	return p.em.Custom(provider, "malformed", driver.StreamPayload{Raw: map[string]any{
		"error": "not a JSON object", "line": f.Line, "offset": f.Offset}})
}

func (p *Parser) poison(reason string) {
	if p.malformed == 0 {
		p.problem = reason
	}
	p.malformed++
}

// bad records a malformed line.
func (p *Parser) bad(f ndjson.Frame, reason string) error {
	if strings.HasPrefix(reason, "ndjson: ") {
		p.poison(reason) // a LineError names its line
	} else {
		p.poison("line " + strconv.Itoa(f.Line) + ": " + reason)
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "malformed", Text: reason,
		Metadata: map[string]string{"line": strconv.Itoa(f.Line), "offset": strconv.FormatInt(f.Offset, 10)}}); err != nil {
		return err
	}
	return p.em.Custom(provider, "malformed", driver.StreamPayload{Raw: map[string]any{
		"error": reason, "line": f.Line, "offset": f.Offset}})
}

func (p *Parser) decodeErr(f ndjson.Frame, err error) error {
	return p.bad(f, err.Error())
}

// rawLine decodes the whole line for a custom payload's Raw.
func rawLine(f ndjson.Frame) map[string]any {
	var m map[string]any
	if f.Decode(&m) != nil {
		return nil
	}
	return m
}

// customLine keeps a line of a type without a canonical mapping: custom
// kind claude/<event> with the decoded line in Raw, and, when it has audit
// value, a system transcript item.
func (p *Parser) customLine(f ndjson.Frame, event string, item bool) error {
	raw := rawLine(f)
	if raw == nil {
		return p.bad(f, "undecodable "+quote(event)+" line")
	}
	p.custom++
	if item {
		if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: event,
			Text: "unknown message type " + quote(event), Data: raw}); err != nil {
			return err
		}
	}
	return p.em.Custom(provider, event, driver.StreamPayload{Raw: raw})
}

// scoped returns the transcript coordinates of a line in scope (its
// parent_tool_use_id): the scope itself, the scope of the parent tool call
// and the parent tool call.
func (p *Parser) scoped(it driver.TranscriptItem, scope string) driver.TranscriptItem {
	if scope != "" {
		it.ScopeID = scope
		it.ParentToolCallID = scope
		it.ParentScopeID = p.toolScope[scope]
	}
	return it
}

func (p *Parser) parents(scope string) (string, string) {
	if scope == "" {
		return "", ""
	}
	return p.toolScope[scope], scope
}

// ---- system ----

func (p *Parser) system(f ndjson.Frame) error {
	var l systemLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	sid, _ := f.Peek("session_id")
	if l.Subtype == "init" {
		if l.Model != "" {
			p.model = l.Model
		}
		if l.ClaudeCodeVersion != "" {
			p.version = l.ClaudeCodeVersion
		}
		if err := p.em.Start("", p.sid, ""); err != nil {
			return err
		}
		meta := map[string]string{}
		for k, v := range map[string]string{"cwd": l.CWD, "claude_code_version": l.ClaudeCodeVersion,
			"permission_mode": l.PermissionMode, "api_key_source": l.APIKeySource, "output_style": l.OutputStyle} {
			if v != "" {
				meta[k] = v
			}
		}
		return p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptInit, Model: l.Model,
			SessionID: string(sid), Metadata: meta}, l.ParentToolUseID))
	}
	raw := rawLine(f)
	text, audit := systemText(&l)
	if audit {
		if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: l.Subtype,
			Text: text, ToolUseID: l.ToolUseID, Data: raw}, l.ParentToolUseID)); err != nil {
			return err
		}
	}
	// A task (a Bash command, a subagent, a background job) is a step
	// named "task <id>": task_started opens it, task_notification (its
	// completed, failed or stopped status) closes it.
	if l.TaskID != "" {
		var err error
		switch l.Subtype {
		case "task_started":
			err = p.em.StepStarted("task " + l.TaskID)
		case "task_notification":
			err = p.em.StepFinished("task " + l.TaskID)
		}
		if err != nil {
			return err
		}
	}
	sub := l.Subtype
	if sub == "" {
		sub = "unknown"
	}
	return p.em.Custom(provider, "system."+sub, driver.StreamPayload{ScopeID: l.ParentToolUseID, Raw: raw})
}

// systemText renders a system line for its transcript item and says
// whether it has audit value: status and thinking_tokens are progress
// ticks (one per request, one per thinking delta) kept on the stream only.
func systemText(l *systemLine) (string, bool) {
	switch l.Subtype {
	case "status", "thinking_tokens":
		return "", false
	case "api_retry":
		s := "API retry " + strconv.Itoa(l.Attempt) + "/" + strconv.Itoa(l.MaxRetries)
		if st := bytes.TrimSpace(l.ErrorStatus); len(st) > 0 && string(st) != "null" {
			s += " after HTTP " + string(st)
		}
		if e := jsonString(l.Error); e != "" {
			s += " (" + e + ")"
		}
		return s + ", waiting " + strconv.FormatFloat(l.RetryDelayMS, 'f', -1, 64) + " ms", true
	}
	s := "system " + l.Subtype
	if l.Subtype == "" {
		s = "system message without subtype"
	}
	for _, v := range []string{l.TaskID, l.Status, l.Description, l.Summary} {
		if v != "" {
			s += ": " + v
		}
	}
	return s, true
}

// jsonString returns raw as a string when it is a JSON string.
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func (p *Parser) rateLimit(f ndjson.Frame) error {
	var l rateLimitLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	raw := rawLine(f)
	text := "rate limit " + l.Info.Status
	if l.Info.RateLimitType != "" {
		text += " (" + l.Info.RateLimitType + ")"
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "rate_limit_event", Text: text, Data: raw}); err != nil {
		return err
	}
	return p.em.Custom(provider, "rate_limit_event", driver.StreamPayload{Raw: raw})
}

func (p *Parser) conversationReset(f ndjson.Frame) error {
	var l struct {
		NewConversationID string `json:"new_conversation_id"`
	}
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	// After /clear the CLI continues under a new session id; it is the id
	// later lines must announce.
	if l.NewConversationID != "" {
		p.sid = l.NewConversationID
	}
	return p.customLine(f, "conversation_reset", true)
}

// ---- assistant ----

// isTool reports whether a block type is a tool call.
func isTool(typ string) bool {
	return typ == "tool_use" || typ == "server_tool_use" || typ == "mcp_tool_use"
}

// isResult reports whether a block type is a tool result (tool_result
// and the server tools' *_tool_result blocks).
func isResult(typ string) bool {
	return typ == "tool_result" || strings.HasSuffix(typ, "_tool_result")
}

func (p *Parser) assistant(f ndjson.Frame) error {
	var l assistantLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	scope := l.ParentToolUseID
	m := &l.Message
	if e := jsonString(l.Error); e != "" || l.IsAPIErrorMessage {
		return p.apiErrorMessage(&l, m.Content, e)
	}
	id := m.ID
	if id == "" {
		p.anon++
		id = "message-" + strconv.Itoa(p.anon)
	}
	if scope == "" {
		if p.model == "" && m.Model != "" {
			p.model = m.Model
		}
		if m.Usage != nil {
			p.noteUsage(id, *m.Usage, false)
		}
	}
	k := msgKey{scope, id}
	sm := p.msgs[k]
	if sm == nil {
		// A message that was not streamed: its snapshot lines drive the
		// stream (coarse lifecycles), and any stream events that arrive
		// for it later are ignored rather than emitted twice.
		sm = p.newMessage(k, true)
	}
	for _, raw := range m.Content {
		var b contentBlock
		if err := jsonguard.Unmarshal(raw, &b, 0); err != nil {
			if err := p.bad(f, "content block: "+err.Error()); err != nil {
				return err
			}
			continue
		}
		if err := p.snapshotBlock(scope, sm, m.Model, &b, raw); err != nil {
			return err
		}
	}
	return nil
}

// snapshotBlock handles one block of a complete assistant message. It
// always yields the transcript item (the snapshot is authoritative); it
// drives the stream only for blocks that were not streamed by
// stream_event lines.
func (p *Parser) snapshotBlock(scope string, m *message, model string, b *contentBlock, raw json.RawMessage) error {
	ord := p.snapOrd[m.key]
	p.snapOrd[m.key] = ord + 1
	var sb *block
	if !m.coarse {
		sb = m.match(b.Type)
	}
	if sb != nil {
		sb.confirmed = true
	}
	id := m.key.id
	wid := id + ":" + strconv.Itoa(ord)
	meta := map[string]string{"message_id": id}
	switch {
	case b.Type == "text":
		if b.Text == "" {
			return nil
		}
		it := driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: b.Text, Model: model, Metadata: meta}
		if c := decodeAny(b.Citations); c != nil {
			it.Data = map[string]any{"citations": c}
		}
		if err := p.em.Item(p.scoped(it, scope)); err != nil {
			return err
		}
		if sb == nil {
			if err := p.em.Delta(emit.Text, scope, wid, b.Text); err != nil {
				return err
			}
			return p.em.Close(emit.Text, scope, wid, nil)
		}
	case b.Type == "thinking":
		if b.Signature != "" {
			meta["signature"] = b.Signature
		}
		if b.Thinking != "" {
			if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptThinking, Text: b.Thinking, Model: model, Metadata: meta}, scope)); err != nil {
				return err
			}
		}
		if sb == nil {
			if err := p.em.Delta(emit.Reasoning, scope, wid, b.Thinking); err != nil {
				return err
			}
			return p.em.Close(emit.Reasoning, scope, wid, nil)
		}
	case b.Type == "redacted_thinking":
		if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "redacted_thinking",
			Text: "redacted thinking block", Metadata: meta, Data: map[string]any{"data": b.Data}}, scope)); err != nil {
			return err
		}
		if sb == nil {
			return p.em.Custom(provider, "block.redacted_thinking", driver.StreamPayload{ScopeID: scope, MessageID: id, Raw: map[string]any{"data": b.Data}})
		}
	case isTool(b.Type):
		tid := b.ID
		if tid == "" {
			tid = wid
		}
		name := b.Name
		if name == "" {
			name = "unknown"
		}
		if _, ok := p.toolScope[tid]; !ok {
			p.toolScope[tid] = scope
		}
		input := decodeAny(b.Input)
		if b.Type != "tool_use" {
			meta["block_type"] = b.Type
		}
		if b.ServerName != "" {
			meta["server_name"] = b.ServerName
		}
		if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolName: name, ToolUseID: b.ID,
			Input: input, Metadata: meta}, scope)); err != nil {
			return err
		}
		if sb == nil || !sb.opened {
			args, _ := input.(map[string]any)
			if args == nil {
				args = map[string]any{}
			}
			ps, pt := p.parents(scope)
			if _, err := p.em.OpenTool(scope, tid, name, args, ps, pt); err != nil {
				return err
			}
			if sb != nil {
				sb.opened = true
				if !sb.stopped {
					return nil // content_block_stop closes it
				}
			}
			return p.em.Close(emit.Tool, scope, tid, nil)
		}
	case isResult(b.Type) && b.ToolUseID != "":
		text, res := toolResult(b)
		if b.Type != "tool_result" {
			meta["block_type"] = b.Type
		}
		if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: b.ToolUseID,
			Text: text, IsError: b.IsError, Metadata: meta}, scope)); err != nil {
			return err
		}
		if sb == nil {
			return p.toolResultPayload(scope, b.ToolUseID, res)
		}
	default:
		return p.unknownBlock(scope, id, b.Type, raw)
	}
	return nil
}

// unknownBlock keeps a content block of a type this parser does not map.
func (p *Parser) unknownBlock(scope, msgID, typ string, raw json.RawMessage) error {
	v, _ := decodeAny(raw).(map[string]any)
	p.custom++
	if typ == "" {
		typ = "unknown"
	}
	if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "block." + typ,
		Text: "content block " + quote(typ), Metadata: map[string]string{"message_id": msgID}, Data: v}, scope)); err != nil {
		return err
	}
	return p.em.Custom(provider, "block."+typ, driver.StreamPayload{ScopeID: scope, MessageID: msgID, Raw: v})
}

// apiErrorMessage handles the synthetic assistant message the CLI writes
// for a failed API call (error set, model "<synthetic>", text "API Error:
// ..."): a failure item, never assistant text.
func (p *Parser) apiErrorMessage(l *assistantLine, content []json.RawMessage, code string) error {
	var text []string
	for _, raw := range content {
		var b contentBlock
		if jsonguard.Unmarshal(raw, &b, 0) == nil && b.Type == "text" && b.Text != "" {
			text = append(text, b.Text)
		}
	}
	msg := strings.Join(text, "\n")
	if msg == "" {
		msg = "API error " + code
	}
	meta := map[string]string{}
	if code != "" {
		meta["code"] = code
	}
	if st := bytes.TrimSpace(l.APIErrorStatus); len(st) > 0 && string(st) != "null" {
		meta["api_error_status"] = string(st)
	}
	if l.APIErrorType != "" {
		meta["api_error_type"] = l.APIErrorType
	}
	if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: msg, Metadata: meta}, l.ParentToolUseID)); err != nil {
		return err
	}
	raw := map[string]any{"error": code, "text": msg}
	for k, v := range meta {
		raw[k] = v
	}
	return p.em.Custom(provider, "api_error", driver.StreamPayload{ScopeID: l.ParentToolUseID, Raw: raw})
}

// toolResult flattens a tool_result's content (a string, or blocks whose
// text parts are joined by newlines) and builds the stream Result.
func toolResult(b *contentBlock) (string, map[string]any) {
	var text string
	res := map[string]any{"is_error": b.IsError}
	c := bytes.TrimSpace(b.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
	case c[0] == '"':
		text = jsonString(c)
	case c[0] == '[':
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &blocks) == nil {
			var parts []string
			other := 0
			for _, x := range blocks {
				if x.Type == "text" {
					parts = append(parts, x.Text)
				} else {
					other++
				}
			}
			text = strings.Join(parts, "\n")
			if other > 0 || b.Type != "tool_result" {
				res["blocks"] = decodeAny(c)
			}
		} else {
			res["content_raw"] = decodeAny(c)
		}
	default:
		res["content_raw"] = decodeAny(c)
	}
	res["content"] = text
	return text, res
}

func (p *Parser) toolResultPayload(scope, toolID string, res map[string]any) error {
	if s, ok := p.toolScope[toolID]; ok {
		scope = s
	}
	_, err := p.em.ToolResult(scope, toolID, res)
	return err
}

// ---- user ----

func (p *Parser) user(f ndjson.Frame) error {
	var l userLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	scope := l.ParentToolUseID
	var meta map[string]string
	if l.IsSynthetic || l.IsReplay {
		meta = map[string]string{}
		if l.IsSynthetic {
			meta["synthetic"] = "true"
		}
		if l.IsReplay {
			meta["replay"] = "true"
		}
	}
	c := bytes.TrimSpace(l.Message.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
		return nil
	case c[0] == '"':
		if s := jsonString(c); s != "" {
			return p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptUser, Text: s, Metadata: meta}, scope))
		}
		return nil
	case c[0] != '[':
		return p.bad(f, "user message content is neither a string nor an array")
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(c, &blocks); err != nil {
		return p.bad(f, "user message content: "+err.Error())
	}
	for _, raw := range blocks {
		var b contentBlock
		if err := jsonguard.Unmarshal(raw, &b, 0); err != nil {
			if err := p.bad(f, "user content block: "+err.Error()); err != nil {
				return err
			}
			continue
		}
		var err error
		switch {
		case b.Type == "text":
			if b.Text != "" {
				err = p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptUser, Text: b.Text, Metadata: meta}, scope))
			}
		case isResult(b.Type) && b.ToolUseID != "":
			text, res := toolResult(&b)
			err = p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: b.ToolUseID,
				Text: text, IsError: b.IsError}, scope))
			if err == nil {
				err = p.toolResultPayload(scope, b.ToolUseID, res)
			}
		default:
			err = p.unknownBlock(scope, "", b.Type, raw)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ---- result ----

func (p *Parser) resultLine(f ndjson.Frame) error {
	var l resultLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	item := resultItem(&l)
	if l.ParentToolUseID != "" {
		// Only the root result ends the run.
		if err := p.em.Item(p.scoped(item, l.ParentToolUseID)); err != nil {
			return err
		}
		return p.em.Custom(provider, "result", driver.StreamPayload{ScopeID: l.ParentToolUseID, Raw: rawLine(f)})
	}
	p.result = &l
	p.terminal = bytes.Clone(f.Data)
	p.success = l.Subtype == "success" && l.IsError != nil && !*l.IsError
	p.state = stateResult
	if l.Usage == nil {
		item.Usage = p.fallbackUsage()
	}
	return p.em.Item(item)
}

func resultItem(l *resultLine) driver.TranscriptItem {
	it := driver.TranscriptItem{Kind: driver.TranscriptResult, SessionID: l.SessionID, Subtype: l.Subtype,
		IsError: !(l.Subtype == "success" && l.IsError != nil && !*l.IsError), CostUSD: l.TotalCostUSD}
	if l.Result != nil {
		it.Text = *l.Result
	}
	if l.Usage != nil {
		it.Usage = normUsage(*l.Usage)
	}
	it.Errors = stringList(l.Errors)
	meta := map[string]string{}
	if l.TerminalReason != "" {
		meta["terminal_reason"] = l.TerminalReason
	}
	if l.StopReason != "" {
		meta["stop_reason"] = l.StopReason
	}
	if st := bytes.TrimSpace(l.APIErrorStatus); len(st) > 0 && string(st) != "null" {
		meta["api_error_status"] = string(st)
	}
	if l.IsError != nil {
		meta["is_error"] = strconv.FormatBool(*l.IsError)
	}
	meta["num_turns"] = strconv.Itoa(l.NumTurns)
	meta["duration_ms"] = strconv.FormatInt(l.DurationMS, 10)
	meta["duration_api_ms"] = strconv.FormatInt(l.DurationAPIMS, 10)
	it.Metadata = meta
	data := map[string]any{}
	var mu map[string]ModelUsage
	if len(l.ModelUsage) > 0 && json.Unmarshal(l.ModelUsage, &mu) == nil && len(mu) > 0 {
		data["model_usage"] = mu
	}
	var den []PermissionDenial
	if len(l.Denials) > 0 && json.Unmarshal(l.Denials, &den) == nil && len(den) > 0 {
		data["permission_denials"] = den
	}
	if s := bytes.TrimSpace(l.Structured); len(s) > 0 && string(s) != "null" {
		data["structured_output"] = json.RawMessage(s)
	}
	if len(data) > 0 {
		it.Data = data
	}
	return it
}

// stringList decodes result.errors: strings are kept, any other element is
// kept as its JSON text.
func stringList(raw json.RawMessage) []string {
	var elems []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &elems) != nil {
		return nil
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		if s := jsonString(e); s != "" || (len(e) > 0 && e[0] == '"') {
			out = append(out, s)
		} else {
			out = append(out, string(e))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// normUsage maps Anthropic usage to driver.Usage: InputTokens is the
// whole prompt (input_tokens + cache_creation_input_tokens +
// cache_read_input_tokens, the Anthropic fields being disjoint), of which
// CachedInputTokens were cache reads.
func normUsage(u apiUsage) *driver.Usage {
	return &driver.Usage{
		InputTokens:       u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens:      u.OutputTokens,
		CachedInputTokens: u.CacheReadInputTokens,
	}
}

// noteUsage records the usage of a root message. Repeated reports of one
// message id replace each other (assistant lines repeat the snapshot;
// message_delta carries cumulative output_tokens); delta merges only the
// fields it carries.
func (p *Parser) noteUsage(id string, u apiUsage, delta bool) {
	old, seen := p.msgUsage[id]
	if !seen {
		p.usageKeys = append(p.usageKeys, id)
	}
	if delta && seen {
		if u.InputTokens == 0 {
			u.InputTokens = old.InputTokens
		}
		if u.CacheCreationInputTokens == 0 {
			u.CacheCreationInputTokens = old.CacheCreationInputTokens
		}
		if u.CacheReadInputTokens == 0 {
			u.CacheReadInputTokens = old.CacheReadInputTokens
		}
	}
	p.msgUsage[id] = u
}

// fallbackUsage sums the last usage of every distinct root message; nil
// when none was reported.
func (p *Parser) fallbackUsage() *driver.Usage {
	if len(p.usageKeys) == 0 {
		return nil
	}
	var sum apiUsage
	for _, k := range p.usageKeys {
		u := p.msgUsage[k]
		sum.InputTokens += u.InputTokens
		sum.CacheCreationInputTokens += u.CacheCreationInputTokens
		sum.CacheReadInputTokens += u.CacheReadInputTokens
		sum.OutputTokens += u.OutputTokens
	}
	return normUsage(sum)
}

// ---- finish ----

// Response.Metadata keys.
const (
	MetaTransport  = "transport"           // always "claude-stream-json"
	MetaState      = "protocol_state"      // idle, running or result at Finish
	MetaVersion    = "claude_code_version" // from system/init
	MetaMalformed  = "malformed"           // number of malformed lines and framing errors, when any
	MetaProblem    = "first_problem"       // the first malformed line's reason, when any
	MetaUnknown    = "unknown"             // number of custom payloads for unmapped types, when any
	MetaCheckpoint = "checkpoint"          // why the checkpoint is not valid, when it is not
)

// whyInvalid names the first contract condition an invalid checkpoint
// missed.
func (p *Parser) whyInvalid(out Outcome, failure *driver.RunFailure, st *driver.SessionState) string {
	switch {
	case !out.Clean():
		return "unclean process outcome"
	case failure != nil:
		return "run failed"
	case p.malformed > 0:
		return "malformed protocol"
	case p.sidChanged:
		return "session id changed mid-stream"
	case p.result == nil:
		return "no result"
	case !p.success:
		return "result is not a success"
	case p.result.SessionID == "":
		return "result without session_id"
	case p.result.SessionID != p.sid:
		return "result session_id differs from the announced one"
	case !roundTrips(st):
		return "codec does not round-trip the state"
	}
	return "invalid"
}

// Finish ends the run: it records the partial blocks no snapshot
// confirmed, closes every open lifecycle, emits the one terminal payload
// (run.finished with the usage, or run.error with the failure) and returns
// the Response. RawStreams carries only the Terminal (the exact bytes of
// the last root result line); the caller that holds the raw bytes fills
// Stdout and Stderr (Parse does). The error is non-nil only for an
// infrastructure problem: out.Err or a sink error; the checkpoint is then
// never valid.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.state == stateFinished {
		return driver.Response{}, ErrFinished
	}
	for _, m := range p.msgOrder {
		if !m.abandoned {
			if err := p.abandon(m); err != nil {
				break
			}
		}
	}
	resp := driver.Response{ExitCode: out.ExitCode, Signal: out.Signal, TimedOut: out.TimedOut, Provider: Provider, Model: p.model}
	if r := p.result; r != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: &driver.TerminalPayload{Event: "result", JSON: p.terminal}}
		if r.Usage != nil {
			resp.Usage = normUsage(*r.Usage)
		}
		if p.success && r.Result != nil {
			resp.Output = *r.Result
		}
		if s := bytes.TrimSpace(r.Structured); p.success && len(s) > 0 && string(s) != "null" {
			resp.StructuredOutput = &driver.StructuredOutput{Format: "json", Source: driver.StructuredOutputNative,
				RawJSON: json.RawMessage(s), Value: decodeAny(s), Valid: true}
		}
	}
	if resp.Usage == nil {
		resp.Usage = p.fallbackUsage()
	}
	resp.Failure = p.failure(out)
	resp.Checkpoint = p.checkpoint(out, resp.Failure)
	meta := map[string]string{MetaTransport: "claude-stream-json", MetaState: p.state.String()}
	if p.version != "" {
		meta[MetaVersion] = p.version
	}
	if p.malformed > 0 {
		meta[MetaMalformed] = strconv.Itoa(p.malformed)
		meta[MetaProblem] = p.problem
	}
	if p.custom > 0 {
		meta[MetaUnknown] = strconv.Itoa(p.custom)
	}
	if cp := resp.Checkpoint; cp != nil && !cp.Valid {
		meta[MetaCheckpoint] = p.whyInvalid(out, resp.Failure, cp.State)
	}
	resp.Metadata = meta
	ferr := p.em.Finish(resp.Usage, resp.Failure)
	p.state = stateFinished
	resp.Transcript = slices.Clone(p.em.Transcript())
	var err error
	switch {
	case out.Err != nil:
		err = fmt.Errorf("claude: %w", out.Err)
	case ferr != nil:
		err = ferr
	}
	if err != nil && resp.Checkpoint != nil {
		resp.Checkpoint.Valid = false
	}
	return resp, err
}

func aborted(reason string) bool { return strings.HasPrefix(reason, "aborted") }

// failure decides the run's business failure. The provider's own verdict
// comes from the root result: success is subtype "success" AND is_error
// present and false (an API failure arrives as subtype "success" with
// is_error true; an interrupted turn as error_during_execution with
// terminal_reason aborted_*).
func (p *Parser) failure(out Outcome) *driver.RunFailure {
	r := p.result
	var meta map[string]any
	if r != nil {
		meta = map[string]any{"subtype": r.Subtype}
		if r.TerminalReason != "" {
			meta["terminal_reason"] = r.TerminalReason
		}
		if st := bytes.TrimSpace(r.APIErrorStatus); len(st) > 0 && string(st) != "null" {
			meta["api_error_status"] = string(st)
		}
	}
	fail := func(code driver.FailureCode, msg string) *driver.RunFailure {
		return &driver.RunFailure{Code: code, Message: msg, Metadata: meta}
	}
	switch {
	case out.Err != nil:
		return fail(driver.FailureAgentError, "claude: run failed: "+out.Err.Error())
	case out.Cancelled:
		msg := "claude: run cancelled"
		if r != nil && !p.success {
			msg += ": " + resultMessage(r)
		}
		return fail(driver.FailureCancelled, msg)
	case out.TimedOut:
		return fail(driver.FailureTimeout, "claude: run timed out")
	case r != nil && !p.success:
		if aborted(r.TerminalReason) {
			return fail(driver.FailureCancelled, resultMessage(r))
		}
		return fail(driver.FailureAgentError, resultMessage(r))
	case out.Signal != "":
		return fail(driver.FailureAgentError, "claude: terminated by signal "+out.Signal)
	case out.ExitCode != 0:
		msg := "claude: exited with code " + strconv.Itoa(out.ExitCode)
		if r == nil {
			msg += " without a result"
		}
		return fail(driver.FailureAgentError, msg)
	case r == nil:
		return fail(driver.FailureAgentError, "claude: the stream ended without a result")
	}
	return nil
}

func resultMessage(r *resultLine) string {
	if r.Result != nil && strings.TrimSpace(*r.Result) != "" {
		return *r.Result
	}
	if errs := stringList(r.Errors); len(errs) > 0 {
		return strings.Join(errs, "; ")
	}
	s := "claude: result " + r.Subtype
	if r.TerminalReason != "" {
		s += " (" + r.TerminalReason + ")"
	}
	return s
}

// checkpoint builds the resume checkpoint. It is Valid only when every
// condition of the contract holds: a clean outcome and no failure, no
// malformed line or framing error, a root success result, whose top-level
// session_id is non-empty and equal to the id every other line announced,
// and a state the Codec round-trips and guards. It is nil when no session
// id was seen at all.
func (p *Parser) checkpoint(out Outcome, failure *driver.RunFailure) *driver.Checkpoint {
	rid := ""
	if p.result != nil {
		rid = p.result.SessionID
	}
	id := rid
	if id == "" {
		id = p.sid
	}
	if id == "" {
		return nil
	}
	st := &driver.SessionState{ResumeID: id}
	if len(p.opts.SessionData) > 0 {
		st.Data = make(map[string]string, len(p.opts.SessionData))
		for k, v := range p.opts.SessionData {
			st.Data[k] = v
		}
	}
	valid := out.Clean() && failure == nil && p.malformed == 0 && !p.sidChanged &&
		p.result != nil && p.success && rid != "" && rid == p.sid && roundTrips(st)
	return &driver.Checkpoint{State: st, Valid: valid}
}

// Parse runs framing and the parser over a finished capture: it reads
// stdout to EOF through an ndjson.Reader that tees every byte, feeds every
// frame (framing errors through FeedError), then reads stderr, calls
// Finish and fills RawStreams.Stdout and Stderr with the exact bytes. A
// read error is an infrastructure error (joined to out.Err). No
// goroutines: stdout is read before stderr, so a live process must not be
// given to it (a full stderr pipe would block the writer).
func Parse(stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	var raw bytes.Buffer
	r := ndjson.NewReader(stdout, ndjson.Options{Tee: &raw})
	p := New(sink, opts)
	feeding := true
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var le *ndjson.LineError
			if !errors.As(err, &le) {
				out.Err = errors.Join(out.Err, err)
				break
			}
			if feeding && p.FeedError(err) != nil {
				feeding = false
			}
			continue
		}
		if feeding && p.Feed(f) != nil {
			feeding = false // the sink failed: keep reading for the raw bytes
		}
	}
	var errb []byte
	if stderr != nil {
		var err error
		if errb, err = io.ReadAll(stderr); err != nil {
			out.Err = errors.Join(out.Err, err)
		}
	}
	resp, err := p.Finish(out)
	if resp.RawStreams == nil {
		resp.RawStreams = &driver.RawStreams{}
	}
	resp.RawStreams.Stdout = raw.String()
	resp.RawStreams.Stderr = string(errb)
	return resp, err
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strconv.Quote(s)
}
