package codex

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// jsonText is a JSON string member decoded by unquote instead of the
// reflective decoder: agent text and command output are most of the bytes
// of a codex stream, and this path is several times faster and copies the
// text once. Null and absence are the empty string; any other value makes
// the event malformed.
type jsonText string

var errNotString = errors.New("not a JSON string")

// UnmarshalJSON implements json.Unmarshaler. b is only read.
func (t *jsonText) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = ""
		return nil
	}
	s, ok := unquote(b)
	if !ok {
		return errNotString
	}
	*t = jsonText(s)
	return nil
}

// unquote decodes a JSON string literal (quotes included) the way
// encoding/json does: escapes are resolved, \u surrogate pairs combined,
// and invalid UTF-8 or a lone surrogate becomes U+FFFD. ok is false when
// raw is not a string literal (null included). raw was validated by the
// decoder that produced it.
func unquote(raw []byte) (s string, ok bool) {
	raw = trimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 && utf8.Valid(body) {
		return string(body), true
	}
	// A Builder grows without zeroing and String shares its bytes.
	var out strings.Builder
	out.Grow(len(body))
	// Escapes are ASCII, so when the whole body is valid UTF-8 so is every
	// run between them, and the runs need no check of their own.
	valid := utf8.Valid(body)
	var buf [utf8.UTFMax]byte
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			i = len(body)
		}
		if valid {
			out.Write(body[:i])
		} else {
			writeValidUTF8(&out, body[:i])
		}
		body = body[i:]
		if len(body) == 0 {
			break
		}
		// body[0] is a backslash; the decoder guaranteed a valid escape.
		if len(body) < 2 {
			return "", false
		}
		switch c := body[1]; c {
		case '"', '\\', '/':
			out.WriteByte(c)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := jsonguard.Hex4(body[2:])
			if !ok {
				return "", false
			}
			body = body[6:]
			if utf16.IsSurrogate(r) {
				if len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
					if r2, ok := jsonguard.Hex4(body[2:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out.Write(utf8.AppendRune(buf[:0], dec))
							body = body[6:]
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out.Write(utf8.AppendRune(buf[:0], r))
			continue
		default:
			return "", false
		}
		body = body[2:]
	}
	return out.String(), true
}

// writeValidUTF8 writes s with every invalid UTF-8 sequence replaced by
// U+FFFD, as jsonguard.AppendValidUTF8 does (which allocates only for
// invalid input, which is rare).
func writeValidUTF8(out *strings.Builder, s []byte) {
	if utf8.Valid(s) {
		out.Write(s)
		return
	}
	out.Write(jsonguard.AppendValidUTF8(nil, s))
}

// trimSpace trims JSON whitespace.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// unquoteAt validates and decodes the string literal whose opening quote
// is b[i] and returns it with the index just past its closing quote. One
// vectorized scan (jsonguard.StringEnd) validates the literal and finds
// its end; a literal without escapes (names, ids, most text) is then
// copied as it stands, one with escapes decoded into an output allocated
// once at its final size. ok is false (end unspecified) if b[i] does not
// start a valid literal.
func unquoteAt(b []byte, i int) (s string, end int, ok bool) {
	end, esc, ok := jsonguard.StringEnd(b, i)
	if !ok {
		return "", 0, false
	}
	if body := b[i+1 : end-1]; !esc {
		if utf8.Valid(body) {
			return string(body), end, true
		}
		return string(jsonguard.AppendValidUTF8(nil, body)), end, true
	}
	s, ok = unquote(b[i:end])
	return s, end, ok
}
