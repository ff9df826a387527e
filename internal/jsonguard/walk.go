package jsonguard

import (
	"encoding/binary"
	"math/bits"
)

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

// StringEnd validates the string literal whose opening quote is b[i], as
// [Check] does (escapes well formed, no control character, terminated),
// and returns the index just past its closing quote and whether it holds
// an escape. ok is false for an invalid literal. It scans eight or sixteen
// bytes at a time, like Check.
func StringEnd(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		// Each word's mask is computed once: the lowest marked byte is
		// the first special one.
		for i+16 <= len(b) {
			if m := strSpecialMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			if m := strSpecialMask(binary.LittleEndian.Uint64(b[i+8:])); m != 0 {
				i += 8 + bits.TrailingZeros64(m)>>3
				goto special
			}
			i += 16
		}
		if i+8 <= len(b) {
			if m := strSpecialMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < len(b) && !strSpecial[b[i]] {
			i++
		}
	special:
		if i >= len(b) {
			return 0, escaped, false
		}
		switch b[i] {
		case '"':
			return i + 1, escaped, true
		case '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, escaped, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return 0, escaped, false
				}
				i += 6
			default:
				return 0, escaped, false
			}
		default: // a control character
			return 0, escaped, false
		}
	}
}

// AppendString appends the decoded contents of the string literal lit
// (quotes included, as [Check] accepted it) to dst: escapes resolved,
// invalid UTF-8 and lone surrogates replaced by U+FFFD, exactly as the
// decoders do. It is the unescaping [PeekString] uses.
func AppendString(dst, lit []byte) []byte {
	if len(lit) < 2 {
		return dst
	}
	return appendUnescape(dst, lit[1:len(lit)-1])
}
