package ndjson

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/segmentio/encoding/json"
)

func TestDecode(t *testing.T) {
	in := "{\"type\":\"a\",\"n\":1}\n" + // line 1, offset 0
		"warning: not json\n" + // line 2, offset 19
		"{\"type\":\"b\",\"n\":\"x\"}\n" + // line 3, offset 37
		"{\"type\":\"c\" \"n\":2}\n" + // line 4, offset 58
		strings.Repeat("[", 600) + "\n" + // line 5, offset 77
		"\n" // line 6, offset 678
	type event struct {
		Type string `json:"type"`
		N    int    `json:"n"`
	}
	var got []string
	r := NewReader(strings.NewReader(in), Options{})
	for f, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		var ev event
		if err := f.Decode(&ev); err != nil {
			got = append(got, err.Error())
			var le *LineError
			if !errors.As(err, &le) || le.Line != f.Line {
				t.Errorf("error %v is not a *LineError for line %d", err, f.Line)
			}
			continue
		}
		got = append(got, ev.Type)
	}
	want := []string{
		"a",
		`ndjson: line 2 (offset 19): invalid character 'w' looking for beginning of value: "warning: not json"`,
		`ndjson: line 3 (offset 37): json: cannot unmarshal "\"x\"}" into Go struct field ndjson.event.n of type int`,
		`ndjson: line 4 (offset 70): invalid character '"' after object key:value pair: "\"n\":2}"`,
		"ndjson: line 5 (offset 589): exceeded max depth",
		"ndjson: line 6 (offset 678): unexpected end of JSON input",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestDecodeErrorFields(t *testing.T) {
	f := Frame{Kind: KindLine, Data: []byte(`{"a":1,}`), Offset: 100, Line: 7}
	err := f.Decode(new(any))
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("%T", err)
	}
	if le.Line != 7 || le.Offset != 107 || le.Column != 8 || le.Len != 0 {
		t.Fatalf("LineError = %+v", le)
	}
	var se *jsonguard.SyntaxError
	if !errors.As(err, &se) || se.Offset != 7 {
		t.Fatalf("cause = %#v", le.Err)
	}
	// Type errors unwrap to segmentio's (encoding/json's) type.
	err = Frame{Data: []byte(`{"a":"x"}`), Offset: 5, Line: 2}.Decode(&struct{ A int }{})
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || !errors.As(err, &le) || le.Offset != 5 || le.Column != 0 {
		t.Fatalf("type error = %#v", err)
	}
	// Depth limit is configurable.
	deep := Frame{Data: []byte("[[[1]]]"), Line: 1}
	if err := deep.DecodeDepth(new(any), 3); err != nil {
		t.Fatalf("depth 3: %v", err)
	}
	if err := deep.DecodeDepth(new(any), 2); !errors.Is(err, jsonguard.ErrTooDeep) {
		t.Fatalf("depth 2: %v", err)
	}
}

// TestDecodeDeepLine is the acceptance test: 5 MB of '[' on one line gets
// an error, not a fatal stack overflow.
func TestDecodeDeepLine(t *testing.T) {
	in := "{}\n" + strings.Repeat("[", 5<<20) + "\n{}\n"
	r := NewReader(strings.NewReader(in), Options{})
	var errs []error
	for f, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []any{new(any), new(json.RawMessage), new(map[string]any)} {
			if err := f.Decode(v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) != 3 {
		t.Fatalf("got %d errors, want 3", len(errs))
	}
	for _, err := range errs {
		var le *LineError
		if !errors.Is(err, jsonguard.ErrTooDeep) || !errors.As(err, &le) || le.Line != 2 || le.Offset != 3+DefaultMaxDepth {
			t.Fatalf("err = %v, want ErrTooDeep on line 2 at offset %d", err, 3+DefaultMaxDepth)
		}
	}
}

func TestPeekFrames(t *testing.T) {
	in := `{"type":"assistant","message":{"type":"message","content":[{"type":"text"}]}}` + "\n" +
		`{"jsonrpc":"2.0","method":"turn/started","params":{"method":"x"}}` + "\n" +
		`{"type":"a","type":"b"}` + "\n" +
		`[1]` + "\n"
	r := NewReader(strings.NewReader(in), Options{})
	var types, methods []string
	for f := range r.All() {
		typ, ok := f.Type()
		types = append(types, string(typ)+map[bool]string{true: "", false: "!"}[ok])
		m, ok := f.Method()
		methods = append(methods, string(m)+map[bool]string{true: "", false: "!"}[ok])
	}
	if strings.Join(types, ",") != "assistant,!,b,!" {
		t.Errorf("types = %q", types)
	}
	if strings.Join(methods, ",") != "!,turn/started,!,!" {
		t.Errorf("methods = %q", methods)
	}
	if v, ok := (Frame{Data: []byte(`{"subtype":"init"}`)}).Peek("subtype"); !ok || string(v) != "init" {
		t.Errorf("Peek(subtype) = %q, %v", v, ok)
	}
}
