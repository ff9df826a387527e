package jsonrpc

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/ndjson"
)

func line(s string) ndjson.Frame {
	return ndjson.Frame{Kind: ndjson.KindLine, Data: []byte(s), Raw: []byte(s + "\n"), Offset: 100, Line: 7}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		opts   Options
		class  Class
		method string
		id     string // raw token
		idKind IDKind
		params string
		result string
		errObj string
		err    error
		col    int
	}{
		{name: "request id 0", in: `{"id":0,"method":"item/commandExecution/requestApproval","params":{"a":1}}`, class: Request, method: "item/commandExecution/requestApproval", id: "0", idKind: NumberID, params: `{"a":1}`},
		{name: "request string id", in: `{"method":"x","id":"abc"}`, class: Request, method: "x", id: `"abc"`, idKind: StringID},
		{name: "request negative id", in: `{"id":-1,"method":"x"}`, class: Request, method: "x", id: "-1", idKind: NumberID},
		{name: "request huge id", in: `{"id":18446744073709551616,"method":"x"}`, class: Request, method: "x", id: "18446744073709551616", idKind: NumberID},
		{name: "request null id", in: `{"id":null,"method":"x"}`, class: Request, method: "x", id: "null", idKind: NullID},
		{name: "request fractional id kept", in: `{"id":1.5e3,"method":"x"}`, class: Request, method: "x", id: "1.5e3", idKind: NumberID},
		{name: "notification", in: `{"method":"item/agentMessage/delta","params":{"delta":"hi"}}`, class: Notification, method: "item/agentMessage/delta", params: `{"delta":"hi"}`},
		{name: "notification with version", in: `{"jsonrpc":"2.0","method":"initialized"}`, class: Notification, method: "initialized"},
		{name: "notification params null", in: `{"method":"m","params":null}`, class: Notification, method: "m"},
		{name: "notification params array", in: `{"method":"m","params":[1]}`, class: Notification, method: "m", params: "[1]"},
		{name: "escaped method", in: `{"method":"a\/b\u0063"}`, class: Notification, method: "a/bc"},
		{name: "escaped member name", in: `{"m\u0065thod":"x"}`, class: Notification, method: "x"},
		{name: "duplicate method last wins", in: `{"method":"a","method":"b"}`, class: Notification, method: "b"},
		{name: "response", in: `{"id":1,"result":{"thread":{"id":"t"}}}`, class: Response, id: "1", idKind: NumberID, result: `{"thread":{"id":"t"}}`},
		{name: "response null result", in: `{"id":1,"result":null}`, class: Response, id: "1", idKind: NumberID, result: "null"},
		{name: "response whitespace", in: " { \"id\" : 2 , \"result\" : [ ] } ", class: Response, id: "2", idKind: NumberID, result: "[ ]"},
		{name: "error response", in: `{"id":3,"error":{"code":-32600,"message":"bad"}}`, class: ErrorResponse, id: "3", idKind: NumberID, errObj: `{"code":-32600,"message":"bad"}`},
		{name: "error response null id", in: `{"id":null,"error":{"code":-32700,"message":"parse"}}`, class: ErrorResponse, id: "null", idKind: NullID, errObj: `{"code":-32700,"message":"parse"}`},
		{name: "unknown members ignored", in: `{"id":1,"result":1,"extra":{"method":"x"}}`, class: Response, id: "1", idKind: NumberID, result: "1"},
		{name: "nested method not top level", in: `{"params":{"method":"x"}}`, class: Invalid, err: ErrNoMethod},
		{name: "batch", in: `[{"method":"a"},{"id":1,"result":2}]`, class: Batch},
		{name: "empty batch", in: `[ ]`, class: Invalid, err: ErrEmptyBatch},
		{name: "syntax", in: `{"id":1,`, class: Invalid, err: ErrSyntax, col: 9},
		{name: "garbage", in: `[SandboxDebug] hello`, class: Invalid, err: ErrSyntax, col: 2},
		{name: "trailing garbage", in: `{"method":"a"} x`, class: Invalid, err: ErrSyntax, col: 16},
		{name: "scalar", in: `42`, class: Invalid, err: ErrNotObject},
		{name: "string", in: `"x"`, class: Invalid, err: ErrNotObject},
		{name: "bad version", in: `{"jsonrpc":"1.0","method":"x"}`, class: Invalid, err: ErrVersion, col: 12},
		{name: "version number", in: `{"jsonrpc":2.0,"method":"x"}`, class: Invalid, err: ErrVersion, col: 12},
		{name: "missing version required", in: `{"method":"x"}`, opts: Options{RequireVersion: true}, class: Invalid, err: ErrMissingVersion},
		{name: "version required present", in: `{"jsonrpc":"2.0","method":"x"}`, opts: Options{RequireVersion: true}, class: Notification, method: "x"},
		{name: "bool id", in: `{"id":true,"method":"x"}`, class: Invalid, err: ErrBadID, col: 7},
		{name: "object id", in: `{"id":{},"result":1}`, class: Invalid, err: ErrBadID, col: 7},
		{name: "method number", in: `{"method":1}`, class: Invalid, err: ErrBadMethod, col: 11},
		{name: "method null", in: `{"method":null,"id":1}`, class: Invalid, err: ErrBadMethod, col: 11, id: "1", idKind: NumberID},
		{name: "params string", in: `{"method":"a","params":"x"}`, class: Invalid, err: ErrBadParams, col: 24},
		{name: "method and result", in: `{"method":"a","id":1,"result":1}`, class: Invalid, err: ErrAmbiguous, id: "1", idKind: NumberID},
		{name: "result without id", in: `{"result":1}`, class: Invalid, err: ErrMissingID},
		{name: "id only", in: `{"id":1}`, class: Invalid, err: ErrNoResult, id: "1", idKind: NumberID},
		{name: "result and error", in: `{"id":1,"result":1,"error":{}}`, class: Invalid, err: ErrResultAndError, id: "1", idKind: NumberID},
		{name: "error string", in: `{"id":1,"error":"boom"}`, class: Invalid, err: ErrBadError, col: 17, id: "1", idKind: NumberID},
		{name: "empty object", in: `{}`, class: Invalid, err: ErrNoMethod},
		{name: "too deep", in: `{"method":"a","params":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, class: Invalid, err: ErrTooDeep, col: 535},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Classify(line(tc.in), tc.opts)
			if f.Class != tc.class {
				t.Fatalf("class = %v, want %v (err %v)", f.Class, tc.class, err)
			}
			if string(f.Raw) != tc.in+"\n" || f.Offset != 100 || f.Line != 7 {
				t.Errorf("raw/position not kept: %q %d %d", f.Raw, f.Offset, f.Line)
			}
			if tc.err == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
			} else {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				var me *MessageError
				if !errors.As(err, &me) || me.Line != 7 {
					t.Fatalf("not a positioned *MessageError: %#v", err)
				}
				if me.Column != tc.col || (tc.col > 0 && me.Offset != 100+int64(tc.col-1)) {
					t.Errorf("column %d offset %d, want column %d", me.Column, me.Offset, tc.col)
				}
				if !strings.HasPrefix(err.Error(), "jsonrpc: line 7 (offset ") {
					t.Errorf("message %q", err.Error())
				}
			}
			if string(f.Method) != tc.method {
				t.Errorf("method = %q, want %q", f.Method, tc.method)
			}
			if string(f.ID.Raw()) != tc.id || f.ID.Kind() != tc.idKind {
				t.Errorf("id = %q (%v), want %q (%v)", f.ID.Raw(), f.ID.Kind(), tc.id, tc.idKind)
			}
			if string(f.Params) != tc.params || string(f.Result) != tc.result || string(f.Error) != tc.errObj {
				t.Errorf("members params=%q result=%q error=%q", f.Params, f.Result, f.Error)
			}
		})
	}
}

func TestClassifyNonLine(t *testing.T) {
	f, err := Classify(ndjson.Frame{Kind: ndjson.KindBlank, Data: []byte(" "), Raw: []byte(" \n"), Line: 2}, Options{})
	if err != nil || f.Class != None || f.Kind != ndjson.KindBlank || string(f.Raw) != " \n" {
		t.Fatalf("blank: %+v %v", f, err)
	}
}

func TestBatchElements(t *testing.T) {
	in := `[ {"method":"a"} , {"id":0,"result":{"x":[1]}},5,[1],{"id":"q","method":"r"} ]`
	f, err := Classify(line(in), Options{})
	if err != nil || f.Class != Batch {
		t.Fatalf("%v %v", f.Class, err)
	}
	type el struct {
		class Class
		raw   string
		off   int64
		err   error
	}
	want := []el{
		{Notification, `{"method":"a"}`, 102, nil},
		{Response, `{"id":0,"result":{"x":[1]}}`, 119, nil},
		{Invalid, `5`, 147, ErrNotObject},
		{Invalid, `[1]`, 149, ErrNestedBatch},
		{Request, `{"id":"q","method":"r"}`, 153, nil},
	}
	var got []el
	for e, err := range f.Batch() {
		if err != nil && !errors.Is(err, want[len(got)].err) {
			t.Errorf("element %d: %v", len(got), err)
		}
		got = append(got, el{e.Class, string(e.Raw), e.Offset, want[len(got)].err})
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("element %d = %+v, want %+v", i, got[i], want[i])
		}
		if in[got[i].off-100:int(got[i].off-100)+len(got[i].raw)] != got[i].raw {
			t.Errorf("element %d offset does not locate its bytes", i)
		}
	}
}

func TestID(t *testing.T) {
	for _, tc := range []struct {
		tok   string
		kind  IDKind
		key   string
		i64   int64
		isInt bool
	}{
		{"0", NumberID, "n:0", 0, true},
		{"-0", NumberID, "n:0", 0, true},
		{"-1", NumberID, "n:-1", -1, true},
		{"9223372036854775808", NumberID, "n:9223372036854775808", 0, false},
		{"1e3", NumberID, "n:1e3", 0, false},
		{`"a"`, StringID, "s:a", 0, false},
		{`"\u0061"`, StringID, "s:a", 0, false},
		{"null", NullID, "null", 0, false},
	} {
		id, err := ParseID([]byte(tc.tok))
		if err != nil {
			t.Fatalf("%s: %v", tc.tok, err)
		}
		n, ok := id.Int64()
		if id.Kind() != tc.kind || id.Key() != tc.key || n != tc.i64 || ok != tc.isInt || id.String() != tc.tok {
			t.Errorf("%s: kind %v key %q int %d %v", tc.tok, id.Kind(), id.Key(), n, ok)
		}
		b, _ := id.MarshalJSON()
		if string(b) != tc.tok {
			t.Errorf("%s marshals as %s", tc.tok, b)
		}
	}
	for _, bad := range []string{"true", "{}", "[]", "", " 1", `1,"x":2`, `"a`, "01"} {
		if _, err := ParseID([]byte(bad)); err == nil {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
	if !StringIDOf("a").Equal(IntID(0)) == false || !IntID(7).Equal(IntID(7)) || IntID(1).Equal(StringIDOf("1")) {
		t.Error("Equal")
	}
	if s, ok := StringIDOf("x\"y").Str(); !ok || s != `x"y` {
		t.Errorf("Str %q", s)
	}
	var zero ID
	if !zero.IsZero() || zero.Kind() != NoID || zero.Key() != "" || zero.String() != "none" {
		t.Error("zero ID")
	}
}

func TestDecodeMembers(t *testing.T) {
	f, _ := Classify(line(`{"id":1,"method":"m","params":{"a":[1,2]}}`), Options{})
	var p struct{ A []int }
	if err := f.DecodeParams(&p); err != nil || len(p.A) != 2 {
		t.Fatalf("%v %v", p, err)
	}
	var bad struct{ A string }
	err := f.DecodeParams(&bad)
	if !errors.Is(err, ErrDecode) {
		t.Fatalf("err %v", err)
	}
	f, _ = Classify(line(`{"id":1,"error":{"code":"input_too_large","message":"m","data":{"x":1}}}`), Options{})
	e, err := f.DecodeError()
	if err != nil || string(e.Code) != `"input_too_large"` || e.Message != "m" || string(e.Data) != `{"x":1}` {
		t.Fatalf("%+v %v", e, err)
	}
	if _, ok := e.CodeInt(); ok {
		t.Error("string code as int")
	}
	f, _ = Classify(line(`{"id":1,"error":{"code":-32601,"message":"m"}}`), Options{})
	e, _ = f.DecodeError()
	if c, ok := e.CodeInt(); !ok || c != -32601 {
		t.Errorf("code %d %v", c, ok)
	}
}

func TestClone(t *testing.T) {
	src := []byte(`{"id":"x","method":"m","params":{"a":1}}`)
	f, _ := Classify(ndjson.Frame{Kind: ndjson.KindLine, Data: src, Raw: src}, Options{})
	c := f.Clone()
	for i := range src {
		src[i] = '#'
	}
	if string(c.Method) != "m" || string(c.ID.Raw()) != `"x"` || string(c.Params) != `{"a":1}` || string(c.Raw) != `{"id":"x","method":"m","params":{"a":1}}` {
		t.Fatalf("clone aliases the source: %+v", c)
	}
}

func TestMembers(t *testing.T) {
	obj := []byte(` { "a" : 1 , "b\"c":{"x":[1,"}"]},"d":"e\u0066", "n":null }`)
	var got []string
	Members(obj, func(name, value []byte) bool {
		got = append(got, string(name)+"="+string(value))
		return true
	})
	want := []string{`a=1`, `b\"c={"x":[1,"}"]}`, `d="e\u0066"`, `n=null`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%q", got)
	}
	n := 0
	Members(obj, func(_, _ []byte) bool { n++; return false })
	if n != 1 {
		t.Fatal("did not stop")
	}
	for _, bad := range []string{``, `[]`, `{`, `{"a"`, `{"a":`, `{"a":1,`, `{"a":"x`, `{"a":1 "b":2}`} {
		Members([]byte(bad), func(_, _ []byte) bool { return true })
	}
	for tok, want := range map[string]string{`"ab"`: "ab", `"e\u0066\n"`: "ef\n", "\"\xff\"": "\uFFFD"} {
		if s, ok := String([]byte(tok)); !ok || s != want {
			t.Errorf("String(%s) = %q %v", tok, s, ok)
		}
	}
	if _, ok := String([]byte(`1`)); ok {
		t.Error("String of a number")
	}
}

// TestFrameMembers: a Reader's frame replays nested members from its
// index, for the objects of the first levels; deeper ones, frames from
// Classify and clones give the same calls.
func TestFrameMembers(t *testing.T) {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","x":{"deep":{"er":1}}}}}}`
	f, err := NewReader(strings.NewReader(line+"\n"), Options{}).Next()
	if err != nil {
		t.Fatal(err)
	}
	if f.index == nil || len(f.index[1]) == 0 {
		t.Fatal("a Reader's frame has no index")
	}
	c, _ := ClassifyBytes([]byte(line), Options{})
	if c.index != nil {
		t.Fatal("Classify's frame has an index")
	}
	members := func(f Frame, obj []byte) (out []string, values [][]byte) {
		f.Members(obj, func(name, value []byte) bool {
			out = append(out, string(name)+"="+string(value))
			values = append(values, value)
			return true
		})
		return out, values
	}
	for _, fr := range []Frame{f, c, f.Clone()} {
		_, v := members(fr, fr.Params)
		upd, v := members(fr, v[1])
		content, v := members(fr, v[1])
		deep, _ := members(fr, v[2])
		if strings.Join(upd, ",") != `sessionUpdate="agent_message_chunk",content={"type":"text","text":"hi","x":{"deep":{"er":1}}}` ||
			strings.Join(content, ",") != `type="text",text="hi",x={"deep":{"er":1}}` || strings.Join(deep, ",") != `deep={"er":1}` {
			t.Fatalf("members %q %q %q", upd, content, deep)
		}
	}
	// A line with more nested members than the index holds has none.
	var b strings.Builder
	b.WriteString(`{"id":1,"result":{"a":{`)
	for i := range maxIndex + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	b.WriteString("}}}")
	f, err = NewReader(strings.NewReader(b.String()+"\n"), Options{}).Next()
	if err != nil || f.index != nil {
		t.Fatalf("err %v, index %v", err, f.index != nil)
	}
	n := 0
	_, v := members(f, f.Result)
	f.Members(v[0], func(_, _ []byte) bool { n++; return true })
	if n != maxIndex+1 {
		t.Fatalf("%d members walked, want %d", n, maxIndex+1)
	}
}
