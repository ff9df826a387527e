package claude

import (
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/ndjson"
)

// msgKey identifies a model message: its scope (the parent_tool_use_id of
// its lines, "" for the root conversation) and its Anthropic message id.
type msgKey struct{ scope, id string }

// message is the partial-message state of one model message.
type message struct {
	key msgKey
	// coarse: the message's snapshot lines came before any stream event
	// for it, so they drove the stream; later stream events for it are
	// ignored instead of being emitted twice.
	coarse bool
	// abandoned: the blocks no snapshot confirmed were recorded.
	abandoned bool
	// snapshots counts the message's snapshot blocks seen so far.
	snapshots int
	// blocks are the streamed blocks by index; nil until the first (a
	// message that is not streamed has none).
	blocks map[int]*block
	// order lists the streamed blocks in stream order, those stopped and
	// confirmed pruned away (nothing refers to them any more): a message id
	// that comes again (a hostile or spliced stream) must not make every
	// message_stop and snapshot walk all its earlier blocks. Every block
	// before order[open] is stopped.
	order   []*block
	open    int
	pruneAt int
}

// start records b as the streamed block at its index (add).
func (m *message) start(b *block) {
	if m.blocks == nil {
		m.blocks = map[int]*block{}
	}
	m.blocks[b.index] = b
	m.add(b)
}

// add appends a streamed block, pruning when order has doubled since the
// last prune (amortized constant work per block).
func (m *message) add(b *block) {
	m.order = append(m.order, b)
	if len(m.order) > m.pruneAt {
		m.prune()
	}
}

// prune drops the blocks that are stopped and confirmed.
func (m *message) prune() {
	kept := m.order[:0]
	for _, b := range m.order {
		if !b.stopped || !b.confirmed {
			kept = append(kept, b)
		}
	}
	clear(m.order[len(kept):])
	m.order = kept
	m.open = 0
	for m.open < len(kept) && kept[m.open].stopped {
		m.open++
	}
	m.pruneAt = max(16, 2*len(kept))
}

// block is one streamed content block.
type block struct {
	index int
	typ   string
	// wid is the lifecycle id of a text or thinking block:
	// "<message id>:<index>"; toolID that of a tool call.
	wid, toolID, name string
	// text accumulates text or thinking deltas, args input_json_delta
	// fragments: what a block no snapshot confirms is recorded with.
	text, args strings.Builder
	// opened: the lifecycle was opened on the stream; stopped: its
	// content_block_stop was seen; confirmed: a snapshot block matched it.
	opened, stopped, confirmed bool
}

func (p *Parser) newMessage(k msgKey, coarse bool) *message {
	m := &message{key: k, coarse: coarse}
	p.msgs[k] = m
	p.msgOrder = append(p.msgOrder, m)
	if p.opts.Bounded && len(p.msgOrder) > 2*keptMessages {
		p.forgetMessages()
	}
	return m
}

// keptMessages is how many of the latest messages a bounded parser
// (Options.Bounded) keeps whatever their state; an older one is
// forgotten once it is over.
const keptMessages = 64

// forgetMessages forgets, bounded, the messages older than the latest
// keptMessages that are over: not the current message of their scope, and
// coarse or abandoned (nothing of them is left to record). A root
// message's usage is folded into usageFolded. A later line for a message
// forgotten starts a new message.
func (p *Parser) forgetMessages() {
	old := len(p.msgOrder) - keptMessages
	kept := p.msgOrder[:0]
	for i, m := range p.msgOrder {
		if p.msgs[m.key] != m {
			continue // replaced
		}
		if i >= old || p.cur[m.key.scope] == m || !m.coarse && !m.abandoned {
			kept = append(kept, m)
			continue
		}
		delete(p.msgs, m.key)
		if u, ok := p.msgUsage[m.key.id]; ok && m.key.scope == "" {
			p.usageFolded.add(u)
			p.folded = true
			delete(p.msgUsage, m.key.id)
		}
	}
	clear(p.msgOrder[len(kept):])
	p.msgOrder = kept
}

// match returns the first streamed block of type typ that no snapshot
// block confirmed yet: snapshot lines come one per block, in block order.
// A tool call matches only the streamed call with its id.
func (m *message) match(typ, toolID string) *block {
	for _, b := range m.order {
		if !b.confirmed && b.typ == typ && (!isTool(typ) || b.toolID == toolID) {
			return b
		}
	}
	return nil
}

func (p *Parser) currentMessage(scope string) *message {
	m := p.cur[scope]
	if m == nil {
		p.anon++
		m = p.newMessage(msgKey{scope, "message-" + strconv.Itoa(p.anon)}, false)
		p.cur[scope] = m
	}
	return m
}

// streamEvent handles a stream_event line: one Anthropic Messages SSE
// event of the model response being generated in its scope.
func (p *Parser) streamEvent(f ndjson.Frame) error {
	l := &p.sl
	*l = streamLine{}
	if err := f.Decode(l); err != nil {
		return p.decodeErr(f, err)
	}
	return p.streamDecoded(f, l)
}

