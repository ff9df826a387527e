package openai

import (
	"bytes"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// The Responses event fast path. checkREvent validates an event with
// jsonguard's validating pass and hands each member to rEvent.member on
// the way; fastREvent does the same in one strict pass (jsonguard's strict
// readers), which validates each value as it reads it. It takes only the
// events whose reading it gives exactly: member names without escapes
// (the name is then the key checkREvent would decode) and values nested
// at most fastDepth deep. rEvent.member sees the same names and value
// bytes in the same order either way, duplicates included (the last one
// wins in both). On anything else (invalid JSON included) it declines and
// Feed validates the event with checkREvent, which gives the same reading
// or the error. FuzzResponsesFast holds the two paths to the same result.

// rShape is the last event fastREvent read whole and where its
// top-level members lie (jsonguard.Shape, string values and numbers
// varying): the deltas of a run repeat the event before them but for the
// delta, the sequence_number and the obfuscation, so an event the shape
// matches has the same member names in the same order, and its reading is
// rEvent.member over the same names with the values' new bytes. The shape
// is learnt again after 1, 2, 4, 8, ... events in a row that it did not
// match.
type rShape struct {
	s       jsonguard.Shape
	members []rShapeMember
	misses  int
}

// rShapeMember is a top-level member of the shape's event: its name
// (unescaped) and its value.
type rShapeMember struct {
	key []byte
	v   jsonguard.ShapeSpan
}

// fastREvent reads the event data d, whose first byte that is not
// whitespace is d[i] ('{'), into ev as checkREvent would; it reports false
// (ev then unspecified) when it declines.
func (p *Parser) fastREvent(d []byte, i int, ev *rEvent) bool {
	*ev = rEvent{}
	sh := &p.rshape
	if sh.s.Match(d) {
		sh.misses = 0
		for _, m := range sh.members {
			ev.member(m.key, sh.s.Slice(m.v))
		}
		return true
	}
	sh.misses++
	learn := sh.misses&(sh.misses-1) == 0
	spans := p.rspans[:0]
	end := jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		end := jsonguard.StrictValue(d, i, fastDepth)
		if end >= 0 {
			ev.member(name[1:len(name)-1], d[i:end])
			if learn {
				spans = append(spans, cap(d)-cap(name)+1, cap(d)-cap(name)+len(name)-1, i, end)
			}
		}
		return end
	})
	p.rspans = spans
	if end < 0 || jsonguard.SkipWS(d, end) != len(d) {
		return false
	}
	if learn {
		sh.s.Learn(d, true)
		sh.members = sh.members[:0]
		for k := 0; k < len(spans); k += 4 {
			sh.members = append(sh.members, rShapeMember{bytes.Clone(d[spans[k]:spans[k+1]]), sh.s.SpanOf(d, d[spans[k+2]:spans[k+3]])})
		}
	}
	return true
}
