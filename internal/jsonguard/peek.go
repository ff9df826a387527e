package jsonguard

import (
	"bytes"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// PeekString returns the decoded value of the top-level member named key
// when b is a JSON object and that member's value is a string. It is the
// cheap discriminator peek: no decode, no allocation in the common case.
//
// Rules, chosen to agree with decoding b into a map[string]any with
// segmentio (or encoding/json):
//   - only members of the top-level object count; a "type" inside a nested
//     object or array is skipped without being looked at;
//   - names are compared exactly (case-sensitive) after unescaping, so
//     "t\u0079pe" is "type" and "Type" is not;
//   - with duplicate names the last one wins, as in Unmarshal; if the last
//     one's value is not a string (null, a number, an object, ...), ok is
//     false;
//   - b that is not an object (an array, a scalar, blank) gives ok false.
//
// The value is returned unescaped. When it contains no backslash and is
// valid UTF-8 (the normal case) val aliases b; otherwise it is decoded
// (escapes resolved, invalid UTF-8 and lone surrogates replaced by U+FFFD,
// exactly as the decoders do) and appended to dst[:0], which allocates only
// if dst is too small. key must be valid UTF-8.
//
// PeekString does not validate b. It walks the top-level object's structure
// and skips nested values by bracket counting, so on a line that is not
// valid JSON the result is unspecified (it may report ok true for a line
// that Unmarshal rejects) but it never panics, never recurses and runs in
// time linear in len(b). When Unmarshal into a map succeeds, PeekString
// agrees with it.
func PeekString(b []byte, key string, dst []byte) (val []byte, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, false
	}
	var (
		found          bool
		vStart, vEnd   int // the last matching string value, quotes excluded
		matchedNonText bool
	)
	for {
		// Member name.
		if i >= len(b) || b[i] != '"' {
			break
		}
		kEnd := skipString(b, i+1)
		if kEnd > len(b) {
			break
		}
		match := nameEquals(b[i+1:kEnd-1], key)
		i = skipWS(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			break
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			break
		}
		// Value.
		if b[i] == '"' {
			end := skipString(b, i+1)
			if end > len(b) {
				break
			}
			if match {
				found, matchedNonText = true, false
				vStart, vEnd = i+1, end-1
			}
			i = end
		} else {
			if match {
				found, matchedNonText = false, true
			}
			i = skipValue(b, i)
		}
		i = skipWS(b, i)
		if i >= len(b) {
			break
		}
		if b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		break // '}' ends the object; anything else is invalid
	}
	if !found || matchedNonText {
		return nil, false
	}
	raw := b[vStart:vEnd]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return raw, true
	}
	return appendUnescape(dst[:0], raw), true
}

// skipValue returns the index just past the non-string value starting at
// b[i]: a whole array or object (brackets counted, strings skipped), or a
// scalar up to the next delimiter or whitespace.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '{', '[':
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = skipString(b, i+1) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(b)
}

// nameEquals reports whether the raw (still escaped) member name equals
// key once unescaped.
func nameEquals(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	// An escape is at most 6 bytes per decoded byte (\u0041 -> "A"); a
	// longer name cannot match.
	if len(raw) > 6*len(key)+12 {
		return false
	}
	var buf [256]byte
	return string(appendUnescape(buf[:0], raw)) == key
}

// appendUnescape appends the decoded contents of a JSON string (without
// quotes) to dst, resolving escapes and replacing invalid UTF-8 and lone
// surrogates with U+FFFD, as segmentio and encoding/json do. Malformed
// escapes are copied through; callers only use the result for strings
// whose validity does not matter (see PeekString).
func appendUnescape(dst, s []byte) []byte {
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return AppendValidUTF8(dst, s)
		}
		dst = AppendValidUTF8(dst, s[:i])
		s = s[i+1:]
		if len(s) == 0 {
			return dst
		}
		c := s[0]
		s = s[1:]
		switch c {
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'u':
			r, ok := Hex4(s)
			if !ok {
				dst = append(dst, '\\', 'u')
				continue
			}
			s = s[4:]
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if len(s) >= 2 && s[0] == '\\' && s[1] == 'u' {
					r2, ok2 = Hex4(s[2:])
				}
				if ok2 {
					if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
						s = s[6:]
						r = d
					} else {
						r = unicode.ReplacementChar
					}
				} else {
					r = unicode.ReplacementChar
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/' and anything malformed
			dst = append(dst, c)
		}
	}
	return dst
}

// AppendValidUTF8 appends s to dst, replacing each invalid UTF-8 sequence
// with U+FFFD, as encoding/json does when it decodes a string.
func AppendValidUTF8(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// Hex4 decodes the four hexadecimal digits of a \uXXXX escape at the start
// of s; ok is false when s is shorter or holds a non-hex digit.
func Hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
