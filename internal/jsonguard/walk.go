package jsonguard

// Helpers for hand-written decoders that walk a value [Check] has already
// accepted. On such input they are exact; on anything else their result is
// unspecified, but they never panic and run in linear time.

// SkipWS returns the index of the first byte at or after i that is not
// JSON whitespace, or len(b).
func SkipWS(b []byte, i int) int { return skipWS(b, i) }

// ValueEnd returns the index just past the value that starts at b[i]: a
// string (escapes honoured), an object or array (brackets counted, strings
// skipped) or a scalar. i must be < len(b).
func ValueEnd(b []byte, i int) int {
	if b[i] == '"' {
		return min(skipString(b, i+1), len(b))
	}
	return skipValue(b, i)
}
