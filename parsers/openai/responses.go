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

// itemKind classifies a Responses output item.
type itemKind uint8

const (
	kOther     itemKind = iota // an item type this parser does not map: a custom kind
	kMessage                   // message: output_text and refusal parts
	kReasoning                 // reasoning: summary parts, reasoning_text parts, encrypted_content
	kCall                      // a tool call the client executes (function_call, custom_tool_call, ...)
	kServer                    // a tool the provider executes (web_search_call, mcp_call, ...)
)

// itemKindOf maps an output item type. The client-executed types make a
// completed response's finish tool_calls.
func itemKindOf(typ string) itemKind {
	switch typ {
	case "message":
		return kMessage
	case "reasoning":
		return kReasoning
	case "function_call", "custom_tool_call", "local_shell_call", "shell_call",
		"apply_patch_call", "computer_call", "mcp_approval_request":
		return kCall
	case "web_search_call", "file_search_call", "code_interpreter_call",
		"image_generation_call", "mcp_call", "mcp_list_tools", "tool_search_call":
		return kServer
	}
	return kOther
}

// rPart is one reasoning part of a reasoning item: a summary part
// (kind 's') or a raw reasoning_text part (kind 't').
type rPart struct {
	kind byte
	idx  int
	wire string
	text []byte
}

// partKey names a content part that received text: 'c' output_text,
// 'r' refusal, 's' summary, 't' reasoning text.
type partKey struct {
	kind byte
	idx  int
}

// rItem is what the parser knows of one output item.
type rItem struct {
	outIdx int
	id     string // the item id as first seen
	wire   string // the lifecycle id: the item id, or the call_id of a call
	typ    string
	kind   itemKind
	name   string
	done   bool
	phase  string

	text        apistream.Span // message output text, a range of the Output
	refusal     []byte
	annotations []any
	seen        []partKey

	parts []rPart // reasoning parts; the last one may be open
	open  bool    // the last part's lifecycle (reasoning) is open

	// addedOff and addedLine place its output_item.added (addedLine 0:
	// the item was not announced).
	addedOff  int64
	addedLine int

	args     []byte // call arguments (or custom input, or code) as streamed
	final    []byte // the arguments of the .done event or the done item
	hasFinal bool
}

func (it *rItem) saw(k byte, idx int) bool {
	for _, s := range it.seen {
		if s.kind == k && s.idx == idx {
			return true
		}
	}
	return false
}

func (it *rItem) mark(k byte, idx int) {
	if !it.saw(k, idx) {
		it.seen = append(it.seen, partKey{k, idx})
	}
}

// responsesState is the Responses half of a Parser.
type responsesState struct {
	byIndex map[int]*rItem
	byID    map[string]*rItem
	order   []*rItem
	last    *rItem

	out apistream.Output // the Output: every message's output text

	lastSeq      int
	hasSeq       bool
	off          int64 // the position of the event being handled
	line         int
	doneSeen     bool
	hasToolCall  bool
	failedStatus string
}

func (r *responsesState) init() {
	r.byIndex = map[int]*rItem{}
	r.byID = map[string]*rItem{}
}

// rEvent is the members of one Responses event the parser reads, as raw
// JSON values (strings still quoted), plus the numbers.
type rEvent struct {
	typ                        string
	seq, outIdx, cIdx, sIdx    int
	hasSeq, hasOut, hasC, hasS bool
	itemID, delta              []byte
	text, arguments, input     []byte
	code, item, response, part []byte
	annotation, errv, message  []byte
}

// readREvent reads the members of an event whose data was validated.
func readREvent(f sse.Frame, ev *rEvent) {
	*ev = rEvent{}
	o, _ := object(f.Data)
	for o.next() {
		ev.member(o.key, o.v())
	}
	if ev.typ == "" {
		ev.typ = f.Event
	}
}

// checkREvent validates an event's data and reads its members in the same
// pass (jsonguard.CheckMembers): the error is Check's. The members an event
// repeats from the one before at the same place (type, item_id,
// output_index, content_index of a run of deltas) are not scanned again
// (jsonguard.Members; the result is CheckMembers' exactly).
func (p *Parser) checkREvent(f sse.Frame, ev *rEvent) error {
	*ev = rEvent{}
	err := p.members.Check(f.Data, 0, func(name, v []byte) {
		ev.member(p.memberKey(name), v)
	})
	if ev.typ == "" {
		ev.typ = f.Event
	}
	return err
}

// member reads one member of an event: key is its name unescaped, v its
// value's exact bytes. With duplicate names the last one wins.
func (ev *rEvent) member(key, v []byte) {
	switch string(key) {
	case "type":
		if isString(v) {
			ev.typ = internType(v)
		}
	case "sequence_number":
		ev.seq, ev.hasSeq = num(v)
	case "output_index":
		ev.outIdx, ev.hasOut = num(v)
	case "content_index":
		ev.cIdx, ev.hasC = num(v)
	case "summary_index":
		ev.sIdx, ev.hasS = num(v)
	case "item_id":
		ev.itemID = v
	case "delta":
		ev.delta = v
	case "text":
		ev.text = v
	case "arguments":
		ev.arguments = v
	case "input":
		ev.input = v
	case "code":
		ev.code = v
	case "item":
		ev.item = v
	case "response":
		ev.response = v
	case "part":
		ev.part = v
	case "annotation":
		ev.annotation = v
	case "error":
		ev.errv = v
	case "message":
		ev.message = v
	}
}

