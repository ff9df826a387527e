package openai

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/sse"
)

// cCall is one tool call of a Chat choice, assembled from its fragments.
type cCall struct {
	index    int
	hasIndex bool
	id       string // the provider's id, "" until one arrives
	wire     string // the lifecycle id
	name     string
	args     []byte
	opened   bool
	closed   bool
}

// cChoice is one choice of a Chat stream: its own message.
type cChoice struct {
	index     int
	msgID     string
	text      strings.Builder
	reasoning strings.Builder // the reasoning block being streamed (apistream.Append)
	rsID      string          // the reasoning lifecycle id, msgID+":reasoning"
	rsOpen    bool
	refusal   []byte
	calls     []*cCall
	finishRaw string
	finished  bool // its finish_reason arrived and its items were emitted
	finishAt  *driver.TerminalPayload
	annots    []any
	// filters are Azure's content_filter_results of the choice's chunks,
	// each value once while it repeats (every chunk carries one); filter
	// holds the exact bytes of the last.
	filters []any
	filter  []byte
}

// chatState is the Chat half of a Parser.
type chatState struct {
	choices  []*cChoice
	last     *cChoice
	doneSeen bool
	wires    map[string]int // lifecycle ids in use, for uniqueness
}

func (c *chatState) init() { c.wires = map[string]int{} }

// uniqueWire returns id, or id#n when a call of this run already used it.
func (c *chatState) uniqueWire(id string) string {
	n := c.wires[id]
	c.wires[id] = n + 1
	if n == 0 {
		return id
	}
	return id + "#" + strconv.Itoa(n+1)
}

func (p *Parser) choice(idx int) *cChoice {
	c := &p.c
	if c.last != nil && c.last.index == idx {
		return c.last
	}
	for _, ch := range c.choices {
		if ch.index == idx {
			c.last = ch
			return ch
		}
	}
	base := p.id
	if base == "" {
		base = "choice"
	}
	ch := &cChoice{index: idx, msgID: base + ":" + strconv.Itoa(idx)}
	ch.rsID = ch.msgID + ":reasoning"
	c.choices = append(c.choices, ch)
	c.last = ch
	return ch
}

// chatTop is the top-level members of a chunk the parser reads, as their
// exact bytes.
type chatTop struct {
	id, model, choices, usage, errv, xgroq, fingerprint, tier []byte
	hasChoices                                                bool
	// fast says the choices were read by fastChunk, into Parser.fast.
	fast bool
}

// member reads one top-level member (name unescaped); the last of
// duplicates wins.
func (t *chatTop) member(key, v []byte) {
	switch string(key) {
	case "id":
		t.id = v
	case "model":
		t.model = v
	case "choices":
		t.choices, t.hasChoices = v, true
	case "usage":
		t.usage = v
	case "error":
		t.errv = v
	case "x_groq":
		t.xgroq = v
	case "system_fingerprint":
		t.fingerprint = v
	case "service_tier":
		t.tier = v
	}
}

// checkChunk validates a chunk's data and reads its top-level members in
// the same pass (jsonguard.CheckMembers): the error is Check's. The
// members a chunk repeats from the one before (id, object, created, model,
// system_fingerprint: the envelope of every chunk) are not scanned again
// (jsonguard.Members; the result is CheckMembers' exactly). The members
// are read into the Parser's own chatTop, which it returns: valid until
// the next checkChunk, so that a chunk allocates nothing (a chatTop on the
// stack would escape through the callback Members keeps).
func (p *Parser) checkChunk(data []byte) (*chatTop, error) {
	p.ctop = chatTop{}
	if p.ctopMember == nil {
		p.ctopMember = func(name, v []byte) { p.ctop.member(p.memberKey(name), v) }
	}
	return &p.ctop, p.members.Check(data, 0, p.ctopMember)
}

// chatChunk handles one Chat Completions chunk whose data was validated
// (or, from FeedBody, a whole chat.completion object).
func (p *Parser) chatChunk(f sse.Frame) error {
	t, _ := p.checkChunk(f.Data)
	return p.chatChunkOf(f, t)
}

