package jsonguard

import (
	"encoding/binary"
	stdjson "encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/segmentio/encoding/json"
)

var checkTests = []struct {
	name string
	in   string
	err  string // "" = valid
	off  int
}{
	{"null", "null", "", 0},
	{"spaces around", " \t\r\n{} \n", "", 0},
	{"nested", `{"a":[1,{"b":[true,false,null]}],"c":"d"}`, "", 0},
	{"numbers", `[0,-0,1.5,-2e10,3E+2,4e-3,123456789012345678901234567890]`, "", 0},
	{"escapes", `"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, "", 0},
	{"invalid UTF-8 accepted like encoding/json", "\"\xff\xfe\"", "", 0},
	{"brackets in strings", `["[[[{{{", "\"]]"]`, "", 0},
	{"empty", "", "unexpected end of JSON input", 0},
	{"blank", "  ", "unexpected end of JSON input", 2},
	{"bad start", "x", "invalid character 'x' looking for beginning of value", 0},
	{"BOM", "\xEF\xBB\xBF{}", "invalid character 'ï' looking for beginning of value", 0},
	{"after key", `{"a" 1}`, "invalid character '1' after object key", 5},
	{"after pair", `{"a":1 "b":2}`, "invalid character '\"' after object key:value pair", 7},
	{"after element", `[1 2]`, "invalid character '2' after array element", 3},
	{"key not string", `{1:2}`, "invalid character '1' looking for beginning of object key string", 1},
	{"trailing comma object", `{"a":1,}`, "invalid character '}' looking for beginning of object key string", 7},
	{"trailing comma array", `[1,]`, "invalid character ']' looking for beginning of value", 3},
	{"two values", `{} {}`, "invalid character '{' after top-level value", 3},
	{"unterminated string", `"abc`, "unexpected end of JSON input", 4},
	{"control char", "\"a\tb\"", `invalid character '\t' in string literal`, 2},
	{"bad escape", `"\x"`, "invalid character 'x' in string escape code", 2},
	{"bad unicode escape", `"\u12g4"`, `invalid character 'g' in \u hexadecimal character escape`, 5},
	{"leading zero", `01`, "invalid character '1' after top-level value", 1},
	{"minus alone", `-`, "unexpected end of JSON input", 1},
	{"minus letter", `-a`, "invalid character 'a' in numeric literal", 1},
	{"dot", `1.`, "unexpected end of JSON input", 2},
	{"dot letter", `1.x`, "invalid character 'x' after decimal point in numeric literal", 2},
	{"exponent", `1e+`, "unexpected end of JSON input", 3},
	{"exponent letter", `1ex`, "invalid character 'x' in exponent of numeric literal", 2},
	{"literal", `tru`, "unexpected end of JSON input", 3},
	{"literal typo", `nul1`, "invalid character '1' in literal null (expecting 'l')", 3},
	{"unclosed array", `[1`, "unexpected end of JSON input", 2},
	{"mismatched", `[1}`, "invalid character '}' after array element", 2},
	{"depth ok", strings.Repeat("[", 8) + strings.Repeat("]", 8), "", 0},
	{"too deep", strings.Repeat("[", 9) + strings.Repeat("]", 9), "exceeded max depth", 8},
	{"too deep objects", strings.Repeat(`{"a":`, 9) + "1" + strings.Repeat("}", 9), "exceeded max depth", 40},
}

func TestCheck(t *testing.T) {
	for _, tc := range checkTests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.in), 8)
			if tc.err == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want nil", tc.in, err)
				}
			} else {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("Check(%q) = %v, want *SyntaxError", tc.in, err)
				}
				if se.Msg != tc.err || se.Offset != tc.off {
					t.Fatalf("Check(%q) = %q at %d, want %q at %d", tc.in, se.Msg, se.Offset, tc.err, tc.off)
				}
				if errors.Is(err, ErrTooDeep) != strings.Contains(tc.err, "depth") {
					t.Fatalf("errors.Is(ErrTooDeep) wrong for %v", err)
				}
			}
			// The message matches encoding/json's, depth aside.
			if !strings.Contains(tc.name, "deep") && !strings.Contains(tc.name, "depth") {
				var v any
				stdErr := stdjson.Unmarshal([]byte(tc.in), &v)
				if (stdErr == nil) != (err == nil) {
					t.Fatalf("encoding/json disagrees: %v vs %v", stdErr, err)
				}
				if err != nil {
					var ste *stdjson.SyntaxError
					// encoding/json reports an early end inside a number or
					// literal as "invalid character ' '"; we say what happened.
					if errors.As(stdErr, &ste) && ste.Error() != err.Error() && err.Error() != "unexpected end of JSON input" {
						t.Errorf("message %q, encoding/json says %q", err, ste)
					}
				}
			}
		})
	}
}

