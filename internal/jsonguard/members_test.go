package jsonguard

import (
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestPropCheckMembers: on any valid object, CheckMembers accepts it and
// reports every top-level member once, in order, with the exact bytes of
// its name and value: the object rebuilt from them decodes to the same
// value, and the count is the number of members encoding/json's tokenizer
// sees at the top level.
func TestPropCheckMembers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genWS.Draw(t, "lead") + genObject(3).Draw(t, "object") + genWS.Draw(t, "trail")
		b := []byte(in)
		var parts []string
		if err := CheckMembers(b, 0, func(name, value []byte) {
			if err := Check(name, 0); err != nil || name[0] != '"' {
				t.Fatalf("name %q is not a string literal: %v", name, err)
			}
			if err := Check(value, 0); err != nil || len(value) == 0 || value[0] <= ' ' || value[len(value)-1] <= ' ' {
				t.Fatalf("value %q is not one exact JSON value: %v", value, err)
			}
			parts = append(parts, string(name)+":"+string(value))
		}); err != nil {
			t.Fatalf("CheckMembers(%q) = %v", in, err)
		}
		var want, got any
		if err := stdjson.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if err := stdjson.Unmarshal([]byte("{"+strings.Join(parts, ",")+"}"), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rebuilt %v, want %v", got, want)
		}
		if n := topMembers(t, b); n != len(parts) {
			t.Fatalf("%d members reported, the tokenizer sees %d in %s", len(parts), n, in)
		}
	})
}

// topMembers counts the top-level members of a valid object.
func topMembers(t *rapid.T, b []byte) int {
	d := stdjson.NewDecoder(strings.NewReader(string(b)))
	depth, n, key := 0, 0, true
	for {
		tok, err := d.Token()
		if err != nil {
			return n
		}
		switch tok {
		case stdjson.Delim('{'), stdjson.Delim('['):
			if depth == 1 {
				key = true
			}
			depth++
			continue
		case stdjson.Delim('}'), stdjson.Delim(']'):
			depth--
			if depth == 1 {
				key = true
			}
			continue
		}
		if depth == 1 {
			if key {
				n++
			}
			key = !key
		}
	}
}

func TestCheckMembers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`{}`, nil},
		{` { "a" : 1 , "b":[1,{"c":2}], "c\u0064":{"x":[]} ,"e":"s\"}"} `, []string{`"a"=1`, `"b"=[1,{"c":2}]`, `"c\u0064"={"x":[]}`, `"e"="s\"}"`}},
		{`{"a":{},"b":[],"c":null,"d":-1.5e3}`, []string{`"a"={}`, `"b"=[]`, `"c"=null`, `"d"=-1.5e3`}},
		{`[{"a":1}]`, nil},
		{`"x"`, nil},
	} {
		var got []string
		if err := CheckMembers([]byte(tc.in), 0, func(n, v []byte) { got = append(got, string(n)+"="+string(v)) }); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: members %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, in := range []string{`{"a":1,}`, `{"a" 1}`, `{"a":1}x`, `{"a":[1,]}`, `{"a":tru}`, `{`} {
		want := Check([]byte(in), 0)
		if err := CheckMembers([]byte(in), 0, func(_, _ []byte) {}); want == nil || !reflect.DeepEqual(err, want) {
			t.Errorf("%s: CheckMembers = %v, Check = %v", in, err, want)
		}
	}
}

// nestedCall is one call of CheckNested's fn.
type nestedCall struct {
	level, obj  int
	name, value string
}

// nestedRef is what CheckNested(b, _, levels, fn) reports on a valid b,
// found by a recursive walk with the walk helpers: each member of an
// object within levels levels, after the members inside its value.
func nestedRef(b []byte, levels int) []nestedCall {
	out := []nestedCall{}
	var value func(i, depth int) int
	value = func(i, depth int) int {
		switch b[i] {
		case '{':
			j := SkipWS(b, i+1)
			for b[j] == '"' {
				kEnd := ValueEnd(b, j)
				k := SkipWS(b, SkipWS(b, kEnd)+1)
				end := value(k, depth+1)
				if depth+1 <= levels {
					out = append(out, nestedCall{depth + 1, i, string(b[j:kEnd]), string(b[k:end])})
				}
				if j = SkipWS(b, end); b[j] == ',' {
					j = SkipWS(b, j+1)
				}
			}
			return j + 1
		case '[':
			j := SkipWS(b, i+1)
			for b[j] != ']' {
				if j = SkipWS(b, value(j, depth+1)); b[j] == ',' {
					j = SkipWS(b, j+1)
				}
			}
			return j + 1
		}
		return ValueEnd(b, i)
	}
	if i := SkipWS(b, 0); b[i] == '{' {
		value(i, 0)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// TestPropCheckNested: on any valid object, CheckNested at every level
// reports what nestedRef finds, and at level 1 what CheckMembers does.
func TestPropCheckNested(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := []byte(genWS.Draw(t, "lead") + genObject(4).Draw(t, "object") + genWS.Draw(t, "trail"))
		for levels := 1; levels <= MaxLevels; levels++ {
			var got []nestedCall
			if err := CheckNested(b, 0, levels, func(level, obj int, name, value []byte) {
				got = append(got, nestedCall{level, obj, string(name), string(value)})
			}); err != nil {
				t.Fatalf("CheckNested(%q) = %v", b, err)
			}
			if want := nestedRef(b, levels); !reflect.DeepEqual(got, want) {
				t.Fatalf("CheckNested(%q, %d) = %+v, want %+v", b, levels, got, want)
			}
			if levels == 1 {
				var top []nestedCall
				CheckMembers(b, 0, func(name, value []byte) {
					top = append(top, nestedCall{1, SkipWS(b, 0), string(name), string(value)})
				})
				if !reflect.DeepEqual(got, top) {
					t.Fatalf("CheckNested(%q, 1) = %+v, CheckMembers %+v", b, got, top)
				}
			}
		}
	})
}

func TestCheckNested(t *testing.T) {
	b := []byte(`{"a":{"b":[{"c":1}],"d":{"e":{"f":2}}},"g":3}`)
	var got []string
	if err := CheckNested(b, 0, 3, func(level, obj int, name, value []byte) {
		got = append(got, fmt.Sprintf("%d@%d %s=%s", level, obj, name, value))
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		// "c", in an object in b's array, is at level 4 (the array is a
		// level): not reported; nor is "f", at level 4 too.
		`2@5 "b"=[{"c":1}]`,
		`3@24 "e"={"f":2}`,
		`2@5 "d"={"e":{"f":2}}`,
		`1@0 "a"={"b":[{"c":1}],"d":{"e":{"f":2}}}`,
		`1@0 "g"=3`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
