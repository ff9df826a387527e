package jsonguard

import (
	"bytes"
	stdjson "encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStrict holds the strict readers to Check: a value StrictValue takes
// at a given depth is one Check accepts at that depth, ending at the same
// place (StrictMembersFrom, from any of an object's member names, ends
// there too); and on input without a backslash (so no escaped member name) a
// value Check accepts is one StrictValue takes.
func FuzzStrict(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `"x"`, `1e400`, `-0.5e+3`, `{"a":[1,{"b":"c"}],"d":null}`, ` {"a" : true , "b":false} `,
		`{"a":1,}`, `[1,]`, `01`, `-`, `1.`, `1e`, `tru`, `"\u12"`, "\"\t\"", `{"a\u0062":1}`,
		`[[[[1]]]]`, "{\"a\xff\xa2b\":\"\xdc\",\"\xed\xa0\x80\":1}", `{"usageMetadata": {"promptTokenCount": 1250,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 1250}]}}`,
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Add([]byte(`{"a": 1,"b": [{"c": "d"}],"e": 2}`+"\n"+`{"a": 1,"b": [{"c": "d"}],"e": 3}`), uint8(4))
	f.Add([]byte(`{"a": 1,"b": 2}`+"\n"+`{"a": 12,"b": 2}`), uint8(4))
	f.Add([]byte(`{"a": 12,"b": 2}`+"\n"+`{"a": 1,"b": 2}`), uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, d uint8) {
		depth := int(d) % 8
		i := SkipWS(b, 0)
		if i >= len(b) {
			return
		}
		end := StrictValue(b, i, depth)
		whole := Check(b, max(depth, 1))
		if depth == 0 && b[i] != '{' && b[i] != '[' {
			whole = Check(b, 1)
		}
		if end >= 0 {
			if err := Check(b[i:end], max(depth, 1)); err != nil {
				t.Fatalf("StrictValue took %q (depth %d), Check: %v", b[i:end], depth, err)
			}
			if SkipWS(b, end) == len(b) && whole != nil {
				t.Fatalf("StrictValue took all of %q (depth %d), Check: %v", b, depth, whole)
			}
		}
		if end >= 0 && b[i] == '{' {
			// Going on from any member's name gives the same end.
			_ = StrictMembers(b, i, func(name []byte, j int) int {
				at := cap(b) - cap(name)
				if got := StrictMembersFrom(b, at, func(_ []byte, j int) int { return StrictValue(b, j, depth-1) }); got != end {
					t.Fatalf("StrictMembersFrom(%q, %d) = %d, StrictValue = %d", b, at, got, end)
				}
				return StrictValue(b, j, depth-1)
			})
		}
		if b[i] == '{' {
			// A memo takes only what StrictValue takes, ending there: after
			// the input's first line (when an object), on the rest; and
			// the same object twice.
			var m StrictMemo
			if a, c, ok := bytes.Cut(b, []byte("\n")); ok {
				if ai := SkipWS(a, 0); ai < len(a) {
					_ = m.Object(a, ai, depth)
				}
				if ci := SkipWS(c, 0); ci < len(c) && c[ci] == '{' {
					if got, want := m.Object(c, ci, depth), StrictValue(c, ci, depth); got >= 0 && got != want {
						t.Fatalf("StrictMemo.Object(%q) after %q = %d, StrictValue = %d", c, a, got, want)
					}
				}
			}
			if got := m.Object(b, i, depth); got >= 0 {
				if got != end {
					t.Fatalf("StrictMemo.Object(%q) = %d, StrictValue = %d", b, got, end)
				}
				if m.Object(b, i, depth) != end {
					t.Fatalf("StrictMemo.Object(%q) declined the object it took", b)
				}
			}
		}
		if whole == nil && bytes.IndexByte(b, '\\') < 0 && (depth > 0 || (b[i] != '{' && b[i] != '[')) {
			if end < 0 || SkipWS(b, end) != len(b) {
				t.Fatalf("Check accepts %q at depth %d, StrictValue = %d", b, depth, end)
			}
		}
	})
}

// TestNameEndHighBytes holds nameEnd, whose first 32 bytes are read
// eight at a time, to StringEnd on member names holding bytes >= 0x80:
// invalid UTF-8 (a stray continuation byte, a truncated sequence, an
// encoded surrogate, 0xff) and the bytes that differ from a quote, a
// backslash or a control byte only in their top bit (0xa2, 0xdc, 0x80,
// 0x9f), at every offset of each of the words it reads and past them.
// Neither Check nor encoding/json's Valid rejects invalid UTF-8 in a
// string (the decoders replace it with U+FFFD), and a name is a string:
// StrictMembers takes such a name exactly when the same bytes as a string
// value are taken, Check accepts the object, and Valid does.
func TestNameEndHighBytes(t *testing.T) {
	bad := []string{"\x80", "\xbf", "\xc0", "\xe2\x82", "\xed\xa0\x80", "\xff", "\xa2", "\xdc", "\x9f", "\xc3\xa9", "\xa2\xdc\xa2"}
	for _, seq := range bad {
		for n := 0; n <= 44; n++ {
			for k := 0; k <= n; k++ {
				name := strings.Repeat("a", k) + seq + strings.Repeat("b", n-k)
				obj := []byte(`{"` + name + `":1,"z":2}`)
				want := -1
				if end, esc, ok := StringEnd(obj, 1); ok && !esc {
					want = end
				}
				if want != len(name)+3 {
					t.Fatalf("StringEnd(%q) = %d, want %d", obj, want, len(name)+3)
				}
				if got := nameEnd(obj, 1); got != want {
					t.Fatalf("nameEnd(%q) = %d, StringEnd %d", obj, got, want)
				}
				val := []byte(`{"z":"` + name + `","y":2}`)
				gotObj := StrictValue(obj, 0, 1) == len(obj)
				gotVal := StrictValue(val, 0, 1) == len(val)
				if !gotObj || !gotVal || Check(obj, 0) != nil || !stdjson.Valid(obj) {
					t.Fatalf("%q: StrictValue as a name %v, as a value %v; Check %v; Valid %v (utf8.Valid %v)",
						name, gotObj, gotVal, Check(obj, 0), stdjson.Valid(obj), utf8.ValidString(name))
				}
				// The same name with a control byte or a backslash after
				// the high bytes: declined, as StringEnd says.
				for _, c := range []string{"\x01", "\x1f", `\n`, `\u00e9`} {
					o := []byte(`{"` + name + c + `":1}`)
					wantEnd := -1
					if end, esc, ok := StringEnd(o, 1); ok && !esc {
						wantEnd = end
					}
					if got := nameEnd(o, 1); got != wantEnd || got >= 0 {
						t.Fatalf("nameEnd(%q) = %d, StringEnd %d", o, got, wantEnd)
					}
				}
			}
		}
	}
}