// The event types the parser maps to something other than a custom kind,
// or reads silently because a later event carries the same thing.
const (
	evCreated          = "response.created"
	evInProgress       = "response.in_progress"
	evQueued           = "response.queued"
	evCompleted        = "response.completed"
	evIncomplete       = "response.incomplete"
	evFailed           = "response.failed"
	evItemAdded        = "response.output_item.added"
	evItemDone         = "response.output_item.done"
	evPartAdded        = "response.content_part.added"
	evPartDone         = "response.content_part.done"
	evTextDelta        = "response.output_text.delta"
	evTextDone         = "response.output_text.done"
	evAnnotation       = "response.output_text.annotation.added"
	evRefusalDelta     = "response.refusal.delta"
	evRefusalDone      = "response.refusal.done"
	evSummaryAdded     = "response.reasoning_summary_part.added"
	evSummaryDone      = "response.reasoning_summary_part.done"
	evSummaryDelta     = "response.reasoning_summary_text.delta"
	evSummaryTextDone  = "response.reasoning_summary_text.done"
	evReasoningDelta   = "response.reasoning_text.delta"
	evReasoningDone    = "response.reasoning_text.done"
	evArgsDelta        = "response.function_call_arguments.delta"
	evArgsDone         = "response.function_call_arguments.done"
	evCustomDelta      = "response.custom_tool_call_input.delta"
	evCustomDone       = "response.custom_tool_call_input.done"
	evMCPArgsDelta     = "response.mcp_call_arguments.delta"
	evMCPArgsDone      = "response.mcp_call_arguments.done"
	evCodeDelta        = "response.code_interpreter_call_code.delta"
	evCodeDone         = "response.code_interpreter_call_code.done"
	evPatchDelta       = "response.apply_patch_call_operation_diff.delta"
	evPatchDone        = "response.apply_patch_call_operation_diff.done"
	evShellDelta       = "response.shell_call_command.delta"
	evShellDone        = "response.shell_call_command.done"
	evError            = "error"
	evResponseDocument = "response"
)

// internType returns the event type of the string literal v, without
// allocating for the types this parser knows.
func internType(v []byte) string {
	switch string(v[1 : len(v)-1]) {
	case evCreated:
		return evCreated
	case evInProgress:
		return evInProgress
	case evQueued:
		return evQueued
	case evCompleted:
		return evCompleted
	case evIncomplete:
		return evIncomplete
	case evFailed:
		return evFailed
	case evItemAdded:
		return evItemAdded
	case evItemDone:
		return evItemDone
	case evPartAdded:
		return evPartAdded
	case evPartDone:
		return evPartDone
	case evTextDelta:
		return evTextDelta
	case evTextDone:
		return evTextDone
	case evAnnotation:
		return evAnnotation
	case evRefusalDelta:
		return evRefusalDelta
	case evRefusalDone:
		return evRefusalDone
	case evSummaryAdded:
		return evSummaryAdded
	case evSummaryDone:
		return evSummaryDone
	case evSummaryDelta:
		return evSummaryDelta
	case evSummaryTextDone:
		return evSummaryTextDone
	case evReasoningDelta:
		return evReasoningDelta
	case evReasoningDone:
		return evReasoningDone
	case evArgsDelta:
		return evArgsDelta
	case evArgsDone:
		return evArgsDone
	case evCustomDelta:
		return evCustomDelta
	case evCustomDone:
		return evCustomDone
	case evMCPArgsDelta:
		return evMCPArgsDelta
	case evMCPArgsDone:
		return evMCPArgsDone
	case evCodeDelta:
		return evCodeDelta
	case evCodeDone:
		return evCodeDone
	case evPatchDelta:
		return evPatchDelta
	case evPatchDone:
		return evPatchDone
	case evShellDelta:
		return evShellDelta
	case evShellDone:
		return evShellDone
	case evError:
		return evError
	}
	return str(v)
}

// responsesEvent handles one Responses event whose data was validated.
func (p *Parser) responsesEvent(f sse.Frame) error {
	var ev rEvent
	readREvent(f, &ev)
	return p.responsesEventOf(f, &ev)
}