// chatChunkOf handles one chunk, its top-level members read into t.
func (p *Parser) chatChunkOf(f sse.Frame, t *chatTop) error {
	c := &p.c
	if f.Event == "error" {
		e, _ := errorEvent(f)
		return p.streamError(f, e)
	}
	if c.doneSeen {
		return p.malformedEvent(f, "chunk after data: [DONE]")
	}
	if !p.initDone {
		// The first chunk names the run before anything is emitted, wherever
		// its id stands (Azure writes its members in alphabetical order).
		if err := p.initRun(str(t.id), str(t.model)); err != nil {
			return err
		}
	}
	if p.fingerprint == "" && isString(t.fingerprint) {
		p.fingerprint = str(t.fingerprint)
	}
	if p.serviceTier == "" && isString(t.tier) {
		p.serviceTier = str(t.tier)
	}
	usage, errv, xgroq, hasChoices := t.usage, t.errv, t.xgroq, t.hasChoices
	n := 0
	var err error
	if t.fast {
		for i := range p.fast {
			if n++; err == nil {
				err = p.fastChoice(f, &p.fast[i])
			}
		}
	} else if a, ok := array(t.choices); ok {
		for el, ok := a.next(); ok && err == nil; el, ok = a.next() {
			n++
			if c, isObj := object(el); isObj {
				err = p.chatChoice(f, &c)
				a.consumed(c.end)
			}
		}
	}
	if err != nil {
		return err
	}
	if !isNull(errv) {
		if err := p.streamError(f, readError(errv)); err != nil {
			return err
		}
	}
	// Usage replaces: the usage chunk of stream_options.include_usage, and
	// providers that send cumulative usage on every chunk.
	gotUsage := false
	if u, ok := readUsage(usage); ok {
		p.usage, gotUsage = u, true
	} else if len(xgroq) > 0 {
		x, _ := object(xgroq)
		for x.next() {
			if string(x.key) == "usage" {
				if u, ok := readUsage(x.v()); ok {
					p.usage, gotUsage = u, true
				}
			}
		}
	}
	if n == 0 && !gotUsage && isNull(errv) {
		// Azure's first chunk (prompt_filter_results, empty id and model),
		// and whatever else a provider sends beside the choices.
		ev := "chunk"
		if !hasChoices {
			ev = "extra"
		}
		return p.em.Custom(p.provider(), ev, driver.StreamPayload{Raw: rawMap(f.Data)})
	}
	return nil
}

// chatChoice handles one element of choices.
func (p *Parser) chatChoice(f sse.Frame, o *obj) error {
	var finish, later, filters []byte
	var ch *cChoice
	idx, sawIdx := 0, false
	for o.next() {
		switch string(o.key) {
		case "index":
			if n, ok := num(o.v()); ok {
				idx, sawIdx = n, true
			}
		case "delta", "message": // message: a non-streamed completion
			if sawIdx && ch == nil && later == nil {
				// OpenAI's order, index before delta: the delta is walked in
				// place. Otherwise it waits for the index.
				ch = p.choice(idx)
				d, ok := o.enter()
				if ok {
					if err := p.chatDelta(ch, &d); err != nil {
						return err
					}
					o.leave(&d)
				}
				continue
			}
			later = o.v()
		case "finish_reason":
			finish = o.v()
		case "content_filter_results":
			filters = o.v()
		}
	}
	if ch == nil || ch.index != idx {
		ch = p.choice(idx)
	}
	if err := p.contentFilter(ch, filters); err != nil {
		return err
	}
	if later != nil {
		d, ok := object(later)
		if ok {
			if err := p.chatDelta(ch, &d); err != nil {
				return err
			}
		}
	}
	if isString(finish) {
		if r := str(finish); r != "" {
			return p.choiceFinish(ch, r, f)
		}
	}
	return nil
}

