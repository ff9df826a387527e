// Package emit is the single emission path shared by the provider parsers.
// It makes the driver contract structural rather than a matter of care in
// each parser:
//
//   - every transcript item goes through Item, which appends it to the
//     transcript and emits the RunEventItem in the same step, so the
//     transcript mirror (RUN-04) holds by construction;
//   - every stream payload goes through an Emitter method that keeps the
//     lifecycle grammar of driver.StreamKind: run.started is emitted once and
//     first (automatically if a parser emits anything earlier), a delta for
//     a message that is not open opens it, an empty delta is not emitted, an
//     id that was closed and is reused by the provider is given a fresh
//     suffix ("id#2") instead of being reopened (but see Bounded),
//     capability-forbidden families are never emitted, and Finish closes
//     every open lifecycle in opening order before the single terminal
//     payload. Nothing is emitted after the terminal.
//
// So a hostile or merely surprising provider stream yields a stream that
// passes adaptertest.CheckStream for the parser's capability; the provider's
// exact bytes are kept by the framing layer, never here.
//
// An Emitter is not safe for concurrent use. A sink error is sticky: it is
// returned by the failing call and every later call, and nothing more is
// emitted.
package emit

import (
	"errors"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/agentwire/agentwire/driver"
)

// ErrFinished is returned by calls made after Finish.
var ErrFinished = errors.New("emit: run already finished")

// Family is a lifecycle family with ids.
type Family uint8

// The lifecycle families.
const (
	Text Family = iota + 1
	Reasoning
	Tool
)

func (f Family) String() string {
	switch f {
	case Text:
		return "text"
	case Reasoning:
		return "reasoning"
	case Tool:
		return "tool"
	}
	return "family(" + strconv.Itoa(int(f)) + ")"
}

type key struct {
	fam       Family
	scope, id string
}

// entry is a lifecycle, or (l nil) the incarnation count of a finished one.
type entry struct {
	l *life
	n int
}

type life struct {
	key
	emitID       string // the id used on the wire (id, or id#n after a reuse)
	parentScope  string
	parentTool   string
	completeArgs bool
	open         bool
	resulted     bool
	order        int
	n            int  // incarnation: 1, then 2 for "id#2", ...
	mapped       bool // Emitter.lives holds it (see Emitter.last)
}

// Emitter emits transcript items and stream payloads for one run.
type Emitter struct {
	sink      driver.EventSink
	streaming bool
	cap       driver.StreamCapability

	// transcript is the chunk being filled, full the chunks filled before
	// it (see store); Transcript joins them.
	transcript []driver.TranscriptItem
	full       [][]driver.TranscriptItem
	err        error

	started  bool
	finished bool
	// coords are copied onto run.started when it is emitted.
	runID, threadID, turnID string

	// lives holds, per provider id, its latest incarnation while it
	// matters; once its lifecycle is over (a text or reasoning lifecycle
	// closed, a tool call closed and given its result) only the number of
	// incarnations it had, which is all a reused id needs for its fresh
	// suffix. A long run keeps one small entry per id, not the lifecycle;
	// a bounded one (Bounded), none.
	//
	// The last one opened goes into lives only when another is opened
	// while it still matters (mapped), or as its count when it is over:
	// lifecycles mostly come one after the other, and each then costs
	// one write to the map, not two. Lookups try last first, so an
	// entry of lives for last's key, if any, is never read.
	lives lifeMap
	slab  []life // where new lives are allocated, lifeSlab at a time
	last  *life  // the last one opened: most lookups are for it

	// kinds caches the custom kinds of kindsOf (the provider of the
	// latest Custom call) by event, up to maxKinds of them: a parser
	// names a handful of events over and over.
	kindsOf string
	kinds   map[string]driver.StreamKind
	// lastEvent is the event of the latest Custom call, lastKind its kind.
	lastEvent string
	lastKind  driver.StreamKind

	// delta is the payload Delta sends, custom the one CustomRaw sends:
	// only the members they set are ever set, so neither is zeroed
	// afresh for every payload.
	delta, custom driver.StreamPayload

	keep    bool // append items to the transcript (the driver contract)
	opened  int
	steps   []string // open step names, in order
	emitted int

	// bounded (Bounded) forgets a lifecycle once it is over, where the
	// driver contract keeps its incarnation count; awaiting holds the
	// last maxAwaiting tool calls closed without their result (some may
	// have had it since), next the slot the next one takes: an older one
	// is forgotten.
	bounded  bool
	awaiting []*life
	next     int

	// counts, when set (UseCounts), holds the incarnation counts of the
	// lifecycles of scope "" that are over, in lives' stead.
	counts Counts
}

