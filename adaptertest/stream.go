package adaptertest

import (
	"cmp"
	"slices"

	"github.com/agentwire/agentwire/driver"
)

// CheckStream validates the StreamPayload sequence of one streaming run
// (Request.Streaming true) against the lifecycle contract of
// driver.StreamKind and the negative rules of capability. It checks clauses
// EVT-01 to EVT-14 and the payload rules of FIN-01 to FIN-04 and returns the violations in input order, followed by
// end-of-stream findings (Index -1). A nil result means the stream conforms.
//
// Lifecycle identity: a text or reasoning lifecycle is the pair (ScopeID,
// MessageID), a tool call the pair (ScopeID, ToolCallID), a step its Name
// (steps of one name may nest; each finished closes one started). Text and
// reasoning ids are separate namespaces. Custom kinds obey ordering only.
func CheckStream(capability driver.StreamCapability, payloads []driver.StreamPayload) Violations {
	s := newStreamState(capability)
	for i := range payloads {
		s.feed(i, &payloads[i])
	}
	s.finish()
	return s.c.out
}

type lifeKey struct{ scope, id string }

type lifeState uint8

const (
	lifeOpen lifeState = iota + 1
	lifeClosed
)

// lifeMap is the states of one family's text or reasoning lifecycles by
// id, with the last one looked up held beside the map: a lifecycle's
// payloads mostly come one after the other (start, content, end), so its
// later payloads read and write the held entry, and the map is written
// once per lifecycle, when another is looked up (against a lookup per
// payload and a write per change of state). Everything that reads the map
// whole flushes the held entry first.
type lifeMap struct {
	m     map[lifeKey]lifeState
	last  lifeKey
	st    lifeState // last's state
	has   bool      // last is held
	dirty bool      // st is not yet in m
}

// get returns k's state (0: never opened) and holds k.
func (l *lifeMap) get(k lifeKey) lifeState {
	if l.has && l.last == k {
		return l.st
	}
	l.flush()
	l.last, l.st, l.has = k, l.m[k], true
	return l.st
}

// set sets the state of k, the key get last returned.
func (l *lifeMap) set(st lifeState) { l.st, l.dirty = st, true }

// forget removes the key get last returned.
func (l *lifeMap) forget() {
	delete(l.m, l.last)
	l.has, l.dirty = false, false
}

// flush writes the held entry to m.
func (l *lifeMap) flush() {
	if l.dirty {
		l.m[l.last] = l.st
		l.dirty = false
	}
}

type toolState struct {
	state        lifeState
	completeArgs bool
	resulted     bool
	parentScope  string
	parentToolID string
	firstPayload int
}

type streamState struct {
	c   collector
	cap driver.StreamCapability

	started    bool
	terminalAt int
	text       lifeMap
	reasoning  lifeMap
	tools      map[lifeKey]*toolState
	// lastTool is the tool call looked up last (lastToolKey), held as
	// lifeMap holds its last: pending says it is not yet in tools.
	lastTool    *toolState
	lastToolKey lifeKey
	hasTool     bool
	pending     bool
	steps       map[string]int
	capFlagged  map[string]bool
	// lastKind is the last kind kindValid judged that is not canonical,
	// lastKindValid its verdict.
	lastKind      driver.StreamKind
	lastKindValid bool
	hasKind       bool

	// bounded (Checker.Bounded) forgets a lifecycle once it is
	// over; awaiting holds the last maxAwaiting tool calls closed without
	// a result (some may have had it since), next the slot the next one
	// takes.
	bounded  bool
	awaiting []awaitingTool
	next     int
}

// maxAwaiting bounds the tool calls a bounded Checker keeps for a later
// tool_call.result: a call closed without its result is forgotten once
// maxAwaiting more have been closed without theirs. It is more than
// internal/emit's (1024), so that every result a bounded Emitter still
// emits is judged against its call (TestBoundedAwaiting there).
const maxAwaiting = 4096

type awaitingTool struct {
	k lifeKey
	t *toolState
}

