package jsonguard

import (
	"encoding/binary"
	"math/bits"
	"slices"
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
// index just past the closing quote. Plain ASCII is copied as it is
// scanned, a word at a time for the first literalWords words of each run
// until the first run longer than that (a short run costs no call), then
// one word and the rest as plainEnd finds it; only escapes and non-ASCII
// bytes are looked at one by one. ok is false for an
// invalid literal: out is then dst (bytes past its length, in its
// capacity, may have been written).
func AppendLiteral(dst, b []byte, i int) (out []byte, end int, ok bool) {
	n0 := len(dst)
	// d is dst's whole capacity, n the length decoded: a word is stored at
	// d[n:] before it is known to be plain, so the bytes past n are
	// scratch.
	d, n := dst[:cap(dst)], n0
	i++
	// The common literal in a loop of its own, with few variables: plain
	// words and one-byte escapes up to the closing quote. Anything else (a
	// run longer than literalWords words, the end of b near, a \u escape,
	// non-ASCII, a control byte, an invalid escape) is left to
	// appendLiteral's general loop, from where this one stopped.
fast:
	for {
		if len(d)-n < LiteralSlack {
			d = room(d, n, LiteralSlack)
		}
		for lim := min(len(b), i+8*literalWords); ; {
			if i+8 > lim {
				break fast
			}
			x := binary.LittleEndian.Uint64(b[i : i+8])
			binary.LittleEndian.PutUint64(d[n:n+8], x)
			if m := plainMask(x); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				i, n = i+k, n+k
				break
			}
			i, n = i+8, n+8
		}
		switch b[i] {
		case '"':
			return d[:n], i + 1, true
		case '\\':
			if i+1 < len(b) {
				if e := shortEscapes[b[i+1]]; e != 0 {
					d[n] = e
					i, n = i+2, n+1
					continue
				}
			}
		}
		break
	}
	return appendLiteral(dst, n0, d, n, b, i)
}

// shortEscapes maps the byte after a backslash to what the escape stands
// for, for the escapes of one byte; 0 for any other byte.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendLiteral is AppendLiteral from b[i] on, inside the literal, with
// d[:n] decoded so far (d as AppendLiteral has it, dst[:n0] the caller's):
// the general loop, which takes every byte a literal may hold. It scans
// one word of a run itself, not literalWords: a literal that reached it
// with a long run (command output of 44-byte lines, each ending in \n)
// has more such runs, and literalWords words and then indexSpecial for
// the rest of each cost more than indexSpecial alone (callgrind, codex
// big-output Feed: 5.40M -> 4.69M instructions per 1.5 MB).
func appendLiteral(dst []byte, n0 int, d []byte, n int, b []byte, i int) (out []byte, end int, ok bool) {
	for {
		if len(d)-n < LiteralSlack {
			d = room(d, n, LiteralSlack)
		}
		for lim := min(len(b), i+8); i+8 <= lim; {
			// plainMask marks quotes, backslashes, control bytes and the
			// bytes >= 0x80: the lowest mark is exact.
			x := binary.LittleEndian.Uint64(b[i : i+8])
			binary.LittleEndian.PutUint64(d[n:n+8], x)
			if m := plainMask(x); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				i, n = i+k, n+k
				goto special
			}
			i, n = i+8, n+8
		}
		if i < len(b) {
			k := indexSpecial(b[i:], true)
			d, n = put(d, n, b[i:i+k])
			i += k
		}
	special:
		if i >= len(b) {
			return dst[:n0], 0, false
		}
		switch c := b[i]; {
		case c == '"':
			return d[:n], i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return dst[:n0], 0, false
			}
			if len(d)-n < utf8.UTFMax {
				d = room(d, n, utf8.UTFMax)
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				d[n] = e
			case 'b':
				d[n] = '\b'
			case 'f':
				d[n] = '\f'
			case 'n':
				d[n] = '\n'
			case 'r':
				d[n] = '\r'
			case 't':
				d[n] = '\t'
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
				n += utf8.EncodeRune(d[n:], r)
				continue
			default:
				return dst[:n0], 0, false
			}
			i, n = i+2, n+1
		case c < 0x20:
			return dst[:n0], 0, false
		default:
			// Non-ASCII, to the next ASCII byte: a valid sequence stays
			// in the run, an invalid byte becomes U+FFFD (utf8.DecodeRune's
			// reading, which is AppendValidUTF8's).
			s := i
			for i < len(b) && b[i] >= utf8.RuneSelf {
				r, size := utf8.DecodeRune(b[i:])
				if r == utf8.RuneError && size == 1 {
					d, n = put(d, n, b[s:i])
					d, n = put(d, n, []byte("\uFFFD"))
					s = i + 1
				}
				i += size
			}
			d, n = put(d, n, b[s:i])
		}
	}
}

// literalWords is how many words of a plain run AppendLiteral scans and
// copies itself before it hands the rest of the run to indexSpecial and
// one copy: most deltas and names end within it, and a long run goes
// faster the other way.
const literalWords = 4

// LiteralSlack is how many bytes past what it has decoded AppendLiteral
// may write (the words it stores before it knows they are plain), so a
// dst with the literal's length plus LiteralSlack bytes of spare capacity
// is never reallocated, unless invalid UTF-8 expands the literal (an
// invalid byte becomes the three of U+FFFD; escapes only shrink it). A
// caller that decodes into memory of its own ([apistream.Output.Room])
// reserves that much.
const LiteralSlack = 8 * literalWords

// room returns d (see AppendLiteral: a buffer to its capacity, n bytes
// of it decoded) with at least k bytes past n.
func room(d []byte, n, k int) []byte {
	d = slices.Grow(d[:n], k)
	return d[:cap(d)]
}

// put copies p to d[n:] (see room) and returns d and the new length.
func put(d []byte, n int, p []byte) ([]byte, int) {
	if len(d)-n < len(p) {
		d = room(d, n, len(p))
	}
	return d, n + copy(d[n:], p)
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
		// plainMask marks quotes, backslashes, control bytes and the
		// bytes >= 0x80: the lowest mark is exact.
		x := binary.LittleEndian.Uint64(b[i : i+8])
		if m := plainMask(x); m != 0 {
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
