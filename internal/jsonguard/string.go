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
	return unsafeString(b), true
}

// unsafeString returns b as a string without a copy. b must be the
// caller's own and never written again (as strings.Builder's is).
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// StringAt validates the string literal whose opening quote is b[i]
// exactly as [StringEnd] does and returns its value as [String] does
// (escapes resolved, invalid UTF-8 and lone surrogates replaced by
// U+FFFD), with the index just past its closing quote. ok is false for an
// invalid literal (s and end are then unspecified). The result shares no
// memory with b.
//
// It is the decoder for hand-written walks over input not yet validated:
// a literal of plain ASCII without escapes (ids, names, most English text)
// takes one scan, eight bytes at a time, and one copy; any other is
// scanned to its end once more and decoded into a buffer of its final
// size (or copied once if it only has valid non-ASCII bytes).
func StringAt(b []byte, i int) (s string, end int, ok bool) {
	j := plainEnd(b, i+1)
	if j < len(b) && b[j] == '"' {
		return string(b[i+1 : j]), j + 1, true
	}
	// b[i+1:j] is plain: StringEnd goes on from j as if b[j-1] opened the
	// literal.
	end, escaped, ok := StringEnd(b, j-1)
	if !ok {
		return "", 0, false
	}
	if body := b[i+1 : end-1]; !escaped {
		if utf8.Valid(body[j-i-1:]) {
			return string(body), end, true
		}
		return unsafeString(AppendValidUTF8(make([]byte, 0, len(body)+8), body)), end, true
	}
	out, _, _ := AppendLiteral(make([]byte, 0, end-i-2), b, i)
	return unsafeString(out), end, true
}
