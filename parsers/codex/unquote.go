package codex

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

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
	raw = bytes.Trim(raw, " \t\r\n")
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 && utf8.Valid(body) {
		return string(body), true
	}
	out := make([]byte, 0, len(body))
	defer func() {
		if ok && len(out) > 0 {
			// out is never written again: share it instead of copying.
			s = unsafe.String(&out[0], len(out))
		}
	}()
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			i = len(body)
		}
		out = jsonguard.AppendValidUTF8(out, body[:i])
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
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
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
							out = utf8.AppendRune(out, dec)
							body = body[6:]
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		body = body[2:]
	}
	return "", true // the deferred function sets s
}