// streamDecoded handles a decoded stream_event line.
func (p *Parser) streamDecoded(f ndjson.Frame, l *streamLine) error {
	if l.SessionID.n != 0 {
		if err := p.session(f, l.SessionID.bytes()); err != nil {
			return err
		}
	}
	scope := l.ParentToolUseID
	ev := &l.Event
	if p.opts.Unpaired != nil {
		p.pairStream(scope, ev, f)
	}
	switch ev.Type {
	case "message_start":
		id := ""
		if ev.Message != nil {
			id = ev.Message.ID
		}
		if id == "" {
			p.anon++
			id = "message-" + strconv.Itoa(p.anon)
		}
		if cur := p.cur[scope]; cur != nil && cur.key.id != id && !cur.abandoned {
			// A new response in this scope: whatever the previous one left
			// unconfirmed (a failed attempt the CLI retried) ends here.
			if err := p.abandon(cur); err != nil {
				return err
			}
		}
		k := msgKey{scope, id}
		m := p.msgs[k]
		if m == nil {
			m = p.newMessage(k, false)
		}
		p.cur[scope] = m
		if scope == "" && ev.Message != nil && ev.Message.Usage != nil {
			p.noteUsage(id, *ev.Message.Usage, false)
		}
		return p.em.Err()
	case "content_block_start":
		return p.blockStart(f, scope, ev)
	case "content_block_delta":
		return p.blockDelta(f, scope, ev)
	case "content_block_stop":
		m := p.cur[scope]
		if m == nil || m.coarse {
			return p.em.Err()
		}
		if b := m.blocks[ev.Index]; b != nil {
			return p.closeBlock(scope, b)
		}
		return p.em.Err()
	case "message_delta":
		if m := p.cur[scope]; m != nil && scope == "" && ev.Usage != nil {
			p.noteUsage(m.key.id, *ev.Usage, true)
		}
		return p.em.Err()
	case "message_stop":
		if m := p.cur[scope]; m != nil && !m.coarse {
			for _, b := range m.order[m.open:] {
				if err := p.closeBlock(scope, b); err != nil {
					return err
				}
			}
			m.open = len(m.order)
		}
		return p.em.Err()
	case "ping":
		return p.em.Err()
	case "error":
		text := "stream error"
		if e := ev.Error; e != nil {
			text += ": " + e.Type
			if e.Message != "" {
				text += ": " + e.Message
			}
		}
		raw := rawEvent(f)
		if err := p.em.Item(p.scoped(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "stream_event.error", Text: text, Data: raw}, scope)); err != nil {
			return err
		}
		return p.em.Custom(provider, "stream_event.error", driver.StreamPayload{ScopeID: scope, Raw: raw})
	}
	return p.customEvent(f, scope, "stream_event."+eventName(string(ev.Type)))
}

