package codex

import (
	"errors"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// jsonText is a JSON string member decoded by jsonguard.StringAt instead
// of the reflective decoder: agent text and command output are most of the
// bytes of a codex stream, and this path is several times faster and
// copies the text once. Null and absence are the empty string; any other
// value makes the event malformed.
type jsonText string

var errNotString = errors.New("not a JSON string")

// UnmarshalJSON implements json.Unmarshaler. b is only read.
func (t *jsonText) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = ""
		return nil
	}
	s, ok := stringValue(b)
	if !ok {
		return errNotString
	}
	*t = jsonText(s)
	return nil
}

// stringValue decodes val, a whole JSON value, the way encoding/json
// does when it is a string literal; ok is false for any other value
// (null included) and for an invalid literal.
func stringValue(val []byte) (string, bool) {
	if len(val) == 0 || val[0] != '"' {
		return "", false
	}
	s, end, ok := jsonguard.StringAt(val, 0)
	return s, ok && end == len(val)
}
