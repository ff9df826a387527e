package openai

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// checkWalk compares the walk of an object with encoding/json's decoding:
// the same member names in the same order, every string value decoded
// alike, every number the same int, and entered values ending where
// encoding/json says.
func checkWalk(t *testing.T, data []byte) {
	t.Helper()
	if jsonguard.Check(data, 0) != nil {
		return
	}
	var m []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return
	}
	var names []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return
		}
		names = append(names, k.(string))
		m = append(m, v)
	}
	o, ok := object(data)
	if !ok {
		t.Fatalf("object() refused %q", data)
	}
	i := 0
	for o.next() {
		if i >= len(names) {
			t.Fatalf("walk found more members than encoding/json in %q", data)
		}
		if string(o.key) != names[i] {
			t.Fatalf("member %d: walk %q, encoding/json %q", i, o.key, names[i])
		}
		want := bytes.TrimSpace(m[i])
		var got []byte
		if i%2 == 0 {
			if c, ok := o.enter(); ok {
				for c.next() {
				}
				o.leave(&c)
				got = bytes.TrimSpace(o.b[o.vs:o.i])
			} else if a, ok := o.enterArray(); ok {
				for _, ok := a.next(); ok; _, ok = a.next() {
				}
				o.leaveArray(&a)
				got = bytes.TrimSpace(o.b[o.vs:o.i])
			} else {
				got = o.v()
			}
		} else {
			got = o.v()
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("member %q: walk value %q, encoding/json %q", names[i], got, want)
		}
		if isString(got) {
			var s string
			if json.Unmarshal(got, &s) == nil && str(got) != s {
				t.Fatalf("member %q: str %q, encoding/json %q", names[i], str(got), s)
			}
		}
		i++
	}
	if i != len(names) {
		t.Fatalf("walk found %d members, encoding/json %d in %q", i, len(names), data)
	}
}

func TestWalk(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b" : "x\"y\\" } `, `{"a":{"b":{"c":[1,[2,{"d":"}"}]]}},"e":"]"}`,
		`{"\u0074ype":"x","t\"":1}`, `{"a":"\ud83d\ude00 caf\u00e9 \udc00"}`, `{"a":[],"b":{},"c":null,"d":-1.5e3}`,
	} {
		checkWalk(t, []byte(s))
	}
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{{"12", 12, true}, {"-3", -3, true}, {"1.9", 1, true}, {"1e3", 1000, true}, {"1e400", int(^uint(0) >> 1), true}, {`"1"`, 0, false}, {"-", 0, false}} {
		if n, ok := num([]byte(tc.in)); n != tc.want || ok != tc.ok {
			t.Errorf("num(%s) = %d, %v", tc.in, n, ok)
		}
	}
}