// Counts is a record of how many lifecycles each provider id of scope ""
// has had, kept by a parser that keeps a record of every id anyway (see
// UseCounts). It is a store of one count per family and id: Count
// returns what SetCount last recorded for them, 0 if it never did.
type Counts interface {
	Count(f Family, id string) int
	SetCount(f Family, id string, n int)
}

// UseCounts makes the Emitter keep the incarnation counts of the
// lifecycles of scope "" that are over in c instead of its own record:
// once such a lifecycle is over it is forgotten here, c is told its
// count, and opening its id again asks c for it. The emitted stream is
// the one the Emitter's own record gives; a long run then keeps one entry
// per id (the parser's) where the parser and the Emitter each kept one,
// and costs one map lookup and insert per id, not two. Call it before the
// first emission; a Bounded Emitter keeps no counts and ignores it.
func (e *Emitter) UseCounts(c Counts) { e.counts = c }

// New returns an Emitter writing to sink. Stream payloads are emitted only
// when streaming is true (the transcript is always emitted); capability
// decides which families may appear.
func New(sink driver.EventSink, streaming bool, capability driver.StreamCapability) *Emitter {
	return &Emitter{sink: sink, streaming: streaming, cap: capability, keep: true}
}

// DiscardTranscript stops the Emitter from keeping the items it emits:
// Transcript stays empty and each item is handed to the sink as its own
// copy. It is for consumers that keep (or print and forget) the items
// themselves, such as a command printing a live timeline, and it is outside
// the driver contract: Response.Transcript no longer mirrors the emitted
// items (adaptertest RUN-04). Call it before the first Item.
func (e *Emitter) DiscardTranscript() { e.keep = false }

// Bounded makes the Emitter forget a lifecycle once it is over (a text or
// reasoning lifecycle closed, a tool call closed and given its result),
// where it would keep its incarnation count, and a tool call closed
// without its result once maxAwaiting (1024) more have been closed
// without theirs: its memory then depends on the lifecycles open, not on
// the length of the run. It is for consumers that print the events as
// they come (with DiscardTranscript), and it is outside the driver
// contract: an id reused after its lifecycle is over opens a new
// lifecycle under the same wire id, not "id#2", and a result for a call
// forgotten emits nothing (ToolResult reports false, as for a call never
// started). Such a stream passes adaptertest's Checker with its Bounded
// set, which forgets lifecycles in the same way (and keeps more calls
// awaiting a result); the exact judge is the Checker without it. Call it
// before the first emission.
func (e *Emitter) Bounded() { e.bounded = true }

// maxAwaiting bounds the tool calls a bounded Emitter keeps for a later
// tool_call.result: a call closed without its result is forgotten once
// maxAwaiting more have been closed without theirs (Bounded).
const maxAwaiting = 1024

// Err returns the sticky sink error, if any.
func (e *Emitter) Err() error { return e.err }

// Transcript returns the items emitted so far (none after
// DiscardTranscript), in one slice of exactly their number. The items are
// the ones the sink was given (see Item), or shallow copies of them once
// they outgrew their first chunk; the slice may be kept after Finish.
func (e *Emitter) Transcript() []driver.TranscriptItem {
	if len(e.full) == 0 {
		return e.transcript
	}
	// Joined once, at its exact size: the chunks were never copied while
	// they filled, and from now on the joined slice is the one chunk that
	// holds them (a later Item starts a new one).
	n := len(e.transcript)
	for _, c := range e.full {
		n += len(c)
	}
	all := make([]driver.TranscriptItem, 0, n)
	for _, c := range e.full {
		all = append(all, c...)
	}
	all = append(all, e.transcript...)
	e.full, e.transcript = nil, all
	return all
}

// maxChunk is the most items a transcript chunk holds (248 KiB of them).
const maxChunk = 1024