func TestCheckDepth(t *testing.T) {
	for _, tc := range []struct {
		in  string
		max int
		ok  bool
		off int
	}{
		{"[[[]]]", 3, true, 0},
		{"[[[[]]]]", 3, false, 3},
		{`[["[[[[[[[["]]`, 2, true, 0},
		{`[["\"[[[[[[[["]]`, 2, true, 0},
		{`[["\\"[[[]]]]]`, 2, false, 6},
		{`{"a":{"b":{"c":{}}}}`, 3, false, 15},
		{`]]]][[[`, 3, true, 0},
		{`]]]][[[[`, 3, false, 7},
		{`"unterminated [[[[[[[[`, 3, true, 0},
		{strings.Repeat("[", 10), 10, true, 0},
		{strings.Repeat("[", 11), 10, false, 10},
		{strings.Repeat("[]", 100), 1, true, 0},
	} {
		err := CheckDepth([]byte(tc.in), tc.max)
		if tc.ok != (err == nil) {
			t.Errorf("CheckDepth(%q, %d) = %v, want ok=%v", tc.in, tc.max, err, tc.ok)
			continue
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset != tc.off || !errors.Is(err, ErrTooDeep) {
				t.Errorf("CheckDepth(%q, %d) = %#v, want ErrTooDeep at %d", tc.in, tc.max, err, tc.off)
			}
		}
	}
}

func TestDefaults(t *testing.T) {
	deep := []byte(strings.Repeat("[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth))
	deeper := []byte("[" + string(deep) + "]")
	if CheckDepth(deep, 0) != nil || Check(deep, 0) != nil || Unmarshal(deep, new(any), 0) != nil {
		t.Error("DefaultMaxDepth levels rejected")
	}
	if CheckDepth(deeper, 0) == nil || Check(deeper, -1) == nil || Unmarshal(deeper, new(any), 0) == nil {
		t.Error("DefaultMaxDepth+1 levels accepted")
	}
	// Beyond StackDepth, Check allocates its stack and still works.
	huge := []byte(strings.Repeat("[", StackDepth+10) + strings.Repeat("]", StackDepth+10))
	if err := Check(huge, StackDepth+10); err != nil {
		t.Errorf("Check huge: %v", err)
	}
	if err := Check(huge, StackDepth+9); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Check huge with limit-1: %v", err)
	}
}

// TestDeepInputDoesNotCrash feeds 5 MB of '[' (segmentio alone dies with
// a fatal stack overflow on this) through Unmarshal.
func TestDeepInputDoesNotCrash(t *testing.T) {
	b := []byte(strings.Repeat("[", 5<<20))
	for _, v := range []any{new(any), new(json.RawMessage), new([]any), new(struct{ A []any })} {
		err := Unmarshal(b, v, 0)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrTooDeep) || se.Offset != DefaultMaxDepth {
			t.Fatalf("Unmarshal(5 MB of '[') = %v, want ErrTooDeep at %d", err, DefaultMaxDepth)
		}
	}
	// Deep, but a syntax error comes first: the first error wins.
	b[100] = 'x'
	if err := Unmarshal(b, new(any), 0); err == nil || errors.Is(err, ErrTooDeep) || err.(*SyntaxError).Offset != 100 {
		t.Fatalf("Unmarshal = %v, want the syntax error at 100", err)
	}
}

func TestUnmarshal(t *testing.T) {
	var v struct {
		Type string `json:"type"`
		N    int64  `json:"n"`
	}
	if err := Unmarshal([]byte(`{"type":"a","TYPE":"b","n":9007199254740993}`), &v, 0); err != nil || v.Type != "b" || v.N != 9007199254740993 {
		t.Fatalf("Unmarshal = %+v, %v", v, err)
	}
	// A type error keeps segmentio's error.
	err := Unmarshal([]byte(`{"n":"x"}`), &v, 0)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		t.Fatalf("type error = %T %v, want *json.UnmarshalTypeError", err, err)
	}
	// A syntax error is positioned, even when the value has a type problem
	// before it.
	err = Unmarshal([]byte(`{"n":"x",}`), &v, 0)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 9 {
		t.Fatalf("syntax error = %v, want *SyntaxError at 9", err)
	}
	if se.Error() != "invalid character '}' looking for beginning of object key string" {
		t.Fatalf("message %q", se.Error())
	}
}