// fastChoice handles one element of choices as fastChunk read it: what
// chatChoice does with a choice of index, delta and finish_reason (and
// members it does not read) in any order.
func (p *Parser) fastChoice(f sse.Frame, c *fastChoice) error {
	ch := p.choice(c.index)
	if c.hasDelta {
		if err := p.delta(ch, &c.delta); err != nil {
			return err
		}
	}
	if isString(c.finish) {
		if r := str(c.finish); r != "" {
			return p.choiceFinish(ch, r, f)
		}
	}
	return nil
}

// contentFilter keeps a choice's content_filter_results (Azure OpenAI,
// on every chunk, {} on the first): each value once while it repeats, on
// the choice's assistant item (Data["content_filter_results"]); a value in
// which a category was filtered is also the custom payload
// <provider>/content_filter, as it happens.
func (p *Parser) contentFilter(ch *cChoice, v []byte) error {
	if len(v) < 2 || v[0] != '{' || bytes.Equal(v, ch.filter) {
		return nil
	}
	m := rawMap(v)
	if len(m) == 0 {
		return nil
	}
	ch.filter = append(ch.filter[:0], v...)
	ch.filters = append(ch.filters, m)
	for _, c := range m {
		if cat, ok := c.(map[string]any); ok && cat["filtered"] == true {
			return p.em.Custom(p.provider(), "content_filter", driver.StreamPayload{MessageID: ch.msgID,
				Raw: map[string]any{"choice": ch.index, "content_filter_results": m}})
		}
	}
	return nil
}

// cDelta is the members of a choice's delta the parser reads, as their
// exact bytes (the last of duplicates wins).
type cDelta struct {
	content, refusal, reasoning, reasoningAlt, calls, fcall, annots []byte
}

// field returns the member of d that a delta member of this name
// (unescaped) is read into, or nil for a name the parser does not read.
func (d *cDelta) field(key []byte) *[]byte {
	switch string(key) {
	case "content":
		return &d.content
	case "refusal":
		return &d.refusal
	case "reasoning_content":
		return &d.reasoning
	case "reasoning":
		return &d.reasoningAlt
	case "tool_calls":
		return &d.calls
	case "function_call":
		return &d.fcall
	case "annotations":
		return &d.annots
	}
	return nil
}

// chatDelta handles a choice's delta.
func (p *Parser) chatDelta(ch *cChoice, o *obj) error {
	var d cDelta
	for o.next() {
		if f := d.field(o.key); f != nil {
			*f = o.v()
		}
	}
	return p.delta(ch, &d)
}

// delta handles the members of a choice's delta, read by chatDelta or by
// the fast path (fastChunk).
func (p *Parser) delta(ch *cChoice, dm *cDelta) error {
	content, refusal, reasoning, calls, fcall, annots := dm.content, dm.refusal, dm.reasoning, dm.calls, dm.fcall, dm.annots
	// reasoning_content (DeepSeek, vLLM, Qwen) wins over reasoning
	// (OpenRouter, Groq, Ollama): a provider that sends both sends the same
	// text twice.
	if !isString(reasoning) {
		reasoning = dm.reasoningAlt
	}
	if d, ok := strBytes(reasoning, &p.buf); ok && len(d) > 0 {
		if err := p.chatReasoning(ch, d); err != nil {
			return err
		}
	}
	if d, ok := strBytes(content, &p.buf); ok && len(d) > 0 {
		if err := p.chatText(ch, d); err != nil {
			return err
		}
	} else if len(content) > 0 && content[0] == '[' {
		// Content as an array of parts (some compatibles): the text parts.
		var err error
		each(content, func(el []byte) {
			pt := readPart(el)
			if err == nil && (pt.typ == "text" || pt.typ == "output_text") {
				err = p.chatText(ch, pt.text)
			}
		})
		if err != nil {
			return err
		}
	}
	if d, ok := strBytes(refusal, &p.buf); ok && len(d) > 0 {
		ch.refusal = append(ch.refusal, d...)
		if err := p.em.Custom(p.provider(), "refusal", driver.StreamPayload{MessageID: ch.msgID, Delta: string(d)}); err != nil {
			return err
		}
	}
	each(annots, func(a []byte) {
		if x := rawValue(a); x != nil {
			ch.annots = append(ch.annots, x)
		}
	})
	var err error
	each(calls, func(el []byte) {
		if err == nil {
			err = p.chatToolFragment(ch, el)
		}
	})
	if err != nil {
		return err
	}
	if len(fcall) > 0 && fcall[0] == '{' {
		// The legacy single function_call: one call per choice.
		return p.chatCallFragment(ch, -1, true, "", fcall)
	}
	return nil
}