// store appends it to the transcript and returns its place, which never
// moves: items fill chunks of 16, 32, ... up to maxChunk items, each full
// chunk kept as it is (in e.full) until Transcript joins them. Against one
// slice grown by doubling, that copies no item while the run goes on,
// allocates as much (the chunks, then the joined slice), and keeps no
// room beyond the last chunk's once joined: a slice doubled to 2^k
// items for 2^(k-1)+1 of them would keep 0.45 bytes of room per input
// byte on small codex items (1.45 bytes of items).
func (e *Emitter) store(it driver.TranscriptItem) *driver.TranscriptItem {
	if len(e.transcript) == cap(e.transcript) {
		if len(e.transcript) > 0 {
			e.full = append(e.full, e.transcript)
		}
		e.transcript = make([]driver.TranscriptItem, 0, min(max(2*len(e.transcript), 16), maxChunk))
	}
	e.transcript = append(e.transcript, it)
	return &e.transcript[len(e.transcript)-1]
}

// Started reports whether run.started has been emitted.
func (e *Emitter) Started() bool { return e.started }

// Finished reports whether the terminal has been emitted.
func (e *Emitter) Finished() bool { return e.finished }

// Payloads returns the number of stream payloads emitted.
func (e *Emitter) Payloads() int { return e.emitted }

// Item appends it to the transcript and emits it as a RunEventItem. Items
// keep flowing after Finish only if a parser calls Item then; parsers emit
// their final result item before Finish.
//
// Each item is stored once: the RunEventItem points at the transcript's own
// element, which the Emitter never changes afterwards. A sink may keep the
// pointer but must not modify the item (that would change Transcript too).
func (e *Emitter) Item(it driver.TranscriptItem) error {
	if e.err != nil {
		return e.err
	}
	var item *driver.TranscriptItem
	if e.keep {
		item = e.store(it)
	} else {
		// A new item, not &it: that would move it to the heap on every
		// call, the kept ones included.
		item = new(driver.TranscriptItem)
		*item = it
	}
	if err := e.sink.Emit(driver.RunEvent{Type: driver.RunEventItem, Item: item}); err != nil {
		e.err = err
	}
	return e.err
}

// Event emits an operational (non-item) RunEvent.
func (e *Emitter) Event(ev driver.RunEvent) error {
	if e.err != nil {
		return e.err
	}
	if err := e.sink.Emit(ev); err != nil {
		e.err = err
	}
	return e.err
}

func (e *Emitter) send(p *driver.StreamPayload) error {
	if e.err != nil {
		return e.err
	}
	if !e.streaming {
		return nil
	}
	if err := e.sink.EmitStream(*p); err != nil {
		e.err = err
		return err
	}
	e.emitted++
	return nil
}

// Start emits run.started with the provider coordinates, if it has not been
// emitted yet; later calls only fill coordinates that were empty, which
// matter for nothing already sent. Every other method calls Start first.
func (e *Emitter) Start(runID, threadID, turnID string) error {
	if e.finished {
		return ErrFinished
	}
	if e.started {
		return e.err
	}
	e.started = true
	e.runID, e.threadID, e.turnID = runID, threadID, turnID
	return e.send(&driver.StreamPayload{Kind: driver.StreamRunStarted, RunID: runID, ThreadID: threadID, TurnID: turnID})
}

func (e *Emitter) begin() error {
	if e.finished {
		return ErrFinished
	}
	if !e.started {
		return e.Start("", "", "")
	}
	return e.err
}

func (e *Emitter) allowed(f Family) bool {
	return f != Reasoning || e.cap.Reasoning
}

// Open opens a text, reasoning or tool lifecycle for the provider id in
// scope and returns the id used on the wire. Opening an id that is open is
// a no-op; opening one that was closed starts a new incarnation "id#n".
// Opening a Tool this way is OpenTool with the name "unknown"; parsers that
// know the tool's name use OpenTool.
func (e *Emitter) Open(f Family, scope, id string) (string, error) {
	if f == Tool {
		return e.OpenTool(scope, id, "", nil, "", "")
	}
	return e.open(f, scope, id, driver.StreamPayload{})
}

