package openai

import "github.com/agentwire/agentwire/internal/jsonguard"

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

// fastREvent reads the event data d, whose first byte that is not
// whitespace is d[i] ('{'), into ev as checkREvent would; it reports false
// (ev then unspecified) when it declines.
func fastREvent(d []byte, i int, ev *rEvent) bool {
	*ev = rEvent{}
	end := jsonguard.StrictMembers(d, i, func(name []byte, i int) int {
		end := jsonguard.StrictValue(d, i, fastDepth)
		if end >= 0 {
			ev.member(name[1:len(name)-1], d[i:end])
		}
		return end
	})
	return end >= 0 && jsonguard.SkipWS(d, end) == len(d)
}