func (p *Parser) chatText(ch *cChoice, d []byte) error {
	if len(d) == 0 {
		return nil
	}
	if err := p.endReasoning(ch); err != nil {
		return err
	}
	s := apistream.Append(&ch.text, d)
	if !p.opts.Streaming {
		return nil
	}
	return p.em.Delta(emit.Text, "", ch.msgID, s)
}

func (p *Parser) chatReasoning(ch *cChoice, d []byte) error {
	s := apistream.Append(&ch.reasoning, d)
	ch.rsOpen = true
	if !p.opts.Streaming {
		return nil
	}
	return p.em.Delta(emit.Reasoning, "", ch.rsID, s)
}

// endReasoning closes a choice's reasoning block and emits it as a
// thinking item: text or a tool call follows it.
func (p *Parser) endReasoning(ch *cChoice) error {
	if !ch.rsOpen {
		return nil
	}
	ch.rsOpen = false
	if err := p.em.Close(emit.Reasoning, "", ch.rsID, nil); err != nil {
		return err
	}
	// The item's text is the Builder's own: the next block gets a new one.
	it := driver.TranscriptItem{Kind: driver.TranscriptThinking, Text: ch.reasoning.String()}
	ch.reasoning = strings.Builder{}
	return p.em.Item(it)
}

// chatToolFragment handles one element of delta.tool_calls.
func (p *Parser) chatToolFragment(ch *cChoice, el []byte) error {
	idx, hasIdx := 0, false
	var id string
	var fn []byte
	o, _ := object(el)
	for o.next() {
		switch string(o.key) {
		case "index":
			idx, hasIdx = num(o.v())
		case "id":
			id = str(o.v())
		case "function":
			fn = o.v()
		}
	}
	return p.chatCallFragment(ch, idx, hasIdx, id, fn)
}

// chatCallFragment adds a fragment (the function object: name and
// arguments) to the call it belongs to; see findCall.
func (p *Parser) chatCallFragment(ch *cChoice, idx int, hasIdx bool, id string, fn []byte) error {
	var name string
	var args []byte
	o, _ := object(fn)
	for o.next() {
		switch string(o.key) {
		case "name":
			name = str(o.v())
		case "arguments":
			if s, ok := strBytes(o.v(), &p.buf); ok {
				args = s
			} else if len(o.v()) > 0 && (o.v()[0] == '{' || o.v()[0] == '[') {
				args = o.v() // arguments as a JSON value (some local servers)
			}
		}
	}
	call := p.findCall(ch, idx, hasIdx, id)
	if call.name == "" && name != "" {
		// Later fragments may repeat the name, or send "" (Mistral): the
		// first non-empty name stays.
		call.name = name
	}
	if call.closed {
		return nil
	}
	if err := p.endReasoning(ch); err != nil {
		return err
	}
	if !call.opened && call.name != "" {
		call.opened = true
		if _, err := p.em.OpenTool("", call.wire, call.name, nil, "", ""); err != nil {
			return err
		}
		if len(call.args) > 0 && p.opts.Streaming {
			if err := p.em.ToolArgs("", call.wire, string(call.args)); err != nil {
				return err
			}
		}
	}
	if len(args) == 0 {
		return nil
	}
	call.args = append(call.args, args...)
	if call.opened && p.opts.Streaming {
		return p.em.ToolArgs("", call.wire, string(args))
	}
	return nil
}