func newStreamState(capability driver.StreamCapability) *streamState {
	return &streamState{
		cap:        capability,
		terminalAt: -1,
		text:       lifeMap{m: map[lifeKey]lifeState{}},
		reasoning:  lifeMap{m: map[lifeKey]lifeState{}},
		tools:      map[lifeKey]*toolState{},
		steps:      map[string]int{},
		capFlagged: map[string]bool{},
	}
}

func (s *streamState) feed(i int, p *driver.StreamPayload) {
	c := &s.c
	// Envelope rules hold for every payload, wherever it stands.
	if p.Role != driver.RoleAssistant {
		c.add("EVT-09", i, "%s has Role %q; drivers leave Role at its zero value (assistant)", p.Kind, p.Role)
	}
	if p.Sequence != 0 || p.Seq != 0 || !p.Timestamp.IsZero() {
		c.add("EVT-10", i, "%s sets Sequence/Seq/Timestamp; the host assigns them", p.Kind)
	}
	if !s.kindValid(p.Kind) {
		c.add("EVT-08", i, "kind %q is neither canonical nor a custom <provider>/<event> kind", p.Kind)
	}

	// Ordering: run.started first and once; nothing after the terminal.
	if s.terminalAt >= 0 {
		c.add("EVT-02", i, "%s after the terminal payload #%d", p.Kind, s.terminalAt)
		return
	}
	if p.Kind == driver.StreamRunStarted {
		if s.started {
			c.add("EVT-01", i, "second run.started")
		} else if i != 0 {
			c.add("EVT-01", i, "run.started is not the first payload")
		}
		s.started = true
	} else if !s.started && i == 0 {
		c.add("EVT-01", i, "first payload is %s, not run.started", p.Kind)
	}

	s.checkCapability(i, p)
	s.checkFinishPayload(i, p)

	switch p.Kind {
	case driver.StreamRunStarted, driver.StreamRunFinished, driver.StreamRunError:
		if p.MessageID != "" || p.ToolCallID != "" {
			c.add("EVT-13", i, "%s carries MessageID %q / ToolCallID %q; run frames are not message or tool lifecycles", p.Kind, p.MessageID, p.ToolCallID)
		}
		if p.Kind == driver.StreamRunError && (p.Error == nil || p.Error.Message == "") {
			c.add("EVT-02", i, "run.error without an Error message")
		}
		if p.Kind.IsTerminal() {
			s.closeAll(i)
			s.terminalAt = i
		}
	case driver.StreamTextStart, driver.StreamTextContent, driver.StreamTextEnd:
		s.message(i, p, &s.text, "EVT-03", "EVT-04", "text", driver.StreamTextStart, driver.StreamTextContent)
	case driver.StreamReasoningStart, driver.StreamReasoningContent, driver.StreamReasoningEnd:
		s.message(i, p, &s.reasoning, "EVT-06", "EVT-06", "reasoning", driver.StreamReasoningStart, driver.StreamReasoningContent)
	case driver.StreamToolCallStart, driver.StreamToolCallArgs, driver.StreamToolCallEnd, driver.StreamToolCallResult:
		s.toolPayload(i, p)
	case driver.StreamStepStarted, driver.StreamStepFinished:
		if p.Name == "" {
			c.add("EVT-07", i, "%s without a Name", p.Kind)
			break
		}
		if p.Kind == driver.StreamStepStarted {
			s.steps[p.Name]++
		} else if s.steps[p.Name] == 0 {
			c.add("EVT-07", i, "step.finished %q without an open step.started", p.Name)
		} else {
			s.steps[p.Name]--
		}
	case driver.StreamHITLRequested:
		if p.HITLRequested == nil {
			c.add("EVT-08", i, "hitl.requested without its HITLRequested envelope")
		}
	case driver.StreamHITLResolved:
		if p.HITLResolved == nil {
			c.add("EVT-08", i, "hitl.resolved without its HITLResolved envelope")
		}
	case driver.StreamDropped:
		if _, ok := p.Raw["dropped_count"]; !ok {
			c.add("EVT-08", i, "stream.dropped without Raw[\"dropped_count\"]")
		}
	}
}