// responsesEventOf handles one Responses event, read into ev.
func (p *Parser) responsesEventOf(f sse.Frame, ev *rEvent) error {
	r := &p.r
	if ev.hasSeq {
		// sequence_number counts the events of one response from 0 (a
		// resumed stream, starting_after N, from N+1): a number that is not
		// the next one means events were lost or delivered twice.
		switch {
		case !r.hasSeq:
		case ev.seq == r.lastSeq:
			p.unpaired(f.Offset, f.Line, "sequence_number "+strconv.Itoa(ev.seq)+" repeated: an event delivered twice")
		case ev.seq < r.lastSeq:
			p.unpaired(f.Offset, f.Line, "sequence_number "+strconv.Itoa(ev.seq)+" after "+strconv.Itoa(r.lastSeq)+": events out of order")
		case ev.seq > r.lastSeq+1:
			n := ev.seq - r.lastSeq - 1
			p.unpaired(f.Offset, f.Line, "sequence_number "+strconv.Itoa(ev.seq)+" after "+strconv.Itoa(r.lastSeq)+": "+strconv.Itoa(n)+" event(s) missing")
		}
		if !r.hasSeq || ev.seq > r.lastSeq {
			r.lastSeq = ev.seq
		}
		r.hasSeq = true
	}
	r.off, r.line = f.Offset, f.Line
	if p.ended && ev.typ != evError {
		return p.malformedEvent(f, "event after the terminal event")
	}
	switch ev.typ {
	case evTextDelta:
		it := p.itemFor(ev, kMessage)
		d, ok := strBytes(ev.delta, &p.buf)
		if !ok {
			return p.malformedEvent(f, ev.typ+" without a string delta")
		}
		it.mark('c', ev.cIdx)
		return p.textDelta(it, d)
	case evSummaryDelta, evReasoningDelta:
		it := p.itemFor(ev, kReasoning)
		d, ok := strBytes(ev.delta, &p.buf)
		if !ok {
			return p.malformedEvent(f, ev.typ+" without a string delta")
		}
		k, idx := byte('s'), ev.sIdx
		if ev.typ == evReasoningDelta {
			k, idx = 't', ev.cIdx
		}
		it.mark(k, idx)
		return p.reasoningDelta(it, k, idx, d)
	case evArgsDelta, evCustomDelta, evMCPArgsDelta, evCodeDelta, evPatchDelta, evShellDelta:
		kind := kCall
		if ev.typ == evMCPArgsDelta || ev.typ == evCodeDelta {
			kind = kServer
		}
		it := p.itemFor(ev, kind)
		d, ok := strBytes(ev.delta, &p.buf)
		if !ok {
			return p.malformedEvent(f, ev.typ+" without a string delta")
		}
		return p.argsDelta(it, d)
	case evPatchDone, evShellDone:
		// The complete operation arrives with the item.
		p.itemFor(ev, kCall)
		return nil
	case evArgsDone, evCustomDone, evMCPArgsDone, evCodeDone:
		kind := kCall
		if ev.typ == evMCPArgsDone || ev.typ == evCodeDone {
			kind = kServer
		}
		it := p.itemFor(ev, kind)
		v := ev.arguments
		switch ev.typ {
		case evCustomDone:
			v = ev.input
		case evCodeDone:
			v = ev.code
		}
		if s, ok := strBytes(v, &p.buf); ok {
			it.final, it.hasFinal = append(it.final[:0], s...), true
		}
		return nil
	case evCreated, evInProgress, evQueued:
		return p.snapshot(f, ev)
	case evItemAdded:
		return p.itemAdded(f, ev)
	case evItemDone:
		return p.itemDone(f, ev)
	case evPartAdded, evSummaryAdded:
		// The part's text arrives in deltas (or in its .done event).
		p.itemFor(ev, kindOfPartEvent(ev.typ))
		return nil
	case evPartDone:
		return p.partDone(ev)
	case evTextDone, evRefusalDone:
		it := p.itemFor(ev, kMessage)
		k := byte('c')
		v := ev.text
		if ev.typ == evRefusalDone {
			k, v = 'r', refusalOf(f)
		}
		if s, ok := strBytes(v, &p.buf); ok && !it.saw(k, ev.cIdx) {
			it.mark(k, ev.cIdx)
			if k == 'c' {
				return p.textDelta(it, s)
			}
			return p.refusalDelta(it, s)
		}
		return nil
	case evSummaryTextDone, evReasoningDone, evSummaryDone:
		it := p.itemFor(ev, kReasoning)
		k, idx := byte('s'), ev.sIdx
		v := ev.text
		if ev.typ == evReasoningDone {
			k, idx = 't', ev.cIdx
		}
		if ev.typ == evSummaryDone {
			v = partText(ev.part)
		}
		if s, ok := strBytes(v, &p.buf); ok && !it.saw(k, idx) {
			it.mark(k, idx)
			return p.reasoningDelta(it, k, idx, s)
		}
		return nil
	case evRefusalDelta:
		it := p.itemFor(ev, kMessage)
		d, ok := strBytes(ev.delta, &p.buf)
		if !ok {
			return p.malformedEvent(f, ev.typ+" without a string delta")
		}
		it.mark('r', ev.cIdx)
		return p.refusalDelta(it, d)
	case evAnnotation:
		it := p.itemFor(ev, kMessage)
		if a := rawValue(ev.annotation); a != nil {
			it.annotations = append(it.annotations, a)
		}
		return p.em.Custom(p.provider(), ev.typ, driver.StreamPayload{MessageID: it.wire, Raw: rawMap(f.Data)})
	case evCompleted, evIncomplete, evFailed:
		return p.terminalEvent(f, ev)
	case evError:
		e, ok := errorEvent(f)
		if !ok {
			e = readError(f.Data)
		}
		return p.streamError(f, e)
	}
	if isStatusEvent(ev.typ) {
		// response.web_search_call.searching, response.mcp_call.failed,
		// response.image_generation_call.partial_image, ...: the progress of
		// a provider-executed tool, kept whole.
		return p.em.Custom(p.provider(), ev.typ, driver.StreamPayload{Raw: rawMap(f.Data)})
	}
	return p.unknownEvent(f, ev.typ)
}