// findCall returns the call a fragment belongs to, per choice:
//   - a fragment with an id belongs to the call with that id (and the same
//     index, when both have one); an id not seen before opens a new call,
//     even at an index in use (providers that number every parallel call
//     0), unless the latest call at that index has no id yet;
//   - a fragment without an id belongs to the latest call at its index,
//     or, without an index either, to the latest call of the choice;
//   - anything else opens a new call.
func (p *Parser) findCall(ch *cChoice, idx int, hasIdx bool, id string) *cCall {
	if id != "" {
		for i := len(ch.calls) - 1; i >= 0; i-- {
			c := ch.calls[i]
			if c.id == id && (!hasIdx || !c.hasIndex || c.index == idx) {
				return c
			}
		}
		if hasIdx {
			for i := len(ch.calls) - 1; i >= 0; i-- {
				c := ch.calls[i]
				if c.hasIndex && c.index == idx {
					if c.id == "" && !c.closed {
						c.id = id
						return c
					}
					break
				}
			}
		}
		return p.newCall(ch, idx, hasIdx, id)
	}
	if hasIdx {
		for i := len(ch.calls) - 1; i >= 0; i-- {
			if c := ch.calls[i]; c.hasIndex && c.index == idx {
				return c
			}
		}
	} else if n := len(ch.calls); n > 0 {
		return ch.calls[n-1]
	}
	return p.newCall(ch, idx, hasIdx, id)
}

func (p *Parser) newCall(ch *cChoice, idx int, hasIdx bool, id string) *cCall {
	wire := id
	if wire == "" {
		wire = ch.msgID + ":call:" + strconv.Itoa(len(ch.calls))
	}
	c := &cCall{index: idx, hasIndex: hasIdx, id: id, wire: p.c.uniqueWire(wire)}
	ch.calls = append(ch.calls, c)
	return c
}

// choiceFinish handles a choice's finish_reason: the choice is complete.
func (p *Parser) choiceFinish(ch *cChoice, reason string, f sse.Frame) error {
	ch.finishRaw = reason
	if ch.finished {
		return nil
	}
	ch.finished = true
	ch.finishAt = terminalOf("chat.completion.chunk", f)
	return p.closeChoice(ch, true)
}

// closeChoice ends a choice's lifecycles and emits its transcript items:
// reasoning, text, refusal, then its calls in order. complete is false
// when the stream ended before the choice did.
func (p *Parser) closeChoice(ch *cChoice, complete bool) error {
	if err := p.endReasoning(ch); err != nil {
		return err
	}
	if err := p.em.Close(emit.Text, "", ch.msgID, nil); err != nil {
		return err
	}
	meta := func() map[string]string {
		if len(p.c.choices) > 1 || ch.index != 0 {
			return map[string]string{"choice": strconv.Itoa(ch.index)}
		}
		return nil
	}
	switch {
	case ch.text.Len() > 0:
		it := driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: ch.text.String(), Metadata: meta()}
		if len(ch.annots) > 0 {
			it.Data = map[string]any{"annotations": ch.annots}
		}
		if len(ch.filters) > 0 {
			if it.Data == nil {
				it.Data = map[string]any{}
			}
			it.Data["content_filter_results"] = ch.filters
		}
		if err := p.em.Item(it); err != nil {
			return err
		}
	case len(ch.filters) > 0:
		// No text to carry them (a choice the filter stopped at once).
		it := driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "content_filter", Text: "content filter results",
			Metadata: meta(), Data: map[string]any{"content_filter_results": ch.filters}}
		if err := p.em.Item(it); err != nil {
			return err
		}
	}
	if len(ch.refusal) > 0 {
		m := meta()
		if m == nil {
			m = map[string]string{}
		}
		m["refusal"] = "true"
		if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: string(ch.refusal), Metadata: m}); err != nil {
			return err
		}
	}
	for _, c := range ch.calls {
		if c.closed {
			continue
		}
		c.closed = true
		if !c.opened {
			c.opened = true
			if _, err := p.em.OpenTool("", c.wire, c.name, nil, "", ""); err != nil {
				return err
			}
			if len(c.args) > 0 && p.opts.Streaming {
				if err := p.em.ToolArgs("", c.wire, string(c.args)); err != nil {
					return err
				}
			}
		}
		if err := p.em.Close(emit.Tool, "", c.wire, nil); err != nil {
			return err
		}
		it := toolCallItem(c.wire, c.name, c.args, meta())
		if !complete {
			it.IsError = true
			if it.Metadata == nil {
				it.Metadata = map[string]string{}
			}
			it.Metadata["incomplete"] = "true"
		}
		if err := p.em.Item(it); err != nil {
			return err
		}
	}
	return nil
}

