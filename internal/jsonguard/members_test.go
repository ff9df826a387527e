package jsonguard

import (
	stdjson "encoding/json"
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