func (e *Emitter) open(f Family, scope, id string, tmpl driver.StreamPayload) (string, error) {
	if err := e.begin(); err != nil {
		return "", err
	}
	k := key{f, scope, id}
	// One map lookup gives the latest incarnation or the count of the
	// finished ones: an id never seen (most of them) costs a single miss.
	var en entry
	if l := e.last; l != nil && l.key == k {
		en.l = l
	} else {
		en = e.lives.get(k)
	}
	if en.l != nil && en.l.open {
		return en.l.emitID, nil
	}
	n := en.n + 1
	if en.l != nil {
		n = en.l.n + 1
	} else if e.counts != nil && scope == "" && !e.bounded {
		n = e.counts.Count(f, id) + 1
	}
	emitID := id
	if n > 1 {
		emitID = id + "#" + strconv.Itoa(n)
	}
	e.opened++
	l := e.newLife()
	*l = life{key: k, emitID: emitID, open: true, order: e.opened, n: n, parentScope: tmpl.ParentScopeID, parentTool: tmpl.ParentToolCallID, completeArgs: tmpl.Args != nil}
	if last := e.last; last != nil && !last.mapped && last.key != k {
		// It still matters (a released one is no longer last).
		e.lives.set(last.key, entry{l: last})
		last.mapped = true
	}
	e.last = l
	if !e.allowed(f) {
		return emitID, nil
	}
	p := tmpl
	p.ScopeID = scope
	switch f {
	case Text:
		p.Kind, p.MessageID = driver.StreamTextStart, emitID
	case Reasoning:
		p.Kind, p.MessageID = driver.StreamReasoningStart, emitID
	case Tool:
		p.Kind, p.ToolCallID = driver.StreamToolCallStart, emitID
	}
	return emitID, e.send(&p)
}

// lifeMap is Emitter.lives: the entries of the lifecycles in scope "", one
// map per family keyed by the id alone, and the others by their whole key.
// A string key and a 16-byte entry make a slot of 32 bytes where the whole
// key made one of 56, and hash as a string: a long run keeps an entry per
// id, and open's lookups and inserts in that table (new ids, in memory not
// touched lately) were a fifth of Feed's CPU time on 20 MB of small codex
// items (pprof). The zero value is empty.
type lifeMap struct {
	ids   [Tool + 1]map[string]entry
	other map[key]entry
}

func (m *lifeMap) get(k key) entry {
	if k.scope == "" && k.fam <= Tool {
		return m.ids[k.fam][k.id]
	}
	return m.other[k]
}

func (m *lifeMap) set(k key, en entry) {
	if k.scope == "" && k.fam <= Tool {
		if m.ids[k.fam] == nil {
			m.ids[k.fam] = map[string]entry{}
		}
		m.ids[k.fam][k.id] = en
		return
	}
	if m.other == nil {
		m.other = map[key]entry{}
	}
	m.other[k] = en
}

func (m *lifeMap) del(k key) {
	if k.scope == "" && k.fam <= Tool {
		if len(m.ids[k.fam]) > 0 {
			delete(m.ids[k.fam], k.id)
		}
		return
	}
	delete(m.other, k)
}

// len is the number of entries.
func (m *lifeMap) len() int {
	n := len(m.other)
	for _, ids := range m.ids {
		n += len(ids)
	}
	return n
}

// each calls fn with every entry, in no particular order.
func (m *lifeMap) each(fn func(entry)) {
	for _, ids := range m.ids {
		for _, en := range ids {
			fn(en)
		}
	}
	for _, en := range m.other {
		fn(en)
	}
}

// lifeSlab is how many lifecycles are allocated together: a long run opens
// thousands, and one allocation per lifecycle dominated the emitter.
const lifeSlab = 64

// life returns the latest incarnation of k, or nil. A lifecycle is
// usually looked up right after it was opened (a message's content and
// end, a tool's result), so the last one opened is checked before the map.
func (e *Emitter) life(k key) *life {
	if l := e.last; l != nil && l.key == k {
		return l
	}
	return e.lives.get(k).l
}

func (e *Emitter) newLife() *life {
	if len(e.slab) == 0 {
		e.slab = make([]life, lifeSlab)
	}
	l := &e.slab[0]
	e.slab = e.slab[1:]
	return l
}

// OpenTool opens a tool call. name must be non-empty (a provider that omits
// it is reported by the parser as "unknown"). args, when non-nil, is the
// complete argument object; afterwards ToolArgs emits nothing for this call.
// parentScope and parentTool place a nested call; empty means unknown.
func (e *Emitter) OpenTool(scope, id, name string, args map[string]any, parentScope, parentTool string) (string, error) {
	if name == "" {
		name = "unknown"
	}
	if parentTool == id && parentScope == scope {
		parentTool = "" // a call cannot be its own parent (EVT-14)
	}
	return e.open(Tool, scope, id, driver.StreamPayload{Name: name, Args: args, ParentScopeID: parentScope, ParentToolCallID: parentTool})
}