// checkCapability applies the hard negative rules, reporting the first
// offence of each family.
// kindValid reports whether k is canonical or custom, the verdict on the
// kind before held (a stream of custom payloads repeats its kinds, whose
// IsCustom is a search for its slash).
func (s *streamState) kindValid(k driver.StreamKind) bool {
	if k.IsCanonical() {
		return true
	}
	if s.hasKind && k == s.lastKind {
		return s.lastKindValid
	}
	s.lastKind, s.lastKindValid, s.hasKind = k, k.IsCustom(), true
	return s.lastKindValid
}

func (s *streamState) checkCapability(i int, p *driver.StreamPayload) {
	family := ""
	switch p.Kind {
	case driver.StreamReasoningStart, driver.StreamReasoningContent, driver.StreamReasoningEnd:
		if !s.cap.Reasoning {
			family = "reasoning (Reasoning=false)"
		}
	case driver.StreamToolCallArgs:
		if !s.cap.ToolCallArgs {
			family = "tool_call.args (ToolCallArgs=false)"
		}
	case driver.StreamHITLRequested, driver.StreamHITLResolved:
		if !s.cap.HITL {
			family = "hitl (HITL=false)"
		}
	}
	if family != "" && !s.capFlagged[family] {
		s.capFlagged[family] = true
		s.c.add("EVT-12", i, "%s emitted although the capability forbids %s", p.Kind, family)
	}
}

func (s *streamState) message(i int, p *driver.StreamPayload, m *lifeMap, clause, deltaClause, family string, start, content driver.StreamKind) {
	c := &s.c
	if p.MessageID == "" {
		c.add(clause, i, "%s without a MessageID", p.Kind)
		return
	}
	st := m.get(lifeKey{p.ScopeID, p.MessageID})
	switch p.Kind {
	case start:
		switch st {
		case lifeOpen:
			c.add(clause, i, "%s %q opened while already open", p.Kind, p.MessageID)
		case lifeClosed:
			c.add(clause, i, "%s %q reopened after its end", p.Kind, p.MessageID)
		default:
			m.set(lifeOpen)
		}
	case content:
		if st != lifeOpen {
			c.add(clause, i, "%s for %s %q that is not open", p.Kind, family, p.MessageID)
		}
		if p.Delta == "" {
			c.add(deltaClause, i, "%s %q with an empty Delta", p.Kind, p.MessageID)
		}
	default: // end
		switch {
		case st != lifeOpen:
			c.add(clause, i, "%s for %s %q that is not open", p.Kind, family, p.MessageID)
		case s.bounded:
			m.forget()
		default:
			m.set(lifeClosed)
		}
	}
}

// tool returns the tool call of k (nil: never started) and holds k.
func (s *streamState) tool(k lifeKey) *toolState {
	if s.hasTool && s.lastToolKey == k {
		return s.lastTool
	}
	s.flushTool()
	s.lastToolKey, s.lastTool, s.hasTool = k, s.tools[k], true
	return s.lastTool
}

// flushTool writes the held tool call to tools.
func (s *streamState) flushTool() {
	if s.pending {
		s.tools[s.lastToolKey] = s.lastTool
		s.pending = false
	}
}

// flush writes every held lifecycle to its map, for what reads the maps
// whole.
func (s *streamState) flush() {
	s.text.flush()
	s.reasoning.flush()
	s.flushTool()
}