// isStatusEvent reports whether typ is a progress event of a
// provider-executed tool or of an MCP tool listing.
func isStatusEvent(typ string) bool {
	rest, ok := strings.CutPrefix(typ, "response.")
	if !ok {
		return false
	}
	name, _, ok := strings.Cut(rest, ".")
	return ok && itemKindOf(name) == kServer
}

func kindOfPartEvent(typ string) itemKind {
	if typ == evSummaryAdded {
		return kReasoning
	}
	return kMessage
}

// refusalOf returns the "refusal" member of a refusal.done event.
func refusalOf(f sse.Frame) []byte {
	o, _ := object(f.Data)
	var v []byte
	for o.next() {
		if string(o.key) == "refusal" {
			v = o.v()
		}
	}
	return v
}

// partText returns the "text" (or "refusal") member of a part object.
func partText(part []byte) []byte {
	o, _ := object(part)
	var v []byte
	for o.next() {
		switch string(o.key) {
		case "text", "refusal":
			v = o.v()
		}
	}
	return v
}

// itemFor returns the item an event belongs to: by output_index first
// (GitHub Copilot's Responses endpoint rotates item_id between the events
// of one item), then by item_id; an event for an item never announced
// creates it with the kind its event implies.
func (p *Parser) itemFor(ev *rEvent, kind itemKind) *rItem {
	r := &p.r
	if l := r.last; l != nil && ev.hasOut && l.outIdx == ev.outIdx {
		return l
	}
	if ev.hasOut {
		if it := r.byIndex[ev.outIdx]; it != nil {
			r.last = it
			return it
		}
	}
	id := str(ev.itemID)
	if id != "" {
		if it := r.byID[id]; it != nil {
			r.last = it
			return it
		}
	}
	idx := ev.outIdx
	if !ev.hasOut {
		idx = -1 - len(r.order)
	}
	typ := map[itemKind]string{kMessage: "message", kReasoning: "reasoning", kCall: "function_call", kServer: "tool"}[kind]
	it := p.newItem(idx, id, typ, kind)
	p.unpaired(r.off, r.line, ev.typ+" for output item "+it.wire+" that no response.output_item.added announced")
	return it
}

func (p *Parser) newItem(idx int, id, typ string, kind itemKind) *rItem {
	r := &p.r
	if id == "" {
		id = "item_" + strconv.Itoa(len(r.order))
	}
	it := &rItem{outIdx: idx, id: id, wire: id, typ: typ, kind: kind}
	if kind == kOther {
		p.problems.Unknown++
	}
	r.byIndex[idx] = it
	if _, dup := r.byID[id]; dup {
		// A reused item id: the emitter gives the lifecycle a fresh
		// incarnation; keep the first for lookups by id.
	} else {
		r.byID[id] = it
	}
	r.order = append(r.order, it)
	r.last = it
	return it
}

func (p *Parser) textDelta(it *rItem, d []byte) error {
	if len(d) == 0 {
		return nil
	}
	s := p.r.out.Append(&it.text, d)
	if !p.opts.Streaming {
		return nil
	}
	if it.open {
		// A reasoning lifecycle of this item is open (a proxy that mixes
		// kinds): never interleave under one id.
		return p.em.Delta(emit.Text, "", it.wire+":text", s)
	}
	return p.em.Delta(emit.Text, "", it.wire, s)
}

func (p *Parser) refusalDelta(it *rItem, d []byte) error {
	if len(d) == 0 {
		return nil
	}
	it.refusal = append(it.refusal, d...)
	return p.em.Custom(p.provider(), "refusal", driver.StreamPayload{MessageID: it.wire, Delta: string(d)})
}

func (p *Parser) reasoningDelta(it *rItem, k byte, idx int, d []byte) error {
	if len(d) == 0 {
		return nil
	}
	n := len(it.parts)
	if n == 0 || it.parts[n-1].kind != k || it.parts[n-1].idx != idx {
		if n > 0 && it.open {
			if err := p.em.Close(emit.Reasoning, "", it.parts[n-1].wire, nil); err != nil {
				return err
			}
		}
		wire := it.wire + ":" + strconv.Itoa(idx)
		if k == 't' {
			wire = it.wire + ":text:" + strconv.Itoa(idx)
		}
		it.parts = append(it.parts, rPart{kind: k, idx: idx, wire: wire})
		n++
	}
	part := &it.parts[n-1]
	part.text = append(part.text, d...)
	it.open = true
	if !p.opts.Streaming {
		return nil
	}
	return p.em.Delta(emit.Reasoning, "", part.wire, string(d))
}