func TestZeroAllocs(t *testing.T) {
	line := []byte(`{"type":"assistant","message":{"type":"message","content":[{"type":"text","text":"` + strings.Repeat("[{", 400) + `"}]},"session_id":"x"}`)
	if n := testing.AllocsPerRun(100, func() {
		if CheckDepth(line, 0) != nil || Check(line, 0) != nil {
			t.Fatal("rejected")
		}
		if v, ok := PeekString(line, "type", nil); !ok || string(v) != "assistant" {
			t.Fatal("peek")
		}
	}); n != 0 {
		t.Fatalf("allocs = %v, want 0", n)
	}
	// The member callbacks, closures over the caller's variables, do not
	// escape either (a CheckNested fn that escaped cost the jsonrpc
	// reader an allocation per line), and an index used again allocates
	// nothing.
	var mem Members
	var idx Index
	members := 0
	if n := testing.AllocsPerRun(100, func() {
		if CheckMembers(line, 0, func(_, _ []byte) { members++ }) != nil ||
			CheckIndex(line, 0, 4, &idx) != nil ||
			mem.Check(line, 0, func(_, _ []byte) { members++ }) != nil {
			t.Fatal("rejected")
		}
	}); n != 0 {
		t.Fatalf("allocs with members = %v, want 0", n)
	}
}

func TestValueEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		i    int
		want int
	}{
		{`"a\"b",1`, 0, 6},
		{`{"a":[1,"]"]} ,`, 0, 13},
		{`[[],{}]x`, 0, 7},
		{`-12.5e3,`, 0, 7},
		{`true}`, 0, 4},
		{`"unterminated`, 0, 13},
		{`[1,2`, 0, 4},
		{` x`, 1, 2},
	} {
		if got := ValueEnd([]byte(c.in), c.i); got != c.want {
			t.Errorf("ValueEnd(%q, %d) = %d, want %d", c.in, c.i, got, c.want)
		}
	}
	if got := SkipWS([]byte(" \t\r\n x"), 0); got != 5 {
		t.Errorf("SkipWS = %d, want 5", got)
	}
}

// TestHasStrSpecial: for every byte at every position among eight bytes of
// every non-special filler, the word test agrees with the byte table.
func TestHasStrSpecial(t *testing.T) {
	var w [8]byte
	for f := range 256 {
		if strSpecial[f] {
			continue
		}
		for p := range 8 {
			for c := range 256 {
				for k := range w {
					w[k] = byte(f)
				}
				w[p] = byte(c)
				x := binary.LittleEndian.Uint64(w[:])
				if got := hasStrSpecial(x); got != strSpecial[c] {
					t.Fatalf("hasStrSpecial(% x) = %v, want %v", w, got, strSpecial[c])
				}
			}
		}
	}
}

