package jsonrpc

import (
	"bytes"
	"strconv"

	"github.com/segmentio/encoding/json"
)

// ID is a JSON-RPC id kept as its exact JSON token: a string, a number of
// any size or form, or null. The zero ID is "no id" (a notification). The
// token of an ID taken from a Frame is borrowed like the Frame's bytes;
// [ID.Clone] copies it.
type ID struct {
	raw []byte
}

// IDKind is the JSON type of an id.
type IDKind uint8

// The id kinds.
const (
	// NoID: the message has no id (a notification), or the zero ID.
	NoID IDKind = iota
	// NullID: "id": null.
	NullID
	// NumberID: a JSON number.
	NumberID
	// StringID: a JSON string.
	StringID
)

func (k IDKind) String() string {
	switch k {
	case NoID:
		return "none"
	case NullID:
		return "null"
	case NumberID:
		return "number"
	case StringID:
		return "string"
	}
	return "IDKind(" + strconv.Itoa(int(k)) + ")"
}

// IntID returns the number id n.
func IntID(n int64) ID { return ID{raw: strconv.AppendInt(nil, n, 10)} }

// StringIDOf returns the string id s.
func StringIDOf(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: b}
}

// NullIDValue returns the null id.
func NullIDValue() ID { return ID{raw: []byte("null")} }

// ParseID returns the ID of a JSON token: a string, a number or null
// (surrounding whitespace is not allowed). The token is copied.
func ParseID(tok []byte) (ID, error) {
	var m Frame
	b := make([]byte, 0, len(tok)+7)
	b = append(append(append(b, `{"id":`...), tok...), '}')
	// Classify the token as the id of a response with a result.
	b = append(b[:len(b)-1], `,"result":0}`...)
	if me := classify(&m, b, 0, false, false, nil); me != nil {
		return ID{}, me
	}
	if !bytes.Equal(m.ID.raw, tok) {
		return ID{}, &MessageError{Err: ErrBadID}
	}
	return ID{raw: append([]byte(nil), tok...)}, nil
}

// Kind returns the id's JSON type.
func (id ID) Kind() IDKind {
	if len(id.raw) == 0 {
		return NoID
	}
	switch id.raw[0] {
	case '"':
		return StringID
	case 'n':
		return NullID
	}
	return NumberID
}

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return len(id.raw) == 0 }

// Raw returns the exact JSON token (nil for no id). It is borrowed.
func (id ID) Raw() []byte { return id.raw }

// Int64 returns a number id that is an integer fitting int64 (0, -1, ...).
// It is false for strings, null, fractions, exponents and larger numbers.
func (id ID) Int64() (int64, bool) {
	if id.Kind() != NumberID {
		return 0, false
	}
	n, err := strconv.ParseInt(string(id.raw), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Str returns the unescaped value of a string id.
func (id ID) Str() (string, bool) {
	if id.Kind() != StringID {
		return "", false
	}
	return string(stringValue(id.raw)), true
}

// String renders the id for messages and logs: the JSON token itself
// ("0", "\"abc\"", "null"), or "none".
func (id ID) String() string {
	if len(id.raw) == 0 {
		return "none"
	}
	return string(id.raw)
}

// Key returns a comparable key under which two ids that denote the same
// JSON-RPC id are equal, to pair responses with requests: the kind and the
// unescaped string for strings ("s:abc", also for "a\u0062c"), the token
// for numbers ("n:12"; -0 is 0; 12.0 and 1.2e1 are not 12: ids should be
// integers and are compared exactly otherwise), "null", or "" for no id.
func (id ID) Key() string {
	switch id.Kind() {
	case StringID:
		return "s:" + string(stringValue(id.raw))
	case NullID:
		return "null"
	case NumberID:
		// JSON integers have a single spelling (no leading zeros or
		// plus sign), except -0. Fractions and exponents compare by their
		// exact token: no arithmetic on hostile numbers like 1e999999999.
		if string(id.raw) == "-0" {
			return "n:0"
		}
		return "n:" + string(id.raw)
	}
	return ""
}

// Equal reports whether two ids denote the same JSON-RPC id (Key equality).
func (id ID) Equal(o ID) bool {
	if bytes.Equal(id.raw, o.raw) {
		return true
	}
	return id.Key() == o.Key()
}

// Clone returns an id that owns its token.
func (id ID) Clone() ID {
	if id.raw == nil {
		return id
	}
	return ID{raw: append([]byte(nil), id.raw...)}
}

// MarshalJSON returns the exact token (null for no id).
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id.raw) == 0 {
		return []byte("null"), nil
	}
	return append([]byte(nil), id.raw...), nil
}

// UnmarshalJSON accepts a string, a number or null, kept exactly.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := ParseID(bytes.TrimSpace(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