func (p *Parser) argsDelta(it *rItem, d []byte) error {
	if len(d) == 0 {
		return nil
	}
	if err := p.openCall(it); err != nil {
		return err
	}
	it.args = append(it.args, d...)
	if !p.opts.Streaming {
		return nil
	}
	return p.em.ToolArgs("", it.wire, string(d))
}

// openCall opens the tool lifecycle of a call or provider tool.
func (p *Parser) openCall(it *rItem) error {
	if p.em.IsOpen(emit.Tool, "", it.wire) || it.done {
		return nil
	}
	if it.kind == kServer {
		// The provider runs it (web search, file search, code interpreter,
		// an MCP call): tool_call.start says so, and names the item type.
		_, err := p.em.OpenServerTool("", it.wire, it.toolName(), nil, map[string]any{"type": it.typ})
		return err
	}
	_, err := p.em.OpenTool("", it.wire, it.toolName(), nil, "", "")
	return err
}

// toolName is the name a call is reported under: the function (or MCP
// tool) name, else the item type without "_call" (web_search, shell, ...).
func (it *rItem) toolName() string {
	if it.name != "" {
		return it.name
	}
	if n, ok := strings.CutSuffix(it.typ, "_call"); ok && n != "" {
		return n
	}
	if it.typ != "" {
		return it.typ
	}
	return "unknown"
}

// snapshot handles response.created, response.in_progress and
// response.queued: the first names the run.
func (p *Parser) snapshot(f sse.Frame, ev *rEvent) error {
	s := readSnapshot(ev.response)
	if s.serviceTier != "" {
		p.serviceTier = s.serviceTier
	}
	if err := p.initRun(s.id, s.model); err != nil {
		return err
	}
	if ev.typ == evCreated {
		return nil
	}
	raw := map[string]any{"status": s.status}
	if ev.hasSeq {
		raw["sequence_number"] = ev.seq
	}
	return p.em.Custom(p.provider(), ev.typ, driver.StreamPayload{Raw: raw})
}

// respSnapshot is what the parser reads of a response object.
type respSnapshot struct {
	id, model, status, serviceTier string
	incompleteReason               string
	usage                          []byte
	errv                           []byte
	output                         []byte
}

func readSnapshot(v []byte) respSnapshot {
	var s respSnapshot
	o, _ := object(v)
	for o.next() {
		switch string(o.key) {
		case "id":
			s.id = str(o.v())
		case "model":
			s.model = str(o.v())
		case "status":
			s.status = str(o.v())
		case "service_tier":
			s.serviceTier = str(o.v())
		case "usage":
			s.usage = o.v()
		case "error":
			s.errv = o.v()
		case "output":
			s.output = o.v()
		case "incomplete_details":
			d, _ := object(o.v())
			for d.next() {
				if string(d.key) == "reason" {
					s.incompleteReason = str(d.v())
				}
			}
		}
	}
	return s
}

// itemFields is what the parser reads of an output item.
type itemFields struct {
	id, typ, callID, name, status, phase string
	arguments, input, action, content    []byte
	summary, encrypted                   []byte
}

func readItem(v []byte) itemFields {
	var it itemFields
	o, _ := object(v)
	for o.next() {
		switch string(o.key) {
		case "id":
			it.id = str(o.v())
		case "type":
			it.typ = str(o.v())
		case "call_id":
			it.callID = str(o.v())
		case "name":
			it.name = str(o.v())
		case "status":
			it.status = str(o.v())
		case "phase":
			it.phase = str(o.v())
		case "arguments":
			it.arguments = o.v()
		case "input":
			it.input = o.v()
		case "action", "operation":
			it.action = o.v()
		case "content":
			it.content = o.v()
		case "summary":
			it.summary = o.v()
		case "encrypted_content":
			if !isNull(o.v()) {
				it.encrypted = o.v()
			}
		}
	}
	return it
}

// itemAdded handles response.output_item.added.
func (p *Parser) itemAdded(f sse.Frame, ev *rEvent) error {
	fi := readItem(ev.item)
	if err := p.initRun("", ""); err != nil {
		return err
	}
	it := p.addItem(ev, fi)
	if it.addedLine == 0 {
		it.addedOff, it.addedLine = f.Offset, f.Line
	}
	switch it.kind {
	case kCall, kServer:
		if err := p.openCall(it); err != nil {
			return err
		}
		if a := argsOf(fi); len(a) > 0 && it.kind == kCall {
			return p.argsDelta(it, a)
		}
	case kOther:
		return p.em.Custom(p.provider(), "item."+fi.typ, driver.StreamPayload{Raw: rawMap(f.Data)})
	}
	return nil
}

