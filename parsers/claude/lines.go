package claude

import (
	"bytes"
	"maps"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/ndjson"
)

func (p *Parser) system(f ndjson.Frame) error {
	var l systemLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	sid, _ := f.Peek("session_id")
	return p.systemDecoded(f, &l, sid, false)
}

// systemDecoded handles a decoded system line; sid is its session id, and
// checked says the line was validated with its decode (fastSystem), so
// that its Raw need not be validated again.
func (p *Parser) systemDecoded(f ndjson.Frame, l *systemLine, sid []byte, checked bool) error {
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
	text, audit := systemText(l)
	var raw map[string]any
	if audit || p.opts.Streaming {
		// The item's Data and the payload's Raw: the line whole.
		raw = p.raw(f, checked)
	}
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
		if e := l.Error.v; e != "" {
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

func (p *Parser) rateLimit(f ndjson.Frame) error {
	var l rateLimitLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	raw := p.rawLine(f)
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
	return p.assistantDecoded(f, &l)
}

// assistantDecoded handles a decoded assistant line.
func (p *Parser) assistantDecoded(f ndjson.Frame, l *assistantLine) error {
	scope := l.ParentToolUseID
	m := &l.Message
	if e := l.Error.v; e != "" || l.IsAPIErrorMessage {
		return p.apiErrorMessage(l, m.Content, e)
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
	for i := range m.Content {
		lb := &m.Content[i]
		if lb.err != nil {
			if err := p.bad(f, "content block: "+lb.err.Error()); err != nil {
				return err
			}
			continue
		}
		b := &lb.contentBlock
		if p.opts.Unpaired != nil && b.Type == "tool_use" && b.ID != "" {
			p.pairRec(pairRec{kind: pairToolUse, scope: scope, id: b.ID, off: f.Offset, line: f.Line})
		}
		if err := p.snapshotBlock(scope, sm, m.Model, b, lb.raw); err != nil {
			return err
		}
	}
	return nil
}

// snapshotBlock handles one block of a complete assistant message. It
// always yields the transcript item (the snapshot is authoritative); it
// drives the stream only for blocks that were not streamed by
// stream_event lines.
func (p *Parser) snapshotBlock(scope string, m *message, model string, b *contentBlock, raw []byte) error {
	ord := m.snapshots
	m.snapshots++
	var sb *block
	if !m.coarse {
		sb = m.match(b.Type, b.ID)
	}
	if sb != nil {
		sb.confirmed = true
	}
	id := m.key.id
	// wid is the stream id of a block that has none of its own (a tool
	// call's is its id): built only for such a block.
	wid := func() string { return id + ":" + strconv.Itoa(ord) }
	meta := p.messageMeta(id)
	switch {
	case b.Type == "text":
		if b.Text == "" {
			return nil
		}
		it := driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: b.Text, Model: model, Metadata: meta}
		if c := b.Citations.V; c != nil {
			it.Data = map[string]any{"citations": c}
		}
		if err := p.em.Item(p.scoped(it, scope)); err != nil {
			return err
		}
		if sb == nil {
			w := wid()
			if err := p.em.Delta(emit.Text, scope, w, b.Text); err != nil {
				return err
			}
			return p.em.Close(emit.Text, scope, w, nil)
		}
	case b.Type == "thinking":
		if b.Signature != "" {
			meta = withMeta(meta, "signature", b.Signature)
		}
		if b.Thinking != "" {
			if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptThinking, Text: b.Thinking, Model: model, Metadata: meta}, scope)); err != nil {
				return err
			}
		}
		if sb == nil {
			w := wid()
			if err := p.em.Delta(emit.Reasoning, scope, w, b.Thinking); err != nil {
				return err
			}
			return p.em.Close(emit.Reasoning, scope, w, nil)
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
			tid = wid()
		}
		name := b.Name
		if name == "" {
			name = "unknown"
		}
		if _, ok := p.toolScope[tid]; !ok {
			p.toolScope[tid] = scope
		}
		input := b.Input.V
		if b.Type != "tool_use" {
			meta = withMeta(meta, "block_type", b.Type)
		}
		if b.ServerName != "" {
			meta = withMeta(meta, "server_name", b.ServerName)
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
			meta = withMeta(meta, "block_type", b.Type)
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

// messageMeta is the Metadata of a snapshot block's item,
// {"message_id": id}: the map of the last message asked for again, so the
// items of a message's lines share one (items are read-only, as every
// value handed to the sink). withMeta gives an item with more members its
// own.
func (p *Parser) messageMeta(id string) map[string]string {
	if p.meta == nil || p.metaID != id {
		p.meta, p.metaID = map[string]string{"message_id": id}, id
	}
	return p.meta
}

// withMeta returns a copy of meta with k set to v.
func withMeta(meta map[string]string, k, v string) map[string]string {
	m := make(map[string]string, len(meta)+1)
	maps.Copy(m, meta)
	m[k] = v
	return m
}

// unknownBlock keeps a content block of a type this parser does not map:
// raw, the block's bytes, is decoded whole for its Data and Raw (its typed
// decode found only its type).
func (p *Parser) unknownBlock(scope, msgID, typ string, raw []byte) error {
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
func (p *Parser) apiErrorMessage(l *assistantLine, content []lineBlock, code string) error {
	var text []string
	for _, b := range content {
		if b.err == nil && b.Type == "text" && b.Text != "" {
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
	c := &b.Content
	res := map[string]any{"is_error": b.IsError, "content": c.text}
	switch c.kind {
	case contentBlocks:
		if c.other > 0 || b.Type != "tool_result" {
			res["blocks"] = c.value
		}
	case contentRaw:
		res["content_raw"] = c.value
	}
	return c.text, res
}

func (p *Parser) toolResultPayload(scope, toolID string, res map[string]any) error {
	if s, ok := p.toolScope[toolID]; ok {
		scope = s
		if p.opts.Bounded {
			delete(p.toolScope, toolID) // the call is over
		}
	}
	_, err := p.em.ToolResult(scope, toolID, res)
	return err
}

func (p *Parser) user(f ndjson.Frame) error {
	var l userLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	return p.userDecoded(f, &l)
}

// userDecoded handles a decoded user line.
func (p *Parser) userDecoded(f ndjson.Frame, l *userLine) error {
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
	c := &l.Message.Content
	switch c.kind {
	case contentNone:
		return nil
	case contentString:
		if c.text != "" {
			return p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptUser, Text: c.text, Metadata: meta}, scope))
		}
		return nil
	case contentRaw:
		return p.bad(f, "user message content is neither a string nor an array")
	}
	for i := range c.blocks {
		lb := &c.blocks[i]
		if lb.err != nil {
			if err := p.bad(f, "user content block: "+lb.err.Error()); err != nil {
				return err
			}
			continue
		}
		b := &lb.contentBlock
		raw := lb.raw
		if p.opts.Unpaired != nil && b.Type == "tool_result" && b.ToolUseID != "" {
			p.pairResult(b.ToolUseID)
		}
		var err error
		switch {
		case b.Type == "text":
			if b.Text != "" {
				err = p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptUser, Text: b.Text, Metadata: meta}, scope))
			}
		case isResult(b.Type) && b.ToolUseID != "":
			text, res := toolResult(b)
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
