// Package quote renders untrusted input for error messages: bounded in
// length, always valid UTF-8 and free of control characters, so that a
// hostile stream can neither flood a log nor inject terminal escapes.
package quote

import (
	"strconv"
	"unicode/utf8"
)

// DefaultMax is the number of input bytes error messages quote by default.
const DefaultMax = 80

// Bytes returns a Go-quoted rendering of at most max bytes of b. When b is
// longer, the quoted prefix is followed by "..." and the total length, for
// example "\"abc\"...(1234 bytes)". A max of zero or less means DefaultMax.
// The prefix never ends inside a UTF-8 sequence that is otherwise complete
// in b, so the rendering does not invent invalid bytes at the cut.
func Bytes(b []byte, max int) string {
	if max <= 0 {
		max = DefaultMax
	}
	if len(b) <= max {
		return strconv.Quote(string(b))
	}
	cut := max
	// Back off to a rune start so a valid multi-byte rune is not split.
	for i := 0; i < utf8.UTFMax && cut > 0 && !utf8.RuneStart(b[cut]); i++ {
		cut--
	}
	if cut == 0 {
		cut = max
	}
	return strconv.Quote(string(b[:cut])) + "...(" + strconv.Itoa(len(b)) + " bytes)"
}

// String is Bytes for a string.
func String(s string, max int) string {
	if max <= 0 {
		max = DefaultMax
	}
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return Bytes([]byte(s), max)
}
