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

// FuzzUnquoteAt checks unquoteAt against encoding/json on every string
// literal encoding/json accepts, followed by arbitrary bytes: it must find
// the literal's end and decode it.
func FuzzUnquoteAt(f *testing.F) {
	for _, s := range []string{`""`, `"abc",1`, `"a\nb\\c\"d\/"}`, `"\u00e9\ud83d\ude00"`, `"\ud83d"x"`, `"\ude00x"`, `"\ud83d\u0041"`,
		"\"\xff\xfe ok\"", `"a\u2028b"`, "\"\u2029\"", `"\b\f\r\t"`, `"\\\"\\"`, `"\"\"\"" "`, "\"\xe2\\u0041\""} {
		f.Add([]byte(s), uint8(len(s)))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		lit := data[:min(int(cut), len(data))]
		var want string
		if json.Unmarshal(lit, &want) != nil || len(lit) == 0 || lit[0] != '"' || lit[len(lit)-1] != '"' {
			return
		}
		got, end, ok := unquoteAt(data, 0)
		if !ok || got != want || end != len(lit) {
			t.Fatalf("unquoteAt(%q) = %q, %d, %v; want %q, %d", data, got, end, ok, want, len(lit))
		}
	})
}

func TestUnquoteAt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		end  int
	}{
		{`"abc",`, "abc", 5},
		{`"a\"b\"c"}`, `a"b"c`, 9},
		{`"\\"x"`, `\`, 4},
		{`"\n\n\n\n" "z"`, "\n\n\n\n", 10},
		{`"\ud83d\ude00"`, "😀", 14},
		{`"\ud83d"`, "\uFFFD", 8},
		{"\"\xe2\\u0041\"", "\uFFFDA", 9},
		{"\"\xff\"", "\uFFFD", 3},
	} {
		got, end, ok := unquoteAt([]byte(c.in), 0)
		if !ok || got != c.want || end != c.end {
			t.Errorf("unquoteAt(%q) = %q, %d, %v; want %q, %d", c.in, got, end, ok, c.want, c.end)
		}
	}
	for _, s := range []string{`"abc`, `"a\`, `"\u12`, `"\q"`} {
		if _, _, ok := unquoteAt([]byte(s), 0); ok {
			t.Errorf("unquoteAt(%q) ok", s)
		}
	}
}
