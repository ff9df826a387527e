package provider

import (
	"bytes"
	"encoding/json"

	"github.com/agentwire/agentwire/internal/detect"
)

// Object is a JSON object line's top-level members, as DetectJSONLines
// gives it to a match function.
type Object map[string]json.RawMessage

// String returns member k when it is a JSON string.
func (o Object) String(k string) (string, bool) {
	var s string
	if raw, ok := o[k]; !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Has reports whether the object has member k.
func (o Object) Has(k string) bool {
	_, ok := o[k]
	return ok
}

// DetectJSONLines is a Detect for JSON-lines streams: it returns the offset
// of the first line of head that is a JSON object for which match is true.
// Blank lines, a leading BOM and lines that are not JSON objects are
// skipped.
func DetectJSONLines(head []byte, match func(Object) bool) (int, bool) {
	for at, l := range detect.Lines(head) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] != '{' {
			continue
		}
		var obj Object
		if json.Unmarshal(t, &obj) == nil && match(obj) {
			return at, true
		}
	}
	return 0, false
}

// HasJSONType reports whether a line of b has the top-level "type" typ,
// by a byte search (as written by the CLIs, with or without a space after
// the colon): cheap, for switch detection over a whole capture.
func HasJSONType(b []byte, typ string) bool {
	return bytes.Contains(b, []byte(`"type":"`+typ+`"`)) || bytes.Contains(b, []byte(`"type": "`+typ+`"`))
}
