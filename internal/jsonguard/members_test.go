package jsonguard

import (
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"slices"
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

// nestedCall is one entry of CheckIndex's index, its spans as strings.
type nestedCall struct {
	level, obj  int
	name, value string
}

// indexed runs CheckIndex(b, maxDepth, levels) with an index that a
// previous check filled (it must be emptied) and returns its entries,
// merged by their ends, as nestedCalls (nil when there are none),
// failing t when an entry's spans are not in b, an entry is at another
// level's place, the ends do not increase strictly along a level and
// across all, or an object's members are not consecutive in their
// level's entries.
func indexed(t interface{ Fatalf(string, ...any) }, b []byte, maxDepth, levels int) ([]nestedCall, error) {
	x := Index{Overflow: true}
	for l := range x.Levels {
		x.Levels[l] = []Entry{{Level: 9}}
	}
	err := CheckIndex(b, maxDepth, levels, &x)
	if x.Overflow {
		t.Fatalf("CheckIndex(%q) overflowed without Max", b)
	}
	var all []Entry
	for l, lv := range x.Levels {
		seen := map[int32]bool{}
		for k, e := range lv {
			if int(e.Level) != l+1 {
				t.Fatalf("CheckIndex(%q) level %d entry %d = %+v", b, l+1, k, e)
			}
			if k > 0 && e.VE <= lv[k-1].VE {
				t.Fatalf("CheckIndex(%q) level %d entry %d ends at %d, the one before at %d", b, l+1, k, e.VE, lv[k-1].VE)
			}
			if k > 0 && e.Obj != lv[k-1].Obj {
				if seen[e.Obj] {
					t.Fatalf("CheckIndex(%q) level %d: the members of the object at %d are not consecutive", b, l+1, e.Obj)
				}
				seen[lv[k-1].Obj] = true
			}
		}
		all = append(all, lv...)
	}
	slices.SortFunc(all, func(a, b Entry) int { return int(a.VE) - int(b.VE) })
	var out []nestedCall
	for k, e := range all {
		if e.NS < 0 || e.NS > e.NE || e.NE > e.VS || e.VS > e.VE || int(e.VE) > len(b) || e.Obj < 0 || int(e.Obj) >= len(b) {
			t.Fatalf("CheckIndex(%q) entry %d = %+v: not spans of b", b, k, e)
		}
		if k > 0 && e.VE == all[k-1].VE {
			t.Fatalf("CheckIndex(%q) entries %+v and %+v end together", b, all[k-1], e)
		}
		out = append(out, nestedCall{int(e.Level), int(e.Obj), string(b[e.NS:e.NE]), string(b[e.VS:e.VE])})
	}
	return out, err
}

// nestedRef is what CheckIndex(b, _, levels, x) records on a valid b,
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

// TestPropCheckIndex: on any valid object, CheckIndex at every level
// records what nestedRef finds, and at level 1 what CheckMembers reports.
func TestPropCheckIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := []byte(genWS.Draw(t, "lead") + genObject(4).Draw(t, "object") + genWS.Draw(t, "trail"))
		for levels := 1; levels <= MaxLevels; levels++ {
			got, err := indexed(t, b, 0, levels)
			if err != nil {
				t.Fatalf("CheckIndex(%q) = %v", b, err)
			}
			if want := nestedRef(b, levels); !reflect.DeepEqual(got, want) {
				t.Fatalf("CheckIndex(%q, %d) = %+v, want %+v", b, levels, got, want)
			}
			if levels == 1 {
				var top []nestedCall
				CheckMembers(b, 0, func(name, value []byte) {
					top = append(top, nestedCall{1, SkipWS(b, 0), string(name), string(value)})
				})
				if !reflect.DeepEqual(got, top) {
					t.Fatalf("CheckIndex(%q, 1) = %+v, CheckMembers %+v", b, got, top)
				}
			}
		}
	})
}

func TestCheckIndex(t *testing.T) {
	b := []byte(`{"a":{"b":[{"c":1}],"d":{"e":{"f":2}}},"g":3}`)
	calls, err := indexed(t, b, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, fmt.Sprintf("%d@%d %s=%s", c.level, c.obj, c.name, c.value))
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
		t.Fatalf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Max bounds the nested entries only: past it they are left out and
	// Overflow says so; the level-1 ones are all kept.
	x := Index{Max: 2}
	if err := CheckIndex(b, 0, 3, &x); err != nil {
		t.Fatal(err)
	}
	var levels []int
	for _, lv := range x.Levels {
		levels = append(levels, len(lv))
	}
	if !x.Overflow || !reflect.DeepEqual(levels, []int{2, 1, 1, 0}) {
		t.Fatalf("Max 2: overflow %v, entries per level %v; want true, [2 1 1 0]", x.Overflow, levels)
	}
	// An index used again starts empty; a top level that is not an object
	// records nothing.
	if err := CheckIndex([]byte(`[{"a":1}]`), 0, 3, &x); err != nil || len(x.Levels[0])+len(x.Levels[1]) != 0 || x.Overflow {
		t.Fatalf("array: %v, %+v", err, x)
	}
}
