package openai

import (
	"bytes"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The Chat chunk fast path. Nearly every chunk of a stream is one of a few
// shapes:
//
//	{"id":"...","object":"chat.completion.chunk","created":1770933892,"model":"...",
//	 "system_fingerprint":"...","choices":[{"index":0,"delta":{"content":"..."},
//	 "logprobs":null,"finish_reason":null}],"usage":null}
//
// with a reasoning delta, a tool_calls fragment or a finish_reason in
// place of the content, or no choice and the usage. fastChunk reads such a
// chunk in one strict pass that validates as it goes (jsonguard's strict
// readers) and collects what checkChunk and the walk of its choices
// (chatChoice, chatDelta) would, instead of jsonguard's validating pass
// followed by that walk over the same bytes. It takes only the chunks
// whose reading it can give exactly: member names without escapes, each
// member the parser reads at most once, choices that are objects with a
// whole-number index and an object delta, no content_filter_results or
// message; values nested at most fastDepth deep. On anything else
// (invalid JSON included) it declines and Feed validates and walks the
// chunk, which gives the same handling or the error. FuzzChatFast holds
// the parser with and without the fast path to the same result.

// fastDepth bounds the nesting of the values fastChunk validates whole
// (usage, tool_calls, logprobs, members it skips); a deeper value is left
// to the full path.
const fastDepth = 16

// fastChoice is one element of choices as fastChunk read it.
type fastChoice struct {
	index    int
	delta    cDelta
	hasDelta bool
	finish   []byte
}

// Member bits of fastChunk's duplicate checks, per object.
const (
	fcID = 1 << iota
	fcModel
	fcChoices
	fcUsage
	fcError
	fcXGroq
	fcFingerprint
	fcTier
)

const (
	fcIndex = 1 << iota
	fcDelta
	fcFinish
)

// fastMemo is the envelope of the last chunk fastChunk read up to its
// choices: every chunk of a stream repeats id, object, created, model,
// service_tier and system_fingerprint byte for byte before the choices,
// so a chunk that starts with the same bytes is read from its choices on
// (jsonguard.StrictMembersFrom), with the members before as they were
// read then. The members before the choices were validated and read
// before the choices were reached, so the memo holds even when the chunk
// was then declined.
type fastMemo struct {
	prefix []byte  // the chunk's bytes up to the name "choices"
	top    chatTop // the members read before it, slices of prefix
	seen   uint    // their duplicate-check bits
}

// fastShape is the last chunk fastChunk read whole, with what it read
// (slices of the shape's copy): every content or argument delta of a
// stream repeats the chunk before it except in its string values, and
// fastRead's reading of a chunk depends on a string value only through
// its extent (it keeps string values, it does not look into them), so a
// chunk the shape matches reads as the shape's chunk did, with its spans
// moved (jsonguard.Shape). Chunks of another shape leave it; it is learnt
// again after 1, 2, 4, 8, ... chunks in a row that it did not match, so
// that a stream of changing shapes does not read every chunk whole.
type fastShape struct {
	s      jsonguard.Shape
	top    chatTop      // the reading with no spans
	fast   []fastChoice // the same
	spans  []shapeSpan  // the spans
	misses int          // chunks in a row the shape did not match
}

// shapeSpan is a span of the reading: where it goes (chatSpan's j) and
// where it lies in the shape.
type shapeSpan struct {
	j  int
	sp jsonguard.ShapeSpan
}

// fastChunk fills p.ctop and p.fast from the chunk data d as checkChunk
// and the walk of its choices would; it reports false (p.ctop and p.fast
// then unspecified) when it declines.
func (p *Parser) fastChunk(d []byte) bool {
	sh := &p.fshape
	if sh.s.Match(d) {
		sh.misses = 0
		p.ctop = sh.top
		p.fast = append(p.fast[:0], sh.fast...)
		for _, x := range sh.spans {
			*chatSpan(&p.ctop, p.fast, x.j) = sh.s.Slice(x.sp)
		}
		return true
	}
	sh.misses++
	if sh.misses&(sh.misses-1) != 0 {
		if m := &p.fmemo; len(m.prefix) > 0 && bytes.HasPrefix(d, m.prefix) && p.fastRead(d, len(m.prefix), m.top, m.seen) {
			return true
		}
		return p.fastRead(d, -1, chatTop{}, 0)
	}
	// Read whole (every span a slice of d) and learn the shape.
	if !p.fastRead(d, -1, chatTop{}, 0) {
		return false
	}
	sh.s.Learn(d, false)
	sh.top, sh.fast, sh.spans = p.ctop, append(sh.fast[:0], p.fast...), sh.spans[:0]
	for j := range chatSpans(len(p.fast)) {
		if v := chatSpan(&sh.top, sh.fast, j); *v != nil {
			sh.spans = append(sh.spans, shapeSpan{j, sh.s.SpanOf(d, *v)})
			*v = nil
		}
	}
	return true
}

// chatSpans is the number of spans in a reading of n choices.
func chatSpans(n int) int { return 8 + 8*n }

// chatSpan returns span j of the reading t and choices: t's first, then
// each choice's.
func chatSpan(t *chatTop, choices []fastChoice, j int) *[]byte {
	switch j {
	case 0:
		return &t.id
	case 1:
		return &t.model
	case 2:
		return &t.choices
	case 3:
		return &t.usage
	case 4:
		return &t.errv
	case 5:
		return &t.xgroq
	case 6:
		return &t.fingerprint
	case 7:
		return &t.tier
	}
	c := &choices[(j-8)/8]
	switch (j - 8) % 8 {
	case 0:
		return &c.delta.content
	case 1:
		return &c.delta.refusal
	case 2:
		return &c.delta.reasoning
	case 3:
		return &c.delta.reasoningAlt
	case 4:
		return &c.delta.calls
	case 5:
		return &c.delta.fcall
	case 6:
		return &c.delta.annots
	}
	return &c.finish
}

// fastRead is fastChunk from the top of d (from < 0), or from the member
// name at d[from] with top and seen the reading of the members before it.
func (p *Parser) fastRead(d []byte, from int, top chatTop, seen uint) bool {
	t := &p.ctop
	*t = top
	p.fast = p.fast[:0]
	once := func(bit uint) bool {
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}
	keep := func(dst *[]byte, bit uint, i int) int {
		if !once(bit) {
			return -1
		}
		end := jsonguard.StrictValue(d, i, fastDepth)
		if end >= 0 {
			*dst = d[i:end]
		}
		return end
	}
	member := func(name []byte, i int) int {
		switch string(name) {
		case `"id"`:
			return keep(&t.id, fcID, i)
		case `"model"`:
			return keep(&t.model, fcModel, i)
		case `"usage"`:
			return keep(&t.usage, fcUsage, i)
		case `"error"`:
			return keep(&t.errv, fcError, i)
		case `"x_groq"`:
			return keep(&t.xgroq, fcXGroq, i)
		case `"system_fingerprint"`:
			return keep(&t.fingerprint, fcFingerprint, i)
		case `"service_tier"`:
			return keep(&t.tier, fcTier, i)
		case `"choices"`:
			if from < 0 {
				p.remember(d, cap(d)-cap(name), seen)
			}
			if !once(fcChoices) || d[i] != '[' {
				return -1
			}
			end := jsonguard.StrictElements(d, i, func(i int) int {
				if d[i] != '{' {
					return -1
				}
				p.fast = append(p.fast, fastChoice{})
				return fastChoiceAt(d, i, &p.fast[len(p.fast)-1])
			})
			if end >= 0 {
				t.choices, t.hasChoices = d[i:end], true
			}
			return end
		}
		// A member the parser does not read (object, created, obfuscation,
		// ...): validated, skipped.
		return jsonguard.StrictValue(d, i, fastDepth)
	}
	var end int
	if from >= 0 {
		end = jsonguard.StrictMembersFrom(d, from, member)
	} else {
		i := jsonguard.SkipWS(d, 0)
		if i >= len(d) || d[i] != '{' {
			return false
		}
		end = jsonguard.StrictMembers(d, i, member)
	}
	return end >= 0 && jsonguard.SkipWS(d, end) == len(d)
}

// remember makes d[:at], the bytes before the name "choices", the memo's
// prefix, with p.ctop and seen as read so far (all slices of d[:at]).
func (p *Parser) remember(d []byte, at int, seen uint) {
	m := &p.fmemo
	m.prefix = append(m.prefix[:0], d[:at]...)
	m.seen = seen
	in := func(v []byte) []byte {
		if v == nil {
			return nil
		}
		off := cap(d) - cap(v) // v is d[off:off+len(v)]
		return m.prefix[off : off+len(v) : off+len(v)]
	}
	t := &p.ctop
	m.top = chatTop{id: in(t.id), model: in(t.model), usage: in(t.usage), errv: in(t.errv),
		xgroq: in(t.xgroq), fingerprint: in(t.fingerprint), tier: in(t.tier)}
}

// fastChoiceAt reads the choice object at d[i] into c as chatChoice would;
// it returns the object's end or -1.
func fastChoiceAt(d []byte, i int, c *fastChoice) int {
	var seen uint
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		switch string(name) {
		case `"index"`:
			n, end := jsonguard.StrictUint(d, i)
			if seen&fcIndex != 0 || end < 0 {
				return -1
			}
			seen |= fcIndex
			c.index = n
			return end
		case `"delta"`:
			if seen&fcDelta != 0 || d[i] != '{' {
				return -1
			}
			seen |= fcDelta
			c.hasDelta = true
			return fastDeltaAt(d, i, &c.delta)
		case `"finish_reason"`:
			if seen&fcFinish != 0 {
				return -1
			}
			seen |= fcFinish
			end := jsonguard.StrictValue(d, i, fastDepth)
			if end >= 0 {
				c.finish = d[i:end]
			}
			return end
		case `"message"`, `"content_filter_results"`:
			return -1
		}
		return jsonguard.StrictValue(d, i, fastDepth)
	})
}

// fastDeltaAt reads the delta object at d[i] into dm as chatDelta would,
// declining a second member of a name it reads; it returns the object's
// end or -1.
func fastDeltaAt(d []byte, i int, dm *cDelta) int {
	return jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		end := jsonguard.StrictValue(d, i, fastDepth)
		if f := dm.field(name[1 : len(name)-1]); f != nil && end >= 0 {
			if *f != nil {
				return -1
			}
			*f = d[i:end]
		}
		return end
	})
}
