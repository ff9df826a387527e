package codex

import (
	"encoding/json"
	"testing"
)

// FuzzStringValue checks stringValue against encoding/json on every
// input: the same string for each literal encoding/json accepts, and
// false for anything else that is not one.
func FuzzStringValue(f *testing.F) {
	for _, s := range []string{`""`, `"abc"`, `"a\nb\\c\"d\/"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, "\"\xff\xfe ok\"", `"a\u2028b"`, "\"\u2029\"", `"\b\f\r\t"`, `null`, `"a" `, `"\q"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := stringValue(raw)
		var want string
		isLit := json.Unmarshal(raw, &want) == nil && len(raw) > 0 && raw[0] == '"' && raw[len(raw)-1] == '"'
		if ok != isLit || ok && got != want {
			t.Fatalf("stringValue(%q) = %q, %v; encoding/json %q, %v", raw, got, ok, want, isLit)
		}
	})
}

func TestStringValueNotString(t *testing.T) {
	for _, s := range []string{``, `null`, `1`, `"`, `{"a":1}`, `"a"x`, `"\q"`} {
		if _, ok := stringValue([]byte(s)); ok {
			t.Errorf("stringValue(%q) ok", s)
		}
	}
}