// addItem finds or creates the item an output_item event names, and
// fills what it announces.
func (p *Parser) addItem(ev *rEvent, fi itemFields) *rItem {
	var it *rItem
	if ev.hasOut {
		it = p.r.byIndex[ev.outIdx]
	} else if fi.id != "" {
		it = p.r.byID[fi.id]
	}
	kind := itemKindOf(fi.typ)
	if it == nil {
		idx := ev.outIdx
		if !ev.hasOut {
			idx = -1 - len(p.r.order)
		}
		it = p.newItem(idx, fi.id, fi.typ, kind)
		if kind == kCall && fi.callID != "" {
			// The call_id is what the client answers with
			// (function_call_output), so the lifecycle carries it.
			it.wire = fi.callID
		}
	} else if it.typ != fi.typ && fi.typ != "" && !it.done {
		// Created by an earlier event that only implied its kind.
		it.typ, it.kind = fi.typ, kind
	}
	if fi.name != "" && it.name == "" {
		it.name = fi.name
	}
	if fi.phase != "" {
		it.phase = fi.phase
	}
	p.r.last = it
	return it
}

// argsOf returns the decoded arguments (function_call, mcp_call) or input
// (custom_tool_call) string of an item.
func argsOf(fi itemFields) []byte {
	v := fi.arguments
	if fi.typ == "custom_tool_call" {
		v = fi.input
	}
	var buf []byte
	s, _ := strBytes(v, &buf)
	return bytes.Clone(s)
}

// itemDone handles response.output_item.done: the item is complete.
func (p *Parser) itemDone(f sse.Frame, ev *rEvent) error {
	fi := readItem(ev.item)
	if err := p.initRun("", ""); err != nil {
		return err
	}
	n := len(p.r.order)
	it := p.addItem(ev, fi)
	if len(p.r.order) > n {
		p.unpaired(f.Offset, f.Line, "output_item.done of "+it.wire+" ("+it.typ+") without its output_item.added")
	}
	if it.done {
		return nil
	}
	return p.completeItem(it, fi, ev.item)
}

// completeItem takes what a done item (or the terminal snapshot) holds
// that its events did not deliver, and closes it.
func (p *Parser) completeItem(it *rItem, fi itemFields, raw []byte) error {
	switch it.kind {
	case kMessage:
		var err error
		i := 0
		each(fi.content, func(el []byte) {
			if err != nil {
				return
			}
			pt := readPart(el)
			switch pt.typ {
			case "output_text":
				if !it.saw('c', i) {
					it.mark('c', i)
					err = p.textDelta(it, pt.text)
				}
				if len(it.annotations) == 0 && len(pt.annotations) > 0 {
					each(pt.annotations, func(a []byte) {
						if x := rawValue(a); x != nil {
							it.annotations = append(it.annotations, x)
						}
					})
				}
			case "refusal":
				if !it.saw('r', i) {
					it.mark('r', i)
					err = p.refusalDelta(it, pt.text)
				}
			}
			i++
		})
		if err != nil {
			return err
		}
	case kReasoning:
		var err error
		i := 0
		each(fi.summary, func(el []byte) {
			pt := readPart(el)
			if err == nil && !it.saw('s', i) {
				it.mark('s', i)
				err = p.reasoningDelta(it, 's', i, pt.text)
			}
			i++
		})
		i = 0
		each(fi.content, func(el []byte) {
			pt := readPart(el)
			if err == nil && pt.typ == "reasoning_text" && !it.saw('t', i) {
				it.mark('t', i)
				err = p.reasoningDelta(it, 't', i, pt.text)
			}
			i++
		})
		if err != nil {
			return err
		}
	case kCall:
		if a := argsOf(fi); a != nil || len(fi.arguments) > 0 || len(fi.input) > 0 {
			it.final, it.hasFinal = a, true
		}
	}
	return p.closeItem(it, fi, raw)
}

// part is what the parser reads of a content or summary part.
type part struct {
	typ         string
	text        []byte
	annotations []byte
}

func readPart(v []byte) part {
	var pt part
	o, _ := object(v)
	var buf []byte
	for o.next() {
		switch string(o.key) {
		case "type":
			pt.typ = str(o.v())
		case "text", "refusal":
			s, _ := strBytes(o.v(), &buf)
			pt.text = bytes.Clone(s)
		case "annotations":
			pt.annotations = o.v()
		}
	}
	return pt
}