// chatDone handles data: [DONE] (and the end of a non-streamed body): the
// Chat terminal.
func (p *Parser) chatDone(f sse.Frame) error {
	if p.format == Auto {
		p.format = Chat
	}
	if p.c.doneSeen {
		return p.malformedEvent(f, "second data: [DONE]")
	}
	p.c.doneSeen = true
	p.ended = true
	for _, ch := range p.c.choices {
		if ch.finishRaw == "" {
			p.unpaired(f.Offset, f.Line, "data: [DONE] ended choice "+strconv.Itoa(ch.index)+" without its finish_reason")
		}
	}
	return nil
}

// outputChoice is the choice whose text is Output and whose finish is the
// run's: the lowest index.
func (c *chatState) outputChoice() *cChoice {
	var out *cChoice
	for _, ch := range c.choices {
		if out == nil || ch.index < out.index {
			out = ch
		}
	}
	return out
}

// chatEnd settles the run at the end of the body.
func (p *Parser) chatEnd() {
	c := &p.c
	out := c.outputChoice()
	if out != nil && out.finishRaw != "" {
		// A received finish_reason is authoritative on a stream that ends
		// without [DONE].
		p.ended = true
	}
	p.where = c.openWhere()
	for _, ch := range c.choices {
		if !ch.finished {
			_ = p.closeChoice(ch, false)
		}
	}
	if out == nil {
		if p.ended {
			p.finish = &driver.Finish{Reason: driver.FinishUnknown}
		}
		return
	}
	p.output = out.text.String()
	if p.terminal == nil {
		p.terminal = out.finishAt
	}
	if p.ended {
		p.finish = chatFinish(out.finishRaw)
		if p.finish.Reason == driver.FinishError && p.failure == nil {
			p.setFailure(&driver.RunFailure{Code: driver.FailureProviderError, ErrorType: "error", HTTPStatus: p.opts.HTTPStatus,
				Message: `the provider ended the choice with finish_reason "error"`})
		}
	}
}

// chatFinish maps a finish_reason (see the table in the package doc).
func chatFinish(raw string) *driver.Finish {
	f := &driver.Finish{Reason: driver.FinishUnknown, Raw: raw}
	switch raw {
	case "stop", "eos", "end_turn", "stop_sequence":
		f.Reason = driver.FinishStop
	case "length", "max_tokens", "model_length", "max_output_tokens", "model_context_window_exceeded":
		f.Reason = driver.FinishLength
	case "tool_calls", "function_call", "tool_use":
		f.Reason = driver.FinishToolCalls
	case "content_filter", "safety", "sensitive", "refusal":
		f.Reason = driver.FinishContentFilter
	case "error":
		f.Reason = driver.FinishError
	case "abort", "cancelled", "pause_turn", "recitation", "insufficient_system_resource":
		f.Reason = driver.FinishOther
	}
	return f
}

// openWhere names what was open when the stream ended.
func (c *chatState) openWhere() string {
	for i := len(c.choices) - 1; i >= 0; i-- {
		ch := c.choices[i]
		if ch.finished {
			continue
		}
		for j := len(ch.calls) - 1; j >= 0; j-- {
			if !ch.calls[j].closed {
				return " (inside the arguments of tool call " + ch.calls[j].wire + ")"
			}
		}
		return " (choice " + strconv.Itoa(ch.index) + " had no finish_reason)"
	}
	return ""
}