// OpenServerTool opens a tool call that the provider executes itself (a
// model API's web search, code execution or MCP call, as opposed to a call
// the client is asked to run): OpenTool, whose tool_call.start carries
// Raw["provider_executed"] = true beside raw's members (the provider's
// block or item type, a server name), so that a consumer tells the two
// apart from the normalized stream alone.
func (e *Emitter) OpenServerTool(scope, id, name string, args, raw map[string]any) (string, error) {
	if name == "" {
		name = "unknown"
	}
	r := make(map[string]any, len(raw)+1)
	for k, v := range raw {
		r[k] = v
	}
	r["provider_executed"] = true
	return e.open(Tool, scope, id, driver.StreamPayload{Name: name, Args: args, Raw: r})
}

// Delta emits a text or reasoning delta, opening the lifecycle first when it
// is not open. An empty delta emits nothing.
func (e *Emitter) Delta(f Family, scope, id, delta string) error {
	if delta == "" {
		return e.begin()
	}
	var emitID string
	if l := e.last; l != nil && l.open && l.fam == f && l.id == id && l.scope == scope {
		// A delta of the lifecycle opened last, as nearly every one is:
		// the id Open would return, without its work. An open lifecycle
		// means Start has run and Finish has not closed it, so begin
		// would only return the sticky error, as send and the return
		// below do.
		emitID = l.emitID
	} else {
		var err error
		if emitID, err = e.Open(f, scope, id); err != nil {
			return err
		}
	}
	if !e.allowed(f) {
		return e.err
	}
	kind := driver.StreamTextContent
	if f == Reasoning {
		kind = driver.StreamReasoningContent
	}
	p := &e.delta
	p.Kind, p.ScopeID, p.MessageID, p.Delta = kind, scope, emitID, delta
	return e.send(p)
}

// ToolArgs emits a tool-argument delta for an open tool call. It emits
// nothing when the capability has no ToolCallArgs, when the call was opened
// with complete args, when the call is not open, or when delta is empty.
func (e *Emitter) ToolArgs(scope, id, delta string) error {
	if err := e.begin(); err != nil {
		return err
	}
	l := e.life(key{Tool, scope, id})
	if delta == "" || !e.cap.ToolCallArgs || l == nil || !l.open || l.completeArgs {
		return nil
	}
	return e.send(&driver.StreamPayload{Kind: driver.StreamToolCallArgs, ScopeID: scope, ToolCallID: l.emitID, Delta: delta, ParentScopeID: l.parentScope, ParentToolCallID: l.parentTool})
}

// Close closes an open text, reasoning or tool lifecycle; result is the
// tool's result (ignored for other families). Closing what is not open is a
// no-op.
func (e *Emitter) Close(f Family, scope, id string, result map[string]any) error {
	if err := e.begin(); err != nil {
		return err
	}
	l := e.life(key{f, scope, id})
	if l == nil || !l.open {
		return nil
	}
	return e.close(l, result)
}

// CloseWithResult closes an open tool call as Close does, with result as
// its only result: the call is then over (as after ToolResult), so the
// Emitter keeps only its incarnation count, and a later ToolResult for
// it emits nothing. It is for a protocol whose tool calls end with their
// result and never get a separate one (codex exec's item.completed); a
// call closed by Close stays until its tool_call.result.
func (e *Emitter) CloseWithResult(scope, id string, result map[string]any) error {
	if err := e.begin(); err != nil {
		return err
	}
	l := e.life(key{Tool, scope, id})
	if l == nil || !l.open {
		return nil
	}
	l.resulted = true
	return e.close(l, result)
}

// release forgets a lifecycle that nothing can refer to any more, keeping
// only its incarnation count (nothing when bounded).
func (e *Emitter) release(l *life) {
	switch {
	case e.bounded:
		e.lives.del(l.key)
	case e.counts != nil && l.scope == "":
		// lives holds l, or an earlier incarnation of its key closed
		// without its result, or nothing.
		e.lives.del(l.key)
		e.counts.SetCount(l.fam, l.id, l.n)
	default:
		e.lives.set(l.key, entry{n: l.n})
	}
	if e.last == l {
		e.last = nil
	}
}