// closeItem ends an item's lifecycles and emits its transcript items.
// fi and raw are the done item, or zero when the stream ended first.
func (p *Parser) closeItem(it *rItem, fi itemFields, raw []byte) error {
	it.done = true
	switch it.kind {
	case kMessage:
		if err := p.em.Close(emit.Text, "", it.wire, nil); err != nil {
			return err
		}
		if err := p.em.Close(emit.Text, "", it.wire+":text", nil); err != nil {
			return err
		}
		if text := p.r.out.Text(&it.text); text != "" {
			item := driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: text}
			if it.phase != "" {
				item.Metadata = map[string]string{"phase": it.phase}
			}
			if len(it.annotations) > 0 {
				item.Data = map[string]any{"annotations": it.annotations}
			}
			if err := p.em.Item(item); err != nil {
				return err
			}
		}
		if len(it.refusal) > 0 {
			if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: string(it.refusal),
				Metadata: map[string]string{"refusal": "true"}}); err != nil {
				return err
			}
		}
	case kReasoning:
		if n := len(it.parts); n > 0 && it.open {
			if err := p.em.Close(emit.Reasoning, "", it.parts[n-1].wire, nil); err != nil {
				return err
			}
		}
		it.open = false
		for i, pt := range it.parts {
			item := driver.TranscriptItem{Kind: driver.TranscriptThinking, Text: string(pt.text)}
			if pt.kind == 't' {
				item.Metadata = map[string]string{"part": "reasoning_text"}
			}
			if i == len(it.parts)-1 && len(fi.encrypted) > 0 {
				item.Data = map[string]any{"encrypted_content": str(fi.encrypted)}
			}
			if err := p.em.Item(item); err != nil {
				return err
			}
		}
		if len(fi.encrypted) > 0 {
			// Opaque reasoning the client sends back in the next request.
			if err := p.em.Custom(p.provider(), "reasoning.encrypted_content", driver.StreamPayload{
				MessageID: it.wire, Raw: map[string]any{"item_id": it.id, "encrypted_content": str(fi.encrypted)}}); err != nil {
				return err
			}
		}
	case kCall:
		p.r.hasToolCall = true
		if err := p.openCall(it); err != nil {
			return err
		}
		args := it.args
		if it.hasFinal {
			if len(it.final) > len(it.args) && bytes.HasPrefix(it.final, it.args) && p.opts.Streaming {
				if err := p.em.ToolArgs("", it.wire, string(it.final[len(it.args):])); err != nil {
					return err
				}
			}
			args = it.final
		}
		if err := p.em.Close(emit.Tool, "", it.wire, nil); err != nil {
			return err
		}
		meta := map[string]string{"item_type": it.typ}
		if fi.status != "" {
			meta["status"] = fi.status
		}
		var item driver.TranscriptItem
		switch it.typ {
		case "function_call", "mcp_approval_request":
			item = toolCallItem(it.wire, it.toolName(), args, meta)
		case "custom_tool_call":
			// Free-form input, not JSON.
			item = driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: it.wire, ToolName: it.toolName(), Input: string(args), Metadata: meta}
		default:
			// local_shell_call, shell_call, apply_patch_call, computer_call:
			// the action (or operation) is the input; streamed command or
			// diff text stands in for it when the item never completed.
			item = driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: it.wire, ToolName: it.toolName(), Metadata: meta}
			if len(fi.action) > 0 {
				item.Input = rawValue(fi.action)
			} else if len(args) > 0 {
				item.Input = string(args)
			}
		}
		if raw == nil {
			item.IsError = true
			meta["incomplete"] = "true"
		}
		return p.em.Item(item)
	case kServer:
		if err := p.openCall(it); err != nil {
			return err
		}
		var result map[string]any
		if raw != nil {
			result = rawMap(raw)
		}
		if err := p.em.Close(emit.Tool, "", it.wire, result); err != nil {
			return err
		}
		call := driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: it.wire, ToolName: it.toolName(),
			Metadata: map[string]string{"item_type": it.typ, "executed_by": "provider"}}
		switch {
		case len(fi.action) > 0:
			call.Input = rawValue(fi.action)
		case len(it.args) > 0 || it.hasFinal:
			a := it.args
			if it.hasFinal {
				a = it.final
			}
			in, ok, _ := toolInput(a)
			if !ok {
				in = string(a)
			}
			call.Input = in
		}
		if err := p.em.Item(call); err != nil {
			return err
		}
		if raw == nil {
			return nil
		}
		res := driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: it.wire, ToolName: it.toolName(),
			IsError: fi.status == "failed" || fi.status == "incomplete", Data: map[string]any{"item": result}}
		if fi.status != "" {
			res.Metadata = map[string]string{"status": fi.status}
		}
		return p.em.Item(res)
	case kOther:
		if raw == nil {
			return nil
		}
		return p.em.Custom(p.provider(), "item."+it.typ, driver.StreamPayload{Raw: rawMap(raw)})
	}
	return nil
}

// partDone handles response.content_part.done: the text of a part that
// had no deltas.
func (p *Parser) partDone(ev *rEvent) error {
	it := p.itemFor(ev, kMessage)
	pt := readPart(ev.part)
	switch pt.typ {
	case "output_text":
		if !it.saw('c', ev.cIdx) {
			it.mark('c', ev.cIdx)
			if err := p.textDelta(it, pt.text); err != nil {
				return err
			}
		}
		if len(it.annotations) == 0 {
			each(pt.annotations, func(a []byte) {
				if x := rawValue(a); x != nil {
					it.annotations = append(it.annotations, x)
				}
			})
		}
	case "refusal":
		if !it.saw('r', ev.cIdx) {
			it.mark('r', ev.cIdx)
			return p.refusalDelta(it, pt.text)
		}
	case "reasoning_text":
		if !it.saw('t', ev.cIdx) {
			it.mark('t', ev.cIdx)
			return p.reasoningDelta(it, 't', ev.cIdx, pt.text)
		}
	}
	return nil
}