func (s *streamState) toolPayload(i int, p *driver.StreamPayload) {
	c := &s.c
	if p.ToolCallID == "" {
		c.add("EVT-05", i, "%s without a ToolCallID", p.Kind)
		return
	}
	k := lifeKey{p.ScopeID, p.ToolCallID}
	t := s.tool(k)
	if t != nil && (p.ParentScopeID != t.parentScope || p.ParentToolCallID != t.parentToolID) {
		c.add("EVT-14", i, "%s %q changes its parent coordinates from (%q, %q) to (%q, %q)", p.Kind, p.ToolCallID, t.parentScope, t.parentToolID, p.ParentScopeID, p.ParentToolCallID)
	}
	switch p.Kind {
	case driver.StreamToolCallStart:
		if p.Name == "" {
			c.add("EVT-05", i, "tool_call.start %q without a Name", p.ToolCallID)
		}
		if p.ParentToolCallID == p.ToolCallID && p.ParentScopeID == p.ScopeID {
			c.add("EVT-14", i, "tool_call.start %q names itself as its parent", p.ToolCallID)
		}
		if t != nil {
			c.add("EVT-05", i, "tool_call.start %q: the id was already started at #%d", p.ToolCallID, t.firstPayload)
			return
		}
		s.lastTool = &toolState{state: lifeOpen, completeArgs: p.Args != nil, parentScope: p.ParentScopeID, parentToolID: p.ParentToolCallID, firstPayload: i}
		s.pending = true
	case driver.StreamToolCallArgs:
		switch {
		case t == nil || t.state != lifeOpen:
			c.add("EVT-05", i, "tool_call.args for tool call %q that is not open", p.ToolCallID)
		case t.completeArgs:
			c.add("EVT-14", i, "tool_call.args for %q whose start carried the complete Args", p.ToolCallID)
		}
		if p.Delta == "" {
			c.add("EVT-05", i, "tool_call.args %q with an empty Delta", p.ToolCallID)
		}
	case driver.StreamToolCallEnd:
		if t == nil || t.state != lifeOpen {
			c.add("EVT-05", i, "tool_call.end for tool call %q that is not open", p.ToolCallID)
			return
		}
		t.state = lifeClosed
		if s.bounded {
			s.over(k, t)
		}
	case driver.StreamToolCallResult:
		if t == nil {
			c.add("EVT-05", i, "tool_call.result for tool call %q that was never started", p.ToolCallID)
			return
		}
		if t.resulted {
			c.add("EVT-14", i, "second tool_call.result for %q", p.ToolCallID)
		}
		t.resulted = true
		if s.bounded && t.state == lifeClosed {
			s.over(k, t)
		}
	}
}

// over forgets the tool call t of a bounded Checker once it is closed and
// has its result; closed without one, it joins the last maxAwaiting such
// calls, and the oldest of them is forgotten.
func (s *streamState) over(k lifeKey, t *toolState) {
	if t.resulted {
		// k is the one held (over follows its lookup).
		delete(s.tools, k)
		s.hasTool, s.pending = false, false
		return
	}
	s.flushTool()
	a := awaitingTool{k, t}
	if len(s.awaiting) < maxAwaiting {
		s.awaiting = append(s.awaiting, a)
		return
	}
	old := s.awaiting[s.next]
	if s.tools[old.k] == old.t {
		delete(s.tools, old.k)
		if s.hasTool && s.lastToolKey == old.k {
			s.hasTool = false
		}
	}
	s.awaiting[s.next] = a
	s.next = (s.next + 1) % maxAwaiting
}

// closeAll reports every lifecycle still open at the terminal (EVT-11).
func (s *streamState) closeAll(at int) {
	s.flush()
	report := func(family string, keys []lifeKey) {
		slices.SortFunc(keys, func(a, b lifeKey) int { return cmp.Or(cmp.Compare(a.scope, b.scope), cmp.Compare(a.id, b.id)) })
		for _, k := range keys {
			if k.scope != "" {
				s.c.add("EVT-11", at, "%s %q (scope %q) still open at the terminal", family, k.id, k.scope)
			} else {
				s.c.add("EVT-11", at, "%s %q still open at the terminal", family, k.id)
			}
		}
	}
	open := func(m map[lifeKey]lifeState) []lifeKey {
		var keys []lifeKey
		for k, st := range m {
			if st == lifeOpen {
				keys = append(keys, k)
			}
		}
		return keys
	}
	report("text", open(s.text.m))
	report("reasoning", open(s.reasoning.m))
	var tools []lifeKey
	for k, t := range s.tools {
		if t.state == lifeOpen {
			tools = append(tools, k)
		}
	}
	report("tool call", tools)
	var steps []lifeKey
	for name, n := range s.steps {
		if n > 0 {
			steps = append(steps, lifeKey{id: name})
		}
	}
	report("step", steps)
}

func (s *streamState) finish() {
	if !s.started {
		s.c.add("EVT-01", -1, "no run.started payload")
	}
	if s.terminalAt < 0 {
		s.c.add("EVT-02", -1, "no terminal payload (run.finished or run.error)")
		s.closeAll(-1)
	}
}
