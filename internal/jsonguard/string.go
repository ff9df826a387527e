package jsonguard

import (
	"bytes"
	"unicode/utf8"
	"unsafe"
)

// String returns the value of the string literal lit (quotes included, as
// [Check] accepted it) as the decoders produce it: escapes resolved,
// invalid UTF-8 and lone surrogates replaced by U+FFFD. A literal without
// escapes is copied once; one with escapes is decoded once, into room for
// the literal's body (which the decoded value never exceeds). ok is false when lit is not a quoted
// literal. The result shares no memory with lit.
func String(lit []byte) (s string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	in := lit[1 : len(lit)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in), true
	}
	b := AppendString(make([]byte, 0, len(in)), lit)
	// b is this function's own and never written again: the string may
	// share it, as strings.Builder's does.
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}
