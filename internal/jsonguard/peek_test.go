package jsonguard

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/segmentio/encoding/json"
)

var peekTests = []struct {
	name string
	in   string
	key  string
	want string
	ok   bool
}{
	{"simple", `{"type":"assistant"}`, "type", "assistant", true},
	{"whitespace", " \t{ \"type\" \r\n : \"x\" } ", "type", "x", true},
	{"later member", `{"a":1,"b":[1,2],"type":"x"}`, "type", "x", true},
	{"nested type ignored", `{"message":{"type":"message"},"type":"assistant"}`, "type", "assistant", true},
	{"only nested type", `{"message":{"type":"message"}}`, "type", "", false},
	{"nested in array ignored", `{"content":[{"type":"text"}],"x":1}`, "type", "", false},
	{"type as a string value elsewhere", `{"a":"type","b":"\"type\":\"no\""}`, "type", "", false},
	{"escaped value", `{"type":"a\u0073sist\"ant\\"}`, "type", "assist\"ant\\", true},
	{"surrogate pair", `{"type":"\ud83d\ude00"}`, "type", "😀", true},
	{"lone surrogate", `{"type":"\ud800x"}`, "type", "\uFFFDx", true},
	{"invalid UTF-8", "{\"type\":\"a\xffb\"}", "type", "a\uFFFDb", true},
	{"escaped key", `{"t\u0079pe":"x"}`, "type", "x", true},
	{"key case differs", `{"Type":"x"}`, "type", "", false},
	{"duplicate: last wins", `{"type":"a","type":"b"}`, "type", "b", true},
	{"duplicate: last is not a string", `{"type":"a","type":1}`, "type", "", false},
	{"duplicate: last is null", `{"type":"a","type":null}`, "type", "", false},
	{"duplicate: string after object", `{"type":{"type":"x"},"type":"b"}`, "type", "b", true},
	{"number", `{"type":5}`, "type", "", false},
	{"empty string", `{"type":""}`, "type", "", true},
	{"array line", `[{"type":"x"}]`, "type", "", false},
	{"string line", `"type"`, "type", "", false},
	{"empty object", `{}`, "type", "", false},
	{"blank", "  ", "type", "", false},
	{"empty", "", "type", "", false},
	{"method", `{"id":1,"method":"item/started","params":{"method":"no"}}`, "method", "item/started", true},
	{"brackets in nested strings", `{"a":["]}\"]}"],"type":"x"}`, "type", "x", true},
	{"truncated", `{"type":"x`, "type", "", false},
	{"truncated after", `{"type":"x","a":[`, "type", "x", true},
}

func TestPeekString(t *testing.T) {
	for _, tc := range peekTests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PeekString([]byte(tc.in), tc.key, nil)
			if ok != tc.ok || string(got) != tc.want {
				t.Fatalf("PeekString(%q, %q) = %q, %v; want %q, %v", tc.in, tc.key, got, ok, tc.want, tc.ok)
			}
			// Agreement with a full decode whenever the line is valid.
			var m map[string]any
			if json.Unmarshal([]byte(tc.in), &m) == nil {
				s, isStr := m[tc.key].(string)
				if isStr != ok || s != string(got) {
					t.Fatalf("decode says %q, %v; peek %q, %v", s, isStr, got, ok)
				}
			}
		})
	}
}

func TestPeekAliases(t *testing.T) {
	in := []byte(`{"type":"plain"}`)
	got, _ := PeekString(in, "type", nil)
	if &got[0] != &in[9] {
		t.Fatal("unescaped value was copied")
	}
	buf := make([]byte, 0, 32)
	got, _ = PeekString([]byte(`{"type":"a\nb"}`), "type", buf)
	if string(got) != "a\nb" || &got[0] != &buf[:1][0] {
		t.Fatalf("escaped value not decoded into dst: %q", got)
	}
}

// skipStringRef is skipString as it was before its word-at-a-time
// prelude: a quote search with the backslash run before each quote
// counted.
func skipStringRef(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b) + 1
		}
		q := i + j
		k := q
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// TestSkipStringReference holds skipString to skipStringRef, from every
// start, on strings over a quote, a backslash and two other bytes (one of
// them >= 0x80): all of up to 8 bytes, and random ones of 10 to 40.
func TestSkipStringReference(t *testing.T) {
	alphabet := []byte{'"', '\\', 'a', 0xc3}
	check := func(b []byte) {
		for i := 0; i <= len(b); i++ {
			if got, want := skipString(b, i), skipStringRef(b, i); got != want {
				t.Fatalf("skipString(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	}
	for n := 0; n <= 8; n++ {
		b := make([]byte, n)
		for code := 0; code < 1<<(2*n); code++ {
			for k := range b {
				b[k] = alphabet[code>>(2*k)&3]
			}
			check(b)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, 10+rng.IntN(31))
		for k := range b {
			// Mostly plain bytes, so that quotes lie past the first words.
			if rng.IntN(8) == 0 {
				b[k] = alphabet[rng.IntN(2)]
			} else {
				b[k] = alphabet[2+rng.IntN(2)]
			}
		}
		check(b)
	}
}