// terminalEvent handles response.completed, response.incomplete and
// response.failed.
func (p *Parser) terminalEvent(f sse.Frame, ev *rEvent) error {
	for _, it := range p.r.order {
		if !it.done && it.addedLine > 0 {
			p.unpaired(it.addedOff, it.addedLine, "output item "+it.wire+" ("+it.typ+") announced but never done before "+ev.typ)
		}
	}
	s := readSnapshot(ev.response)
	if err := p.initRun(s.id, s.model); err != nil {
		return err
	}
	if s.serviceTier != "" {
		p.serviceTier = s.serviceTier
	}
	if err := p.fillFromSnapshot(s); err != nil {
		return err
	}
	p.terminal = terminalOf(ev.typ, f)
	p.ended = true
	return p.settle(ev.typ, s)
}

// settle decides the finish, usage or failure of a terminal response.
func (p *Parser) settle(typ string, s respSnapshot) error {
	status := s.status
	switch {
	case typ == evFailed || status == "failed":
		p.r.failedStatus = "failed"
		e := readError(s.errv)
		if e.message == "" && e.code == "" && e.typ == "" {
			e.message = "response failed"
		}
		fail := p.failureOf(e, p.opts.HTTPStatus)
		p.setFailure(fail)
		it := driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: fail.Message, IsError: true}
		if fail.ErrorType != "" {
			it.Metadata = map[string]string{"code": fail.ErrorType}
		}
		return p.em.Item(it)
	case typ == evIncomplete || status == "incomplete":
		p.finish = incompleteFinish(s.incompleteReason)
	case status == "cancelled":
		p.finish = &driver.Finish{Reason: driver.FinishOther, Raw: "cancelled"}
	default:
		p.finish = &driver.Finish{Reason: driver.FinishStop, Raw: status}
		if status == "" {
			p.finish.Raw = "completed"
		}
		if p.r.hasToolCall {
			p.finish.Reason = driver.FinishToolCalls
		}
	}
	if u, ok := readUsage(s.usage); ok {
		p.usage = u
	}
	return nil
}

// incompleteFinish maps incomplete_details.reason.
func incompleteFinish(reason string) *driver.Finish {
	f := &driver.Finish{Reason: driver.FinishUnknown, Raw: "incomplete"}
	if reason != "" {
		f.Raw = "incomplete: " + reason
	}
	switch reason {
	case "max_output_tokens":
		f.Reason = driver.FinishLength
	case "content_filter":
		f.Reason = driver.FinishContentFilter
	}
	return f
}

// fillFromSnapshot completes the items the terminal's output lists: items
// never streamed (a server that sends only the final snapshot) are
// announced and completed, items still open are completed from it.
func (p *Parser) fillFromSnapshot(s respSnapshot) error {
	var err error
	idx := 0
	each(s.output, func(el []byte) {
		if err != nil {
			return
		}
		fi := readItem(el)
		ev := rEvent{outIdx: idx, hasOut: true}
		idx++
		var it *rItem
		if fi.id != "" {
			it = p.r.byID[fi.id]
		}
		if it == nil {
			it = p.r.byIndex[ev.outIdx]
			if it != nil && fi.id != "" && it.id != fi.id && it.typ != fi.typ {
				it = nil
			}
		}
		if it == nil {
			it = p.addItem(&ev, fi)
		}
		if it.done {
			if it.kind == kCall {
				p.r.hasToolCall = true
			}
			return
		}
		err = p.completeItem(it, fi, el)
	})
	return err
}

// responseDocument handles a non-streamed Responses body: the response
// object itself.
func (p *Parser) responseDocument(f sse.Frame) error {
	s := readSnapshot(f.Data)
	if err := p.initRun(s.id, s.model); err != nil {
		return err
	}
	if err := p.fillFromSnapshot(s); err != nil {
		return err
	}
	p.terminal = terminalOf(evResponseDocument, f)
	switch s.status {
	case "completed", "incomplete", "failed", "cancelled":
		p.ended = true
		return p.settle("", s)
	}
	// queued or in_progress (a background response polled before its
	// end), or no status at all: not a terminal.
	return nil
}

// responsesEnd completes, at the end of the body, every item still open:
// their text and arguments as far as they arrived (a call cut inside its
// arguments is kept with the raw string, flagged).
func (p *Parser) responsesEnd() {
	p.output = p.r.out.String()
	p.where = p.r.openWhere()
	for _, it := range p.r.order {
		if !it.done {
			_ = p.closeItem(it, itemFields{}, nil)
		}
	}
}

// openWhere names the item that was open when the stream ended.
func (r *responsesState) openWhere() string {
	for i := len(r.order) - 1; i >= 0; i-- {
		it := r.order[i]
		if it.done {
			continue
		}
		switch it.kind {
		case kCall:
			return " (inside the arguments of " + it.typ + " " + it.wire + ")"
		case kMessage:
			return " (inside message " + it.wire + ")"
		}
		return " (inside " + it.typ + " " + it.wire + ")"
	}
	return ""
}
