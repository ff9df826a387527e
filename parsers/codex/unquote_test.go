package codex

import (
	"encoding/json"
	"testing"
)

// FuzzUnquote checks unquote against encoding/json on every string
// literal encoding/json accepts.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"abc"`, `"a\nb\\c\"d\/"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, "\"\xff\xfe ok\"", `"a\u2028b"`, "\"\u2029\"", `"\b\f\r\t"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		if json.Unmarshal(raw, &want) != nil || len(raw) == 0 || raw[0] != '"' || raw[len(raw)-1] != '"' {
			return
		}
		got, ok := unquote(raw)
		if !ok || got != want {
			t.Fatalf("unquote(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	})
}

func TestUnquoteNotString(t *testing.T) {
	for _, s := range []string{``, `null`, `1`, `"`, `{"a":1}`} {
		if _, ok := unquote([]byte(s)); ok {
			t.Errorf("unquote(%q) ok", s)
		}
	}
}
