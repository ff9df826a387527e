package gemini

import (
	"bytes"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The event fast path. Nearly every event of a stream is a text chunk:
//
//	{"candidates": [{"content": {"parts": [{"text": "..."}],"role": "model"},
//	 "index": 0}],"usageMetadata": {...},"modelVersion": "...","responseId": "..."}
//
// fastEvent reads that shape in one strict pass that validates as it goes
// (jsonguard's strict readers: StrictMembers, StrictValue for the
// usageMetadata object it keeps whole), instead of jsonguard's validating
// pass followed by the member walk (which scans the candidates a second
// time). It takes only the events whose walk it can give exactly: the
// members below, each once, each of the type the walk maps without a
// problem; on anything else (another member, a part with a function call,
// a duplicate, a null, invalid JSON) it declines, and the caller validates
// and walks the event, which gives the same event or the error.
// FuzzFastEvent holds the two to the same result. An event that repeats
// one it read before but for its string values and numbers, as the text
// chunks of a stream do, is not read again but replayed from that one's
// shape (fastShapes).

// Member bits of fastEvent's duplicate checks.
const (
	fastCandidates = 1 << iota
	fastUsage
	fastModel
	fastResponse
	fastCreate
)

// fastTail is the members after the candidates of the last event
// fastEvent read whole with the candidates first: their bytes, from the
// comma after the candidates to the end, as a jsonguard.Shape (string
// values and numbers varying), and where the values fastEvent keeps lie
// in them. Every event of a stream repeats them but for the counts of
// usageMetadata, and fastEvent's reading of them depends on their values
// only through their extent (it keeps the usage object, the model
// version, the response id and the create time whole; usageMemo checks
// what Shape checks), so the members after candidates that the shape
// matches read as the shape's did, with the spans moved. The shape is
// learnt again after 1, 2, 4, 8, ... events in a row that it did not
// match.
type fastTail struct {
	s      jsonguard.Shape
	close  int                    // the object's closing brace, counted from the end
	spans  [4]jsonguard.ShapeSpan // usageRaw, modelVersion, responseID, createTime
	has    [4]bool                // which of them the event has
	misses int
}

// fastShape is an event fastEvent learnt: its bytes as a jsonguard.Shape
// (string values and numbers varying) and fastRead's reading of them, with
// where the values the reading takes from the bytes lie in them. The
// reading depends on a varying value only through its extent (it keeps the
// usage object, the model version, the response id, the create time and the
// value of a code execution or function response part whole), but for a
// text part's text, which it decodes, and a candidate's index, which it
// parses: replay takes those again from the matched event's bytes as
// fastPart and fastCandidate do (jsonguard.AppendLiteral, StrictUint) and
// the others as Slice moves them. Everything else in the reading (how many
// candidates and parts, their kinds, the thought flags, which members are
// present) follows from the structure, member names and literals, which
// Match holds to. A reading that holds a string it decoded (a thought
// signature, a finish reason or message, a function call's name or id) is
// not learnt (no shape is replaced): a shape replays no decoded
// string, and such events come once in a turn.
type fastShape struct {
	s        jsonguard.Shape
	cands    []candidate // the reading's candidates, their spans nil
	hasCands bool        // candidatesRaw
	hasUsage bool
	counted  bool                   // usageCounted
	spans    []fastSpan             // the texts, indexes and part values
	tail     [4]jsonguard.ShapeSpan // the members tailFields lists
	tailHas  [4]bool                // which of them the event has
	used     uint                   // fastShapes.tick when it last matched or was learnt
}

// fastShapes are the shapes of the events fastEvent learnt last, a few
// so that a stream that alternates between kinds of event (thought
// summaries and answer text, a code execution and its result, each
// repeated) keeps one for each. An event that none matches is read
// whole; it is learnt, in place of the shape used least recently, after
// 1, 2, 4, 8, ... events in a row that none matched.
type fastShapes struct {
	s      [fastShapeSlots]fastShape
	last   int // the one that matched last, tried first
	tick   uint
	misses int
	notes  fastNotes
}

// fastShapeSlots is how many shapes fastShapes keeps.
const fastShapeSlots = 4

// noteKind is what a value of fastRead's reading is.
type noteKind uint8

const (
	noteText  noteKind = iota // a text part's literal
	noteIndex                 // a candidate's index
	noteVal                   // a part's whole value (part.val)
)

// fastSpan is a value of the learnt reading: what it is, its candidate and
// part (where it has them) and where it lies in the shape.
type fastSpan struct {
	kind noteKind
	c, p int
	sp   jsonguard.ShapeSpan
}

// fastNotes is what fastRead notes, when it reads an event to be learnt,
// of the values the reading holds decoded or parsed (their bytes) and
// whether it holds a decoded string. The methods do nothing on a nil
// fastNotes.
type fastNotes struct {
	lits []fastNote
	dec  bool
}

// fastNote is a value fastRead noted: what it is, its candidate and part,
// and its bytes.
type fastNote struct {
	kind noteKind
	c, p int
	b    []byte
}

func (n *fastNotes) reset() { n.lits, n.dec = n.lits[:0], false }

func (n *fastNotes) note(k noteKind, c, p int, b []byte) {
	if n != nil {
		n.lits = append(n.lits, fastNote{k, c, p, b})
	}
}

func (n *fastNotes) decoded() {
	if n != nil {
		n.dec = true
	}
}

// learn remembers d, which fastRead read into ev noting notes, as the
// shape, unless the reading holds a decoded string; it reports whether it
// did.
func (sh *fastShape) learn(d []byte, ev *event, notes *fastNotes) bool {
	if notes.dec {
		return false
	}
	for _, c := range ev.candidates {
		for _, p := range c.parts {
			if p.kind == partFunctionCall {
				return false
			}
		}
	}
	sh.s.Learn(d, true)
	sh.hasCands, sh.hasUsage, sh.counted = ev.candidatesRaw, ev.hasUsage, namesCount(ev.usageRaw)
	sh.spans = sh.spans[:0]
	add := func(k noteKind, c, p int, b []byte) {
		sh.spans = append(sh.spans, fastSpan{k, c, p, sh.s.SpanOf(d, b)})
	}
	for _, n := range notes.lits {
		add(n.kind, n.c, n.p, n.b)
	}
	cands := sh.cands[:0] // the shape's own storage, as replay keeps ev's
	for ci, c := range ev.candidates {
		if len(cands) < cap(cands) {
			cands = cands[:ci+1]
		} else {
			cands = append(cands, candidate{})
		}
		sc := &cands[ci]
		parts := sc.parts[:0]
		for pi, p := range c.parts {
			if p.val != nil {
				add(noteVal, ci, pi, p.val)
			}
			p.text, p.val, p.extras = nil, nil, nil
			parts = append(parts, p)
		}
		*sc = c
		sc.parts, sc.extras = parts, nil
	}
	sh.cands = cands
	for k, f := range tailFields(ev) {
		if sh.tailHas[k] = *f != nil; sh.tailHas[k] {
			sh.tail[k] = sh.s.SpanOf(d, *f)
		}
	}
	return true
}

// replay fills ev, reset, from the event Match took last, as fastRead
// would read it; it reports false (ev then unspecified) when a candidate's
// index there is not one fastCandidate takes. warm says that the
// candidates in ev's storage are the shape's, as the last replay left
// them (event.replayed), so that only the spans are to be set.
func (sh *fastShape) replay(ev *event, warm bool) bool {
	cands := ev.candidates[:0]
	if warm {
		cands = cands[:len(sh.cands)]
	} else {
		for k := range sh.cands {
			if len(cands) < cap(cands) {
				cands = cands[:k+1]
			} else {
				cands = append(cands, candidate{})
			}
			sc, c := &sh.cands[k], &cands[k]
			parts, extras := c.parts[:0], c.extras[:0]
			for j := range sc.parts {
				if len(parts) < cap(parts) {
					parts = parts[:j+1]
				} else {
					parts = append(parts, part{})
				}
				p := &parts[j]
				pe := p.extras[:0]
				*p = sc.parts[j]
				p.extras = pe
			}
			*c = *sc
			c.parts, c.extras = parts, extras
		}
	}
	ev.candidates, ev.candidatesRaw, ev.hasUsage, ev.usageCounted = cands, sh.hasCands, sh.hasUsage, sh.counted
	s := &sh.s
	// The members after the candidates, in tailFields' order.
	if sh.tailHas[0] {
		ev.usageRaw = s.Slice(sh.tail[0])
	}
	if sh.tailHas[1] {
		ev.modelVersion = s.Slice(sh.tail[1])
	}
	if sh.tailHas[2] {
		ev.responseID = s.Slice(sh.tail[2])
	}
	if sh.tailHas[3] {
		ev.createTime = s.Slice(sh.tail[3])
	}
	for k := range sh.spans {
		x := &sh.spans[k]
		b := s.Slice(x.sp)
		switch x.kind {
		case noteText:
			n := len(ev.texts)
			out, end, ok := jsonguard.AppendLiteral(ev.texts, b, 0)
			if !ok || end != len(b) {
				return false
			}
			ev.texts = out
			cands[x.c].parts[x.p].text = out[n:len(out):len(out)]
		case noteIndex:
			if len(b) == 1 && b[0]-'0' <= 9 {
				// A digit: StrictUint's reading, in line.
				cands[x.c].index = int(b[0] - '0')
				break
			}
			n, end := jsonguard.StrictUint(b, 0)
			if end != len(b) {
				return false
			}
			cands[x.c].index = n
		case noteVal:
			cands[x.c].parts[x.p].val = b
		}
	}
	return true
}

// namesCount reports whether the usage object u has a member whose name
// ends in TokenCount: the bytes TokenCount" then a colon (after
// whitespace) are the end of a name, never of a string value, and a
// shape's names are in every value it matches, so the usage of every
// event replayed from a shape learnt with such a name holds them (what
// Parser.object looks for).
func namesCount(u []byte) bool {
	for i := 0; ; {
		k := bytes.Index(u[i:], countName)
		if k < 0 {
			return false
		}
		i += k + len(countName)
		if j := jsonguard.SkipWS(u, i); j < len(u) && u[j] == ':' {
			return true
		}
	}
}

// countName is how the names of usageMetadata's counts end
// (promptTokenCount, candidatesTokenCount, ...) with the closing quote.
var countName = []byte(`TokenCount"`)

// tailFields are the members of ev fastTail keeps, in its order.
func tailFields(ev *event) [4]*[]byte {
	return [4]*[]byte{&ev.usageRaw, &ev.modelVersion, &ev.responseID, &ev.createTime}
}

// fastEvent fills ev from the event data d as the slow path (reset, then
// jsonguard.Members.Check handing each top-level member to ev.member)
// would; ok is false (ev then unspecified) when it declines. An event one
// of ev's shapes matches is replayed from it (fastShapes); any other is
// read (fastRead).
func fastEvent(d []byte, ev *event) (ok bool) {
	if ev.shapes == nil {
		ev.reset()
	}
	shs, replayed := ev.shapes, ev.replayed
	shs.tick++
	for k := range fastShapeSlots {
		j := shs.last + k
		if j >= fastShapeSlots {
			j -= fastShapeSlots
		}
		sh := &shs.s[j]
		if !sh.s.Match(d) {
			continue
		}
		warm := replayed == j+1
		if warm {
			// ev is the reset event with this shape's last replay in it,
			// which the replay writes over: only the texts are to go.
			ev.texts = ev.texts[:0]
		} else {
			ev.reset()
		}
		if sh.replay(ev, warm) {
			shs.last, sh.used, shs.misses = j, shs.tick, 0
			ev.replayed = j + 1
			return true
		}
		break
	}
	ev.reset()
	shs.misses++
	var notes *fastNotes
	if shs.misses&(shs.misses-1) == 0 {
		notes = &shs.notes
		notes.reset()
	}
	if !fastRead(d, ev, notes) {
		return false
	}
	if notes != nil {
		j := 0
		for k := range shs.s {
			if shs.s[k].used < shs.s[j].used {
				j = k
			}
		}
		if shs.s[j].learn(d, ev, notes) {
			shs.last, shs.s[j].used = j, shs.tick
		}
	}
	return true
}

// fastRead is fastEvent's reading of d from its bytes; notes, when not
// nil, collects what fastShape.learn needs of the reading. ev must be
// reset.
func fastRead(d []byte, ev *event, notes *fastNotes) (ok bool) {
	i := jsonguard.SkipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		return false
	}
	tail := ev.tail
	var seen seenOnce
	first, candEnd, learn := true, -1, false
	end := jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		wasFirst := first
		first = false
		switch string(name) {
		case `"candidates"`:
			if !seen.once(fastCandidates) || d[i] != '[' {
				return -1
			}
			ev.candidatesRaw = true
			cands := ev.candidates[:0]
			end := jsonguard.StrictElements(d, i, func(i int) int {
				if d[i] != '{' {
					return -1
				}
				if len(cands) < cap(cands) {
					cands = cands[:len(cands)+1]
				} else {
					cands = append(cands, candidate{})
				}
				return fastCandidate(d, i, &cands[len(cands)-1], &ev.texts, notes, len(cands)-1)
			})
			ev.candidates = cands
			if end < 0 || !wasFirst {
				return end
			}
			if tail.s.Match(d[end:]) {
				// The members after the candidates are the shape's: the
				// value read here ends, as far as StrictMembers is
				// concerned, at the object's closing brace.
				tail.misses = 0
				f := tailFields(ev)
				for k, sp := range tail.spans {
					if tail.has[k] {
						*f[k] = tail.s.Slice(sp)
					}
				}
				ev.hasUsage = tail.has[0]
				return len(d) - tail.close
			}
			tail.misses++
			candEnd, learn = end, tail.misses&(tail.misses-1) == 0
			return end
		case `"usageMetadata"`:
			if !seen.once(fastUsage) || d[i] != '{' {
				return -1
			}
			end := ev.usageMemo.Object(d, i, fastUsageDepth)
			if end < 0 {
				return -1
			}
			ev.hasUsage, ev.usageRaw = true, d[i:end]
			return end
		case `"modelVersion"`:
			return fastLiteral(d, i, &ev.modelVersion, seen.once(fastModel))
		case `"responseId"`:
			return fastLiteral(d, i, &ev.responseID, seen.once(fastResponse))
		case `"createTime"`:
			return fastLiteral(d, i, &ev.createTime, seen.once(fastCreate))
		}
		return -1
	})
	if end < 0 || jsonguard.SkipWS(d, end) != len(d) {
		return false
	}
	if learn {
		// Read whole with the candidates first: every other member is
		// in d[candEnd:].
		t := d[candEnd:]
		tail.s.Learn(t, true)
		tail.close = len(d) - (end - 1)
		for k, f := range tailFields(ev) {
			if tail.has[k] = *f != nil; tail.has[k] {
				tail.spans[k] = tail.s.SpanOf(t, *f)
			}
		}
	}
	return true
}

