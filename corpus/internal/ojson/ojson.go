// Package ojson builds JSON objects that keep their key order, so that the
// mocks' events and the recorder's stdin lines read like the real ones
// ("type" first).
package ojson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Object is a JSON object as key, value, key, value, ...; keys are strings.
type Object []any

// O returns the object made of the key/value pairs kv.
func O(kv ...any) Object { return Object(kv) }

// MarshalJSON encodes the pairs in order, without HTML escaping.
func (m Object) MarshalJSON() ([]byte, error) {
	if len(m)%2 != 0 {
		return nil, fmt.Errorf("ojson: odd number of elements (%d)", len(m))
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := 0; i < len(m); i += 2 {
		k, ok := m[i].(string)
		if !ok {
			return nil, fmt.Errorf("ojson: key %d is %T, not string", i/2, m[i])
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		v, err := Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
		buf.WriteByte(':')
		if v, err = Marshal(m[i+1]); err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Marshal is json.Marshal without HTML escaping and without the trailing
// newline of json.Encoder.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
