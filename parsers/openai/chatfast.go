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

// fastChunk fills p.ctop and p.fast from the chunk data d as checkChunk
// and the walk of its choices would; it reports false (p.ctop and p.fast
// then unspecified) when it declines.
func (p *Parser) fastChunk(d []byte) bool {
	if m := &p.fmemo; len(m.prefix) > 0 && bytes.HasPrefix(d, m.prefix) && p.fastRead(d, len(m.prefix), m.top, m.seen) {
		return true
	}
	return p.fastRead(d, -1, chatTop{}, 0)
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
