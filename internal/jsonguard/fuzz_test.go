package jsonguard

import (
	stdjson "encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/segmentio/encoding/json"
)

// stdMaxDepth is encoding/json's nesting limit.
const stdMaxDepth = 10000

// FuzzGuard is the differential target for the guard and the peek:
//   - Check with encoding/json's limit accepts exactly what encoding/json
//     accepts;
//   - Check with a small limit differs from that only by ErrTooDeep, and
//     CheckDepth never accepts what Check rejects as too deep;
//   - Unmarshal (guard + segmentio) succeeds exactly when Check does, and
//     DecodeChecked of what Check accepts exactly when Unmarshal does,
//     then decodes the same value as encoding/json;
//   - PeekString agrees with the decoded map;
//   - CheckMembers and CheckIndex return exactly Check's result, and on
//     valid input CheckIndex records what nestedRef finds.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `[]`, `"x"`, `1e400`, `{"type":"a","type":"b"}`, `{"t\u0079pe":"\ud800"}`,
		"{\"type\":\"\xff\"}", `{"type":{"type":"x"}}`, `[[[[[[[[[[]]]]]]]]]]`, `{"a":[{"b":[{"c":[]}]}]}`,
		`{"type":"x",}`, `{"type" "x"}`, `-01`, `tru`, `"\u12"`, "\"\t\"", strings.Repeat("[", 20),
		`{"method":"item/started","params":{"method":"x"},"id":0}`,
	} {
		f.Add([]byte(s), uint8(4))
	}
	f.Fuzz(func(t *testing.T, b []byte, depth uint8) {
		maxDepth := 1 + int(depth)%16
		full := Check(b, stdMaxDepth)
		if (full == nil) != stdjson.Valid(b) {
			t.Fatalf("Check = %v, encoding/json Valid = %v", full, stdjson.Valid(b))
		}
		if len(b) > 0 && b[0] == '"' {
			// StringEnd agrees with Check on a lone literal.
			end, _, ok := StringEnd(b, 0)
			if (ok && SkipWS(b, end) == len(b)) != (full == nil) {
				t.Fatalf("StringEnd = %d, %v; Check = %v", end, ok, full)
			}
		}
		members := 0
		if e := CheckMembers(b, stdMaxDepth, func(_, _ []byte) { members++ }); !reflect.DeepEqual(e, full) {
			t.Fatalf("CheckMembers = %v, Check = %v", e, full)
		}
		if full == nil && members > 0 && b[SkipWS(b, 0)] != '{' {
			t.Fatalf("CheckMembers reported %d members of a top level that is not an object", members)
		}
		levels := 1 + int(depth)%MaxLevels
		nested, e := indexed(t, b, stdMaxDepth, levels)
		if !reflect.DeepEqual(e, full) {
			t.Fatalf("CheckIndex = %v, Check = %v", e, full)
		}
		if full == nil {
			if want := nestedRef(b, levels); !reflect.DeepEqual(nested, want) {
				t.Fatalf("CheckIndex(%d) entries %+v, want %+v", levels, nested, want)
			}
			// With Max: every level-1 entry, and the first Max deeper ones
			// in the pass's order; Overflow when there were more.
			x := Index{Max: 1 + int(depth)%3}
			if err := CheckIndex(b, stdMaxDepth, levels, &x); err != nil {
				t.Fatalf("CheckIndex with Max %d = %v", x.Max, err)
			}
			var all []Entry
			for _, lv := range x.Levels {
				all = append(all, lv...)
			}
			slices.SortFunc(all, func(a, b Entry) int { return int(a.VE) - int(b.VE) })
			got := []nestedCall{}
			for _, e := range all {
				got = append(got, nestedCall{int(e.Level), int(e.Obj), string(b[e.NS:e.NE]), string(b[e.VS:e.VE])})
			}
			want, deep, over := []nestedCall{}, 0, false
			for _, c := range nestedRef(b, levels) {
				if c.level > 1 {
					if deep >= x.Max {
						over = true
						continue
					}
					deep++
				}
				want = append(want, c)
			}
			if !reflect.DeepEqual(got, want) || x.Overflow != over {
				t.Fatalf("CheckIndex(%d) with Max %d: entries %+v, overflow %v; want %+v, %v", levels, x.Max, got, x.Overflow, want, over)
			}
		}
		small := Check(b, maxDepth)
		if small != nil && !errors.Is(small, ErrTooDeep) && !reflect.DeepEqual(small, full) {
			t.Fatalf("Check(%d) = %v, Check(max) = %v", maxDepth, small, full)
		}
		if small == nil && full != nil {
			t.Fatalf("Check(%d) accepts what Check(max) rejects: %v", maxDepth, full)
		}
		if CheckDepth(b, maxDepth) == nil && errors.Is(small, ErrTooDeep) {
			t.Fatalf("CheckDepth(%d) accepted input Check finds too deep: %v", maxDepth, small)
		}
		if errors.Is(small, ErrTooDeep) && CheckDepth(b, maxDepth) == nil {
			t.Fatal("unreachable")
		}

		var got, want any
		err := Unmarshal(b, &got, maxDepth)
		stdErr := stdjson.Unmarshal(b, &want)
		if small != nil {
			if err == nil {
				t.Fatalf("Unmarshal accepted what Check rejects: %v", small)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(b) {
				t.Fatalf("Unmarshal = %#v, want a positioned *SyntaxError", err)
			}
			return
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("Unmarshal = %v, encoding/json = %v", err, stdErr)
		}
		if NumbersFit(b) != (stdErr == nil) {
			t.Fatalf("NumbersFit = %v, encoding/json = %v", NumbersFit(b), stdErr)
		}
		if dv, ok := DecodeChecked(b); ok != (err == nil) || ok && !reflect.DeepEqual(dv, want) {
			t.Fatalf("DecodeChecked = %#v, %v; Unmarshal %v, encoding/json %#v", dv, ok, err, want)
		}
		if err != nil {
			// A valid value that does not fit: numbers beyond float64.
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				t.Fatalf("Unmarshal of valid JSON = %#v, want a type error", err)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal %#v != encoding/json %#v", got, want)
		}
		// Into a map too (the exact-size decoder for objects, segmentio
		// for anything else).
		var gm, wm map[string]any
		if e1, e2 := Unmarshal(b, &gm, maxDepth), stdjson.Unmarshal(b, &wm); (e1 == nil) != (e2 == nil) || e1 == nil && !reflect.DeepEqual(gm, wm) {
			t.Fatalf("Unmarshal into a map = %#v, %v; encoding/json = %#v, %v", gm, e1, wm, e2)
		}
		m, isObj := want.(map[string]any)
		for _, key := range []string{"type", "method"} {
			s, isStr := m[key].(string)
			v, ok := PeekString(b, key, nil)
			if ok != (isObj && isStr) || string(v) != s {
				t.Fatalf("PeekString(%q) = %q, %v; decode says %q, %v", key, v, ok, s, isObj && isStr)
			}
		}
		// segmentio's own map decode agrees too.
		var sm map[string]any
		if json.Unmarshal(b, &sm) == nil {
			s, isStr := sm["type"].(string)
			v, ok := PeekString(b, "type", nil)
			if ok != isStr || string(v) != s {
				t.Fatalf("PeekString = %q, %v; segmentio says %q, %v", v, ok, s, isStr)
			}
		}
	})
}