// await keeps the tool call l, closed without its result, among the last
// maxAwaiting such calls of a bounded Emitter, forgetting the oldest (if
// it still waits: it may have had its result, or its id a new call).
func (e *Emitter) await(l *life) {
	if len(e.awaiting) < maxAwaiting {
		e.awaiting = append(e.awaiting, l)
		return
	}
	old := e.awaiting[e.next]
	if (e.last == old || e.lives.get(old.key).l == old) && !old.open && !old.resulted {
		e.release(old)
	}
	e.awaiting[e.next] = l
	e.next = (e.next + 1) % maxAwaiting
}

func (e *Emitter) close(l *life, result map[string]any) error {
	l.open = false
	if l.fam != Tool || l.resulted {
		// A tool call stays until its result (at most one) has come.
		defer e.release(l)
	} else if e.bounded {
		e.await(l)
	}
	if !e.allowed(l.fam) {
		return nil
	}
	p := driver.StreamPayload{ScopeID: l.scope}
	switch l.fam {
	case Text:
		p.Kind, p.MessageID = driver.StreamTextEnd, l.emitID
	case Reasoning:
		p.Kind, p.MessageID = driver.StreamReasoningEnd, l.emitID
	case Tool:
		p.Kind, p.ToolCallID, p.Result = driver.StreamToolCallEnd, l.emitID, result
		p.ParentScopeID, p.ParentToolCallID = l.parentScope, l.parentTool
	}
	return e.send(&p)
}

// IsOpen reports whether the provider id's lifecycle is open.
func (e *Emitter) IsOpen(f Family, scope, id string) bool {
	l := e.life(key{f, scope, id})
	return l != nil && l.open
}

// ToolResult emits a standalone tool_call.result for a call that was
// started (open or closed). It emits nothing for an unknown call or a call
// that already has a result; it returns whether it emitted.
func (e *Emitter) ToolResult(scope, id string, result map[string]any) (bool, error) {
	if err := e.begin(); err != nil {
		return false, err
	}
	l := e.life(key{Tool, scope, id})
	if l == nil || l.resulted {
		return false, nil
	}
	l.resulted = true
	if !l.open {
		defer e.release(l)
	}
	return true, e.send(&driver.StreamPayload{Kind: driver.StreamToolCallResult, ScopeID: scope, ToolCallID: l.emitID, Result: result, ParentScopeID: l.parentScope, ParentToolCallID: l.parentTool})
}

// StepStarted opens a provider step (steps of one name may nest).
func (e *Emitter) StepStarted(name string) error {
	if err := e.begin(); err != nil || name == "" {
		return err
	}
	e.steps = append(e.steps, name)
	return e.send(&driver.StreamPayload{Kind: driver.StreamStepStarted, Name: name})
}

// StepFinished closes the most recent open step of that name; it is a no-op
// when none is open.
func (e *Emitter) StepFinished(name string) error {
	if err := e.begin(); err != nil {
		return err
	}
	for i := len(e.steps) - 1; i >= 0; i-- {
		if e.steps[i] == name {
			e.steps = append(e.steps[:i], e.steps[i+1:]...)
			return e.send(&driver.StreamPayload{Kind: driver.StreamStepFinished, Name: name})
		}
	}
	return nil
}

// HITLRequested emits a hitl.requested audit payload when the capability
// has HITL.
func (e *Emitter) HITLRequested(req driver.HITLRequestedPayload) error {
	if err := e.begin(); err != nil || !e.cap.HITL {
		return err
	}
	return e.send(&driver.StreamPayload{Kind: driver.StreamHITLRequested, HITLRequested: &req})
}

// HITLResolved emits a hitl.resolved audit payload when the capability has
// HITL.
func (e *Emitter) HITLResolved(res driver.HITLResolvedPayload) error {
	if err := e.begin(); err != nil || !e.cap.HITL {
		return err
	}
	return e.send(&driver.StreamPayload{Kind: driver.StreamHITLResolved, HITLResolved: &res})
}

// Dropped reports provider-side loss of n events.
func (e *Emitter) Dropped(n int, raw map[string]any) error {
	if err := e.begin(); err != nil {
		return err
	}
	r := map[string]any{"dropped_count": n}
	for k, v := range raw {
		if k != "dropped_count" {
			r[k] = v
		}
	}
	return e.send(&driver.StreamPayload{Kind: driver.StreamDropped, Raw: r})
}