// fastUsageDepth bounds the nesting fastEvent accepts in usageMetadata
// (the object, its details arrays and their flat objects); deeper usage
// is left to the slow path.
const fastUsageDepth = 4

// fastLiteral keeps the string literal at d[i] in *dst and returns its
// end, or -1 when it is not a valid string literal or ok is false.
func fastLiteral(d []byte, i int, dst *[]byte, ok bool) int {
	end := jsonguard.StrictString(d, i)
	if !ok || end < 0 {
		return -1
	}
	*dst = d[i:end]
	return end
}

// Member bits of fastCandidate's and fastPart's duplicate checks.
const (
	fastContent = 1 << iota
	fastFinish
	fastFinishMessage
	fastIndex
	fastRole
	fastParts
	fastThought
	fastSignature
)

// fastCandidate reads the candidate object at d[i] into c as walkCandidate
// would, keeping c's storage, but for the text parts, whose text it
// decodes onto *texts (see fastPart); it returns the object's end or -1.
// ci is the candidate's place in candidates, for notes.
func fastCandidate(d []byte, i int, c *candidate, texts *[]byte, notes *fastNotes, ci int) int {
	parts, extras := c.parts[:0], c.extras[:0]
	*c = candidate{}
	var seen seenOnce
	end := jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"content"`:
			if !seen.once(fastContent) || d[i] != '{' {
				return -1
			}
			return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
				switch string(name) {
				case `"role"`:
					if !seen.once(fastRole) {
						return -1
					}
					return jsonguard.StrictString(d, i)
				case `"parts"`:
					if !seen.once(fastParts) || d[i] != '[' {
						return -1
					}
					return jsonguard.StrictElements(d, i, func(i int) int {
						if d[i] != '{' {
							return -1
						}
						if len(parts) < cap(parts) {
							parts = parts[:len(parts)+1]
						} else {
							parts = append(parts, part{})
						}
						return fastPart(d, i, &parts[len(parts)-1], texts, notes, ci, len(parts)-1)
					})
				}
				return -1
			})
		case `"finishReason"`:
			end := jsonguard.StrictString(d, i)
			if !seen.once(fastFinish) || end < 0 {
				return -1
			}
			setStr(&c.finishReason, d[i:end])
			notes.decoded()
			return end
		case `"finishMessage"`:
			end := jsonguard.StrictString(d, i)
			if !seen.once(fastFinishMessage) || end < 0 {
				return -1
			}
			setStr(&c.finishMessage, d[i:end])
			notes.decoded()
			return end
		case `"index"`:
			n, end := jsonguard.StrictUint(d, i)
			if !seen.once(fastIndex) || end < 0 {
				return -1
			}
			c.index = n
			notes.note(noteIndex, ci, 0, d[i:end])
			return end
		}
		return -1
	})
	c.parts, c.extras = parts, extras
	return end
}

// fastPart reads the part object at d[i] into p as walkPart would, for a
// part of one data member (text, functionCall, functionResponse,
// executableCode, codeExecutionResult) and the thought and
// thoughtSignature members; it returns the object's end or -1. A text is
// validated and decoded in one pass (jsonguard.AppendLiteral) onto *texts
// and p.text is the decoded bytes (p.decoded), where walkPart keeps the
// literal for the parser to decode. ci and pi are the part's candidate and
// its place in parts, for notes.
func fastPart(d []byte, i int, p *part, texts *[]byte, notes *fastNotes, ci, pi int) int {
	*p = part{extras: p.extras[:0]}
	var seen seenOnce
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"text"`:
			if p.kind != partEmpty || d[i] != '"' {
				return -1
			}
			n := len(*texts)
			out, end, ok := jsonguard.AppendLiteral(*texts, d, i)
			if !ok {
				return -1
			}
			*texts = out
			p.kind, p.text, p.decoded = partText, out[n:len(out):len(out)], true
			notes.note(noteText, ci, pi, d[i:end])
			return end
		case `"executableCode"`:
			return p.fastWhole(partExecutableCode, d, i)
		case `"codeExecutionResult"`:
			return p.fastWhole(partCodeResult, d, i)
		case `"functionResponse"`:
			return p.fastWhole(partFunctionResponse, d, i)
		case `"functionCall"`:
			if p.kind != partEmpty || d[i] != '{' {
				return -1
			}
			p.kind = partFunctionCall
			return fastFunctionCall(d, i, &p.fc)
		case `"thought"`:
			if !seen.once(fastThought) {
				return -1
			}
			switch {
			case jsonguard.HasLiteral(d, i, "true"):
				p.thought = true
				return i + 4
			case jsonguard.HasLiteral(d, i, "false"):
				return i + 5
			}
			return -1
		case `"thoughtSignature"`:
			end := jsonguard.StrictString(d, i)
			if !seen.once(fastSignature) || end < 0 {
				return -1
			}
			setStr(&p.signature, d[i:end])
			notes.decoded()
			return end
		}
		return -1
	})
}

