package jsonguard

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
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
// an escape. ok is false for an invalid literal. It finds the bytes it
// must look at (a quote, a backslash, a control byte) as plainEnd does:
// the first eight in line, then sixteen at a time.
func StringEnd(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		// The first word in line: most strings, and most runs between
		// escapes, end within it, where a call would cost more than the
		// scan.
		if i+8 <= len(b) {
			if m := strSpecialMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		if i < len(b) {
			i += indexSpecial(b[i:], false)
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

// AppendLiteral is [StringEnd] and [AppendString] in one pass: it
// validates the string literal whose opening quote is b[i] exactly as
// StringEnd does and appends its decoded contents to dst exactly as
// AppendString(dst, b[i:end]) does (escapes resolved, invalid UTF-8 and
// lone surrogates replaced by U+FFFD), returning the extended dst and the
// index just past the closing quote. Runs of plain ASCII are found as
// plainEnd finds them and appended whole; only escapes and
// non-ASCII bytes are looked at one by one. ok is false for an invalid
// literal: out is then dst (bytes past its length may have been written).
func AppendLiteral(dst, b []byte, i int) (out []byte, end int, ok bool) {
	n0 := len(dst)
	i++
	s := i // the start of the run not yet appended
	for {
		// plainEnd in line (see StringEnd).
		if i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if m := strSpecialMask(x) | x&highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		if i < len(b) {
			i += indexSpecial(b[i:], true)
		}
	special:
		if i >= len(b) {
			return dst[:n0], 0, false
		}
		switch c := b[i]; {
		case c == '"':
			return append(dst, b[s:i]...), i + 1, true
		case c == '\\':
			dst = append(dst, b[s:i]...)
			if i+1 >= len(b) {
				return dst[:n0], 0, false
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, ok := Hex4(b[i+2:])
				if !ok {
					return dst[:n0], 0, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair when a \u escape follows and completes it;
					// otherwise U+FFFD, and a following escape is
					// decoded on its own (as appendUnescape does).
					r2, ok2 := rune(0), false
					if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
						r2, ok2 = Hex4(b[i+2:])
					}
					if d := utf16.DecodeRune(r, r2); ok2 && d != unicode.ReplacementChar {
						r = d
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				dst = utf8.AppendRune(dst, r)
				s = i
				continue
			default:
				return dst[:n0], 0, false
			}
			i += 2
			s = i
		case c < 0x20:
			return dst[:n0], 0, false
		default:
			// Non-ASCII, to the next ASCII byte: a valid sequence stays
			// in the run, an invalid byte becomes U+FFFD (utf8.DecodeRune's
			// reading, which is AppendValidUTF8's).
			for i < len(b) && b[i] >= utf8.RuneSelf {
				r, n := utf8.DecodeRune(b[i:])
				if r == utf8.RuneError && n == 1 {
					dst = append(dst, b[s:i]...)
					dst = append(dst, "\uFFFD"...)
					s = i + 1
				}
				i += n
			}
		}
	}
}

// PlainEnd returns the index of the first byte at or after i that is not
// plain ASCII inside a string literal (a quote, a backslash, a control
// byte or a byte >= 0x80), or len(b): the run a JSON string encoder copies
// as it is.
func PlainEnd(b []byte, i int) int { return plainEnd(b, i) }

// plainEnd returns the index of the first byte at or after i that is not
// plain ASCII inside a string literal (a quote, a backslash, a control
// byte or a byte >= 0x80), or len(b) (i when i >= len(b)). The first
// eight bytes are looked at in line (most names and deltas end there, and
// a call would cost more than the scan), the rest sixteen at a time
// (indexSpecial: SSE2 on amd64).
func plainEnd(b []byte, i int) int {
	if i+8 <= len(b) {
		// strSpecialMask marks quotes, backslashes and control bytes,
		// x&highs the bytes >= 0x80: the lowest mark of either is exact.
		x := binary.LittleEndian.Uint64(b[i:])
		if m := strSpecialMask(x) | x&highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	if i < len(b) {
		i += indexSpecial(b[i:], true)
	}
	return i
}

// highs marks the top bit of each of a word's eight bytes: x&highs marks
// the bytes >= 0x80.
const highs = 0x8080808080808080