func eventName(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// rawEvent decodes the event object of a stream_event line for Raw.
func rawEvent(f ndjson.Frame) map[string]any {
	var l struct {
		Event map[string]any `json:"event"`
	}
	if f.Decode(&l) != nil {
		return nil
	}
	return l.Event
}

func (p *Parser) customEvent(f ndjson.Frame, scope, event string) error {
	p.custom++
	return p.em.Custom(provider, event, driver.StreamPayload{ScopeID: scope, Raw: rawEvent(f)})
}

func (p *Parser) blockStart(f ndjson.Frame, scope string, ev *sseEvent) error {
	m := p.currentMessage(scope)
	if m.coarse {
		return p.em.Err()
	}
	cb := ev.ContentBlock
	if cb == nil {
		return p.customEvent(f, scope, "stream_event.content_block_start")
	}
	if old := m.blocks[ev.Index]; old != nil {
		// The same index started again (a spliced or restarted response).
		if err := p.closeBlock(scope, old); err != nil {
			return err
		}
	}
	b := &block{index: ev.Index, typ: cb.Type}
	m.start(b)
	switch {
	case cb.Type == "text" || cb.Type == "thinking":
		fam := emit.Text
		initial := cb.Text
		if cb.Type == "thinking" {
			fam, initial = emit.Reasoning, cb.Thinking
		}
		b.wid = m.key.id + ":" + strconv.Itoa(ev.Index)
		b.opened = true
		if _, err := p.em.Open(fam, scope, b.wid); err != nil {
			return err
		}
		b.text.Grow(1024) // one allocation for the usual block, not ten
		b.text.WriteString(initial)
		return p.em.Delta(fam, scope, b.wid, initial)
	case isTool(cb.Type):
		b.toolID, b.name = cb.ID, cb.Name
		if b.toolID == "" {
			b.toolID = m.key.id + ":" + strconv.Itoa(ev.Index)
		}
		if b.name == "" {
			b.name = "unknown"
		}
		if _, ok := p.toolScope[b.toolID]; !ok {
			p.toolScope[b.toolID] = scope
		}
		if !p.cap.ToolCallArgs {
			// Without incremental arguments the call opens from its
			// snapshot, with the complete input.
			return p.em.Err()
		}
		var args map[string]any
		if in, ok := cb.Input.V.(map[string]any); ok && len(in) > 0 {
			args = in // already complete: no argument deltas will show
		}
		b.opened = true
		ps, pt := p.parents(scope)
		_, err := p.em.OpenTool(scope, b.toolID, b.name, args, ps, pt)
		return err
	case cb.Type == "redacted_thinking":
		return p.em.Custom(provider, "block.redacted_thinking", driver.StreamPayload{ScopeID: scope, MessageID: m.key.id,
			Raw: map[string]any{"data": cb.Data, "index": ev.Index}})
	case isResult(cb.Type) && cb.ToolUseID != "":
		_, res := toolResult(cb)
		return p.toolResultPayload(scope, cb.ToolUseID, res)
	}
	var l struct {
		Event struct {
			ContentBlock map[string]any `json:"content_block"`
		} `json:"event"`
	}
	_ = f.Decode(&l)
	p.custom++
	return p.em.Custom(provider, "block."+eventName(cb.Type), driver.StreamPayload{ScopeID: scope, MessageID: m.key.id, Raw: l.Event.ContentBlock})
}

func (p *Parser) blockDelta(f ndjson.Frame, scope string, ev *sseEvent) error {
	m := p.currentMessage(scope)
	if m.coarse {
		return p.em.Err()
	}
	d := &ev.Delta
	if d.Type == "" {
		return p.customEvent(f, scope, "stream_event.content_block_delta")
	}
	b := m.blocks[ev.Index]
	switch d.Type {
	case "text_delta", "thinking_delta":
		typ, fam, text := "text", emit.Text, d.Text
		if d.Type == "thinking_delta" {
			typ, fam, text = "thinking", emit.Reasoning, d.Thinking
		}
		if b == nil || b.typ != typ {
			// A delta without its content_block_start: the block starts here.
			b = &block{index: ev.Index, typ: typ, wid: m.key.id + ":" + strconv.Itoa(ev.Index), opened: true}
			m.start(b)
		}
		b.text.WriteString(text)
		return p.em.Delta(fam, scope, b.wid, text)
	case "signature_delta":
		// The signature is opaque; the thinking snapshot carries it whole.
		return p.em.Err()
	case "input_json_delta":
		if b == nil || !isTool(b.typ) {
			return p.customEvent(f, scope, "delta.input_json_delta")
		}
		b.args.WriteString(d.PartialJSON)
		return p.em.ToolArgs(scope, b.toolID, d.PartialJSON)
	}
	p.custom++
	var l struct {
		Event struct {
			Index int            `json:"index"`
			Delta map[string]any `json:"delta"`
		} `json:"event"`
	}
	_ = f.Decode(&l)
	raw := l.Event.Delta
	if raw != nil {
		raw["index"] = l.Event.Index
	}
	return p.em.Custom(provider, "delta."+eventName(string(d.Type)), driver.StreamPayload{ScopeID: scope, MessageID: m.key.id, Raw: raw})
}

// closeBlock ends a block's lifecycle (no-op when it is closed).
func (p *Parser) closeBlock(scope string, b *block) error {
	if b.stopped {
		// Closed once: a later block may have the same lifecycle id (the
		// message id came again) and must stay open.
		return p.em.Err()
	}
	b.stopped = true
	if !b.opened {
		return p.em.Err()
	}
	switch {
	case b.typ == "text":
		return p.em.Close(emit.Text, scope, b.wid, nil)
	case b.typ == "thinking":
		return p.em.Close(emit.Reasoning, scope, b.wid, nil)
	case isTool(b.typ):
		return p.em.Close(emit.Tool, scope, b.toolID, nil)
	}
	return p.em.Err()
}

// abandon ends a streamed message: it closes its open blocks and records
// every block no snapshot confirmed as a transcript item marked
// unconfirmed (a text or thinking Delta item, or a tool_call with the
// input parsed from its fragments). This is what a failed attempt leaves:
// its deltas are on the stream, but the result's text is the authority.
func (p *Parser) abandon(m *message) error {
	m.abandoned = true
	if m.coarse {
		return p.em.Err()
	}
	scope := m.key.scope
	for _, b := range m.order {
		if err := p.closeBlock(scope, b); err != nil {
			return err
		}
		if b.confirmed {
			continue
		}
		meta := map[string]string{"message_id": m.key.id, "unconfirmed": "true"}
		var it driver.TranscriptItem
		switch {
		case b.typ == "text" && b.text.Len() > 0:
			it = driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: b.text.String(), Delta: true, Metadata: meta}
		case b.typ == "thinking" && b.text.Len() > 0:
			it = driver.TranscriptItem{Kind: driver.TranscriptThinking, Text: b.text.String(), Delta: true, Metadata: meta}
		case isTool(b.typ):
			var in any
			if b.args.Len() > 0 {
				in = decodeAny([]byte(b.args.String()))
			}
			it = driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolName: b.name, ToolUseID: b.toolID, Input: in, Metadata: meta}
		default:
			continue
		}
		if err := p.em.Item(p.scoped(it, scope)); err != nil {
			return err
		}
	}
	return p.em.Err()
}