// Custom emits a provider event that has no canonical kind, as the custom
// kind provider/event with its fields in raw. An empty provider or event is
// replaced by "unknown" so the kind stays well-formed.
func (e *Emitter) Custom(provider, event string, p driver.StreamPayload) error {
	if err := e.begin(); err != nil {
		return err
	}
	p.Kind = e.customKind(knownName(provider), knownName(event))
	// Envelope fields belong to the host or to canonical kinds.
	p.Sequence, p.Seq, p.Role, p.Timestamp = 0, 0, driver.RoleAssistant, time.Time{}
	p.HITLRequested, p.HITLResolved = nil, nil
	return e.send(&p)
}

// CustomRaw is Custom of a payload whose only member is raw (a provider
// event kept whole, the usual custom payload), without building one: the
// Emitter sends a payload it keeps, as Delta does. A flood of one event
// (keep-alives, an unknown event repeated) so costs its copy into the
// sink and little more.
func (e *Emitter) CustomRaw(provider, event string, raw map[string]any) error {
	if err := e.begin(); err != nil {
		return err
	}
	p := &e.custom
	p.Kind, p.Role, p.Raw = e.customKind(knownName(provider), knownName(event)), driver.RoleAssistant, raw
	return e.send(p)
}

// knownName is a custom kind's provider or event name, "unknown" for an
// empty one, so that the kind stays well-formed.
func knownName(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// maxKinds bounds Emitter.kinds: events named by the input (unknown
// types) must not grow it without end.
const maxKinds = 64

// customKind is driver.CustomKind(provider, event), built once per event.
func (e *Emitter) customKind(provider, event string) driver.StreamKind {
	if e.kinds != nil && same(provider, e.kindsOf) && same(event, e.lastEvent) {
		return e.lastKind // a flood of one event: not even a lookup
	}
	k := e.customKindOf(provider, event)
	e.lastEvent, e.lastKind = event, k
	return k
}

// same is a == b, without a call when they are one string (a parser's
// constant, or the string it passed last time).
func same(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// customKindOf is customKind through the cache of kinds.
func (e *Emitter) customKindOf(provider, event string) driver.StreamKind {
	if provider != e.kindsOf || e.kinds == nil {
		e.kindsOf, e.kinds = provider, map[string]driver.StreamKind{}
	}
	if k, ok := e.kinds[event]; ok {
		return k
	}
	k := driver.CustomKind(provider, event)
	if len(e.kinds) < maxKinds {
		e.kinds[event] = k
	}
	return k
}

// Finish closes every open lifecycle (in opening order, then open steps,
// innermost first) and emits the terminal: run.finished with usage when
// failure is nil, else run.error carrying failure (a failure without a
// message gets "run failed"). It is emitted exactly once; later calls
// return ErrFinished. If nothing was emitted yet, run.started comes first.
func (e *Emitter) Finish(usage *driver.Usage, failure *driver.RunFailure) error {
	return e.FinishWith(usage, nil, failure)
}

// FinishWith is Finish for protocols that report a finish reason: finish
// travels on run.finished, or on run.error when its Reason is
// driver.FinishError (any other finish beside a failure is dropped, as the
// contract forbids it). Usage never travels on run.error.
func (e *Emitter) FinishWith(usage *driver.Usage, finish *driver.Finish, failure *driver.RunFailure) error {
	if err := e.begin(); err != nil {
		return err
	}
	var open []*life
	e.lives.each(func(en entry) {
		if l := en.l; l != nil && l.open && l != e.last {
			open = append(open, l)
		}
	})
	if l := e.last; l != nil && l.open {
		open = append(open, l)
	}
	slices.SortFunc(open, func(a, b *life) int { return a.order - b.order })
	for _, l := range open {
		if err := e.close(l, nil); err != nil {
			return err
		}
	}
	for i := len(e.steps) - 1; i >= 0; i-- {
		if err := e.send(&driver.StreamPayload{Kind: driver.StreamStepFinished, Name: e.steps[i]}); err != nil {
			return err
		}
	}
	e.steps = nil
	e.finished = true
	if failure != nil {
		f := *failure
		if f.Message == "" {
			f.Message = "run failed"
		}
		p := driver.StreamPayload{Kind: driver.StreamRunError, Error: &f}
		if finish != nil && finish.Reason == driver.FinishError {
			fin := *finish
			p.Finish = &fin
		}
		return e.send(&p)
	}
	p := driver.StreamPayload{Kind: driver.StreamRunFinished, Usage: usage}
	if finish != nil {
		fin := *finish
		p.Finish = &fin
	}
	return e.send(&p)
}
