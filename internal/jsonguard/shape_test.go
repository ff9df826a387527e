package jsonguard

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"testing"
)

func TestShape(t *testing.T) {
	var s Shape
	if s.Match([]byte(`{}`)) {
		t.Fatal("the zero Shape matched")
	}
	learnt := []byte(`{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}], "n" : "y"}`)
	s.Learn(learnt, false)
	content := s.SpanOf(learnt, learnt[bytes.Index(learnt, []byte(`"x"`)):][:3])
	delta := learnt[bytes.Index(learnt, []byte(`{"content"`)):]
	deltaSpan := s.SpanOf(learnt, delta[:bytes.IndexByte(delta, '}')+1])
	tail := s.SpanOf(learnt, learnt[bytes.LastIndex(learnt, []byte(`"y"`)):])
	for _, c := range []struct {
		in                   string
		take                 bool
		content, delta, tail string
	}{
		{string(learnt), true, `"x"`, `{"content":"x"}`, `"y"}`},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"hello \"q\" \u00e9"}}], "n" : "y"}`, true, `"hello \"q\" \u00e9"`, `{"content":"hello \"q\" \u00e9"}`, `"y"}`},
		{`{"id":"bb","choices":[{"index":0,"delta":{"content":""}}], "n" : "zzz"}`, true, `""`, `{"content":""}`, `"zzz"}`},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}], "n" : "y"}`, true, `"x"`, `{"content":"x"}`, `"y"}`},
		{`{"id":"a","choices":[{"index":1,"delta":{"content":"x"}}], "n" : "y"}`, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"contenu":"x"}}], "n" : "y"}`, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}], "n" : "y"} `, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}], "n" : "y"`, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":1}}], "n" : "y"}`, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"x` + "\x01" + `"}}], "n" : "y"}`, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"\q"}}], "n" : "y"}`, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}], "n" : "y}`, false, "", "", ""},
		{`{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}], "n" : "y"}`, true, `"x"`, `{"content":"x"}`, `"y"}`},
	} {
		if got := s.Match([]byte(c.in)); got != c.take {
			t.Fatalf("Match(%s) = %v", c.in, got)
		}
		if !c.take {
			continue
		}
		if got := string(s.Slice(content)); got != c.content {
			t.Errorf("Match(%s): content %s", c.in, got)
		}
		if got := string(s.Slice(deltaSpan)); got != c.delta {
			t.Errorf("Match(%s): delta %s", c.in, got)
		}
		if got := string(s.Slice(tail)); got != c.tail {
			t.Errorf("Match(%s): tail %s", c.in, got)
		}
	}
	s.Learn([]byte(`{"a":"\x"}`), false)
	if s.Match([]byte(`{"a":"\x"}`)) {
		t.Error("matched what it could not learn")
	}
}

// skeleton is the token stream of a valid JSON value as encoding/json
// reads it, with every string value (not member name), and every number
// when numbers is set, replaced by a marker, and the offsets
// (InputOffset) just past each value replaced.
func skeleton(t *testing.T, b []byte, numbers bool) (string, []int64) {
	t.Helper()
	dec := stdjson.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	var ends []int64
	type frame struct{ obj, key bool }
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].obj && stack[top].key
		switch v := tok.(type) {
		case stdjson.Delim:
			fmt.Fprintf(&out, "%c", v)
			if v == '{' || v == '[' {
				stack = append(stack, frame{obj: v == '{', key: true})
				continue
			}
			stack = stack[:top]
		case string:
			if isKey {
				fmt.Fprintf(&out, "K%q", v)
				stack[top].key = false
				continue
			}
			out.WriteString("S")
			ends = append(ends, dec.InputOffset())
		case stdjson.Number:
			if !numbers {
				fmt.Fprintf(&out, "V%v", v)
				break
			}
			out.WriteString("N")
			ends = append(ends, dec.InputOffset())
		default:
			fmt.Fprintf(&out, "V%v", v)
		}
		if top := len(stack) - 1; top >= 0 && stack[top].obj {
			stack[top].key = true
		}
	}
	return out.String(), ends
}

// FuzzShape holds Shape to encoding/json: a learnt valid value matches
// itself; a value Match takes is valid, has the learnt value's skeleton
// (its tokens with the varying values left out), and each varying
// value's span found again by Slice is a value of the same kind (string,
// number) ending where encoding/json's does.
func FuzzShape(f *testing.F) {
	f.Add([]byte(`{"id":"a","choices":[{"index":0,"delta":{"content":"x"}}]}`), []byte(`{"id":"a","choices":[{"index":0,"delta":{"content":"yy\n"}}]}`), false)
	f.Add([]byte(`["a","b",{"c":"d"}]`), []byte(`["","\u0062",{"c":"dd"}]`), false)
	f.Add([]byte(`"x"`), []byte(`"\ud800"`), false)
	f.Add([]byte(`{"a" : "b" , "c":[1,"e"]}`), []byte(`{"a" : "b\"" , "c":[1,"é"]}`), false)
	f.Add([]byte(`{"type":"t","sequence_number":7,"x":[-1.5e3,true,null]}`), []byte(`{"type":"u","sequence_number":12,"x":[0,true,null]}`), true)
	f.Add([]byte(`[1,2]`), []byte(`[10,-0.5]`), true)
	f.Fuzz(func(t *testing.T, a, b []byte, numbers bool) {
		if Check(a, stdMaxDepth) != nil {
			return
		}
		var s Shape
		s.Learn(a, numbers)
		if !s.Match(a) {
			t.Fatalf("%q does not match itself", a)
		}
		skelA, endsA := skeleton(t, a, numbers)
		var spans []ShapeSpan
		for k := 0; k < len(s.holes); k += 2 {
			spans = append(spans, s.SpanOf(a, a[s.holes[k]:s.holes[k+1]]))
		}
		if len(spans) != len(endsA) {
			t.Fatalf("%d string values, encoding/json reads %d", len(spans), len(endsA))
		}
		for range 2 {
			if !s.Match(b) {
				return
			}
			if err := Check(b, stdMaxDepth); err != nil {
				t.Fatalf("Match took %q, invalid: %v", b, err)
			}
			skelB, endsB := skeleton(t, b, numbers)
			if skelB != skelA {
				t.Fatalf("Match took %q for %q: skeleton %s, learnt %s", b, a, skelB, skelA)
			}
			if len(endsB) != len(spans) {
				t.Fatalf("Match took %q with %d varying values, learnt %d", b, len(endsB), len(spans))
			}
			for n, sp := range spans {
				v := s.Slice(sp)
				end := cap(b) - cap(v) + len(v)
				if len(v) == 0 || (v[0] == '"') != (a[s.holes[2*n]] == '"') || int64(end) != endsB[n] || !stdjson.Valid(v) {
					t.Fatalf("value %d of %q: %q ending at %d, encoding/json's ends at %d", n, b, v, end, endsB[n])
				}
			}
		}
	})
}