// TestStringEnd agrees with Check on every literal of checkTests that
// starts with a quote, and on a few of its own.
func TestStringEnd(t *testing.T) {
	ins := []string{`""`, `"a"`, `"\u00e9\n\"x\\"`, `"abcdefghijklmnopqrstuvwxyz0123456789"`, "\"a\x01\"", `"\x"`, `"\u12g4"`, `"abc`, `"\`, `"\u12`,
		"\"0123456789abcdef\x1f\"", `"0123456789abcdef0123456789\"abcdef"`}
	for _, c := range checkTests {
		if strings.HasPrefix(c.in, `"`) {
			ins = append(ins, c.in)
		}
	}
	for _, in := range ins {
		b := []byte(in + ` ,`)
		end, esc, ok := StringEnd(b, 0)
		want := Check([]byte(in), 0) == nil
		if ok != want || ok && (end != len(in) || esc != strings.Contains(in, `\`)) {
			t.Errorf("StringEnd(%q) = %d, %v, %v; Check says valid=%v", in, end, esc, ok, want)
		}
	}
}

// TestUnmarshalExactSize: decoding into a nil map[string]any or any gives
// encoding/json's values, with maps no larger than their members need
// (segmentio allocates room for 64 members per object: about 5 KB for
// {"type":"x"}).
func TestUnmarshalExactSize(t *testing.T) {
	for _, in := range []string{
		`{"type":"x"}`, ` {"a":[1,-2,3.5e2,-0,123456789012345678,true,false,null,{}],"b":{"c":"\u00e9\ud800x"},"a":"dup"} `,
		"{\"s\":\"\xff\\n\"}", `[]`, `"x"`, `12`, `{"n":1e999}`, `null`,
	} {
		var got, want any
		e1, e2 := Unmarshal([]byte(in), &got, 0), stdjson.Unmarshal([]byte(in), &want)
		if (e1 == nil) != (e2 == nil) || e1 == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Unmarshal = %#v, %v; encoding/json = %#v, %v", in, got, e1, want, e2)
		}
		var gm, wm map[string]any
		e1, e2 = Unmarshal([]byte(in), &gm, 0), stdjson.Unmarshal([]byte(in), &wm)
		if (e1 == nil) != (e2 == nil) || e1 == nil && !reflect.DeepEqual(gm, wm) {
			t.Errorf("%s: Unmarshal into a map = %#v, %v; encoding/json = %#v, %v", in, gm, e1, wm, e2)
		}
	}
	line := []byte(`{"type":"x","item":{"id":"a","n":1}}`)
	var m map[string]any
	_ = Unmarshal(line, &m, 0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		m = nil
		_ = Unmarshal(line, &m, 0)
	}
	runtime.ReadMemStats(&after)
	limit := uint64(1024)
	if raceEnabled {
		limit *= 2
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > limit {
		t.Errorf("decoding %s into a map allocates %d bytes, want at most %d", line, per, limit)
	}
}

// TestDecodeCheckedAfterRangeError: a decode that stops at a number out of
// range, inside objects and arrays, leaves nothing behind for the next
// ones (the decoders are pooled), whose values are encoding/json's.
func TestDecodeCheckedAfterRangeError(t *testing.T) {
	for _, bad := range []string{`{"a":1,"b":[2,{"c":"\u00e9"},1e999]}`, `[1,[2,3,1e999]]`} {
		for _, in := range []string{`{"x":[1,"y\n",{"z":null}],"w":"v"}`, `[4,[5],"\t"]`} {
			if _, ok := DecodeChecked([]byte(bad)); ok {
				t.Fatalf("DecodeChecked(%s) ok", bad)
			}
			got, ok := DecodeChecked([]byte(in))
			var want any
			if err := stdjson.Unmarshal([]byte(in), &want); err != nil || !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("after %s: DecodeChecked(%s) = %#v, %v; encoding/json %#v", bad, in, got, ok, want)
			}
		}
	}
}

// TestAny: a field of type Any holds what Unmarshal gives an interface{},
// decoded with its struct, and a value that does not fit a float64 (or
// null) leaves it nil without failing the struct.
func TestAny(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{`{"v":{"a":[1,"x",null,true]},"n":2}`, map[string]any{"a": []any{1.0, "x", nil, true}}},
		{`{"v":"\u00e9","n":2}`, "\u00e9"},
		{`{"v":null,"n":2}`, nil},
		{`{"v":{"big":1e999},"n":2}`, nil},
		{`{"n":2}`, nil},
	} {
		var s struct {
			V Any `json:"v"`
			N int `json:"n"`
		}
		if err := Unmarshal([]byte(tc.in), &s, 0); err != nil || s.N != 2 || !reflect.DeepEqual(s.V.V, tc.want) {
			t.Errorf("%s: V = %#v, N = %d, %v; want %#v, 2, nil", tc.in, s.V.V, s.N, err, tc.want)
		}
	}
}

func TestAppendString(t *testing.T) {
	ins := []string{`""`, `"a"`, `"\u00e9\n\"x\\\/\b\f\r\t"`, `"\uD83D\uDE00"`, `"\uD83D"`, `"\uDE00x"`, "\"\xff\xfe\"", `"caf\u00e9 \u003c"`, `"日本"`}
	for _, c := range checkTests {
		if strings.HasPrefix(c.in, `"`) && c.err == "" {
			ins = append(ins, c.in)
		}
	}
	for _, in := range ins {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := string(AppendString([]byte("x"), []byte(in))); got != "x"+want {
			t.Errorf("AppendString(%q) = %q, want %q", in, got, "x"+want)
		}
	}
}

// TestAppendLiteral: AppendLiteral agrees with StringEnd and AppendString
// on the literals of TestStringEnd and TestAppendString, alone and with
// bytes after them, and decodes as encoding/json does.
func TestAppendLiteral(t *testing.T) {
	ins := []string{`""`, `"a"`, `"\u00e9\n\"x\\\/\b\f\r\t"`, `"\uD83D\uDE00"`, `"\uD83D"`, `"\uD83D\u0041"`, `"\uDE00x"`, `"\uD83D\uD83D\uDE00"`,
		"\"\xff\xfe\"", "\"ab\xe6\x97cd\"", "\"\xe6\x97\xa5\xe6\x9c\xac plain ascii text after it\"", `"caf\u00e9 \u003c"`, `"日本"`,
		`"abcdefghijklmnopqrstuvwxyz0123456789"`, "\"a\x01\"", `"\x"`, `"\u12g4"`, `"abc`, `"\`, `"\u12`, `"\uD83D\u12`,
		"\"0123456789abcdef\x1f\"", `"0123456789abcdef0123456789\"abcdef"`, ` word and \"more\" text`}
	for _, c := range checkTests {
		if strings.HasPrefix(c.in, `"`) {
			ins = append(ins, c.in)
		}
	}
	for _, in := range ins {
		for _, tail := range []string{"", `} ,`, "\x80\"x"} {
			literalsBoth(t, []byte(in+tail))
		}
		if _, end, ok := AppendLiteral(nil, []byte(in), 0); ok && end == len(in) {
			var want string
			if err := json.Unmarshal([]byte(in), &want); err != nil {
				t.Fatalf("%q: AppendLiteral accepts what encoding/json rejects: %v", in, err)
			}
			if got, _, _ := AppendLiteral(nil, []byte(in), 0); string(got) != want {
				t.Errorf("AppendLiteral(%q) = %q, want %q", in, got, want)
			}
		}
	}
}

func TestNumbersFit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"type":"x"}`, true}, {`{"n":1e308}`, true}, {`{"n":1e999}`, false}, {`{"n":-1E+999}`, false},
		{`{"n":1e-999}`, true}, {`{"s":"1e999"}`, true}, {`{"s":"\"1e999"}`, true}, {`[1,2.5,-0,1e999]`, false},
		{`{"n":` + strings.Repeat("9", 400) + `}`, false}, {`{"n":` + strings.Repeat("9", 300) + `}`, true},
	} {
		var v any
		if got := NumbersFit([]byte(c.in)); got != c.want || got != (stdjson.Unmarshal([]byte(c.in), &v) == nil) {
			t.Errorf("NumbersFit(%.40s) = %v, want %v (and what encoding/json says)", c.in, got, c.want)
		}
	}
}

func TestPlainInt(t *testing.T) {
	for _, c := range []struct {
		tok string
		n   int64
		ok  bool
	}{
		{"0", 0, true}, {"-7", -7, true}, {"123456789012345678", 123456789012345678, true},
		{"1234567890123456789", 0, false}, {"", 0, false}, {"-", 0, false}, {"1.5", 0, false}, {"1e3", 0, false},
	} {
		if n, ok := PlainInt([]byte(c.tok)); n != c.n || ok != c.ok {
			t.Errorf("PlainInt(%q) = %d, %v; want %d, %v", c.tok, n, ok, c.n, c.ok)
		}
	}
}

// TestDecodeCheckedNames: the decoder's cache of member names gives each
// name its own value, for names of one cache slot (the same length, first
// and last byte), names the cache does not hold (escaped, non-ASCII,
// empty, long), and a name met again in a later value.
func TestDecodeCheckedNames(t *testing.T) {
	long := strings.Repeat("n", maxCachedName+1)
	for _, in := range []string{
		`{"abc":1,"axc":2,"abc":3,"ayc":{"axc":4,"abc":5}}`,
		`{"a\u0062c":1,"abc":2,"\u00e9":3,"é":4,"":5,"` + long + `":6,"` + long[1:] + `":7}`,
		`{"abc":[{"axc":1},{"abc":2}],"axc":"abc"}`,
	} {
		for range 2 {
			got, ok := DecodeChecked([]byte(in))
			var want any
			if err := stdjson.Unmarshal([]byte(in), &want); err != nil || !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("DecodeChecked(%s) = %#v, %v; encoding/json %#v", in, got, ok, want)
			}
		}
	}
}