// fastWholeDepth bounds the nesting fastPart accepts in a value it keeps
// whole (a function call's args, a code execution part); deeper values
// are left to the slow path.
const fastWholeDepth = 16

// fastWhole keeps the object at d[i] as the part's one data member of kind
// k, as setWhole does; it returns the object's end or -1.
func (p *part) fastWhole(k partKind, d []byte, i int) int {
	if p.kind != partEmpty || d[i] != '{' {
		return -1
	}
	end := jsonguard.StrictValue(d, i, fastWholeDepth)
	if end < 0 {
		return -1
	}
	p.kind, p.val = k, d[i:end]
	return end
}

// fastFunctionCall reads the functionCall object at d[i] into fc as
// walkFunctionCall would, for a call of name, id and args members only; it
// returns the object's end or -1.
func fastFunctionCall(d []byte, i int, fc *functionCall) int {
	*fc = functionCall{}
	var seen seenOnce
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"name"`:
			end := jsonguard.StrictString(d, i)
			if !seen.once(1) || end < 0 {
				return -1
			}
			setStr(&fc.name, d[i:end])
			return end
		case `"id"`:
			end := jsonguard.StrictString(d, i)
			if !seen.once(2) || end < 0 {
				return -1
			}
			setStr(&fc.id, d[i:end])
			return end
		case `"args"`:
			if !seen.once(4) || d[i] == 'n' {
				return -1
			}
			end := jsonguard.StrictValue(d, i, fastWholeDepth)
			if end < 0 {
				return -1
			}
			fc.args = d[i:end]
			return end
		}
		return -1
	})
}

// seenOnce records the members an object has had, one bit each: once
// reports whether bit is new (a duplicate member declines the fast path,
// since the walk keeps the last one).
type seenOnce uint

func (s *seenOnce) once(bit uint) bool {
	if uint(*s)&bit != 0 {
		return false
	}
	*s |= seenOnce(bit)
	return true
}
