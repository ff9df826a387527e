package corpus

import (
	"bytes"
	"encoding/json"
	"math"
	mrand "math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
)

// oddString draws strings made to hit every branch of the string
// encoding: invalid UTF-8, U+2028 and U+2029, HTML characters, every
// control byte, quotes and backslashes, multi-byte runes.
func oddString(t *rapid.T, label string) string {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{
		"", "a", "plain text", "\xff", "\xc3", "\xe2\x80", "\u2028", "\u2029", "<", ">", "&", `"`, `\`, "\x00", "\x01", "\x1f", "\x7f",
		"\b", "\f", "\n", "\r", "\t", "é", "日本", "😀", "\ufffd", "\xed\xa0\x80",
	}), 0, 8).Draw(t, label)
	return strings.Join(parts, "")
}

func jsonValue(t *rapid.T, depth int) any {
	kinds := 5
	if depth < 3 {
		kinds = 9
	}
	switch rapid.IntRange(0, kinds).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2:
		return oddString(t, "string")
	case 3:
		return rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1.5e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 3.14159}).Draw(t, "float")
	case 4:
		return rapid.Float64().Draw(t, "anyfloat")
	case 5:
		return jsonMap(t, depth+1)
	case 6:
		n := rapid.IntRange(0, 3).Draw(t, "n")
		if n == 0 && rapid.Bool().Draw(t, "nilslice") {
			return []any(nil)
		}
		s := make([]any, n)
		for i := range s {
			s[i] = jsonValue(t, depth+1)
		}
		return s
	case 7:
		// Values parsers build that the decoder never makes.
		return rapid.SampledFrom([]any{3, int64(-7), []string{"a", "<b>"}, map[string]string{"k": "v"}, json.RawMessage(`{"b": [1, 2], "a": {}}`), json.Number("12.50")}).Draw(t, "other")
	case 8:
		return rawJSON(t, depth)
	case 9:
		return map[string]any(nil)
	default:
		return rawJSON(t, depth)
	}
}

// rawJSON draws a json.RawMessage as parsers pass bytes through: a nil
// one, the text of a random value with whitespace of every kind between
// its tokens (and odd strings in it: escapes, invalid UTF-8, U+2028 kept
// as they are), empty containers, or text that is not one JSON value.
func rawJSON(t *rapid.T, depth int) json.RawMessage {
	switch rapid.IntRange(0, 5).Draw(t, "raw") {
	case 0:
		return nil
	case 1:
		return json.RawMessage(rapid.SampledFrom([]string{"", " ", "{", `{"a":}`, `[1,]`, `"\xff`, "nul", "1 2", `{"a":1}}`, "\"\x01\"", "01"}).Draw(t, "bad"))
	case 2:
		return json.RawMessage(rapid.SampledFrom([]string{"{}", "[ ]", " [ { } , [ ] ] ", "\"\xff\u2028<&>\\u0041\"", "-0.5e+3", "true", " null\n", `{"z":{"y":[]},"a":[{},1]}`}).Draw(t, "odd"))
	}
	b, err := json.Marshal(jsonValue(t, depth+1))
	if err != nil {
		b = []byte("null")
	}
	var out []byte
	inString, escaped := false, false
	for _, c := range b {
		out = append(out, c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && rapid.IntRange(0, 3).Draw(t, "ws?") == 0:
			out = append(out, rapid.SampledFrom([]string{" ", "\t", "\n", "\r\n", "  \n  "}).Draw(t, "ws")...)
		}
	}
	return out
}

// TestRawMatchesEncodingJSON: a json.RawMessage is encoding/json's text,
// indented at any depth and compact, or fails where encoding/json fails.
func TestRawMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		raw := rawJSON(t, 0)
		d := rapid.IntRange(0, 20).Draw(t, "depth")
		e := docEnc{}
		err := e.any(raw, d)
		w, ok := want(raw, d)
		if ok != (err == nil) {
			t.Fatalf("%q: encoding/json ok %v, docEnc error %v", raw, ok, err)
		}
		if ok && string(e.buf) != w {
			t.Fatalf("%q:\n got %q\nwant %q", raw, e.buf, w)
		}
		c := docEnc{compact: true}
		err = c.any(raw, d)
		var wb bytes.Buffer
		enc := json.NewEncoder(&wb)
		enc.SetEscapeHTML(false)
		werr := enc.Encode(raw)
		if (werr == nil) != (err == nil) {
			t.Fatalf("%q compact: encoding/json error %v, docEnc error %v", raw, werr, err)
		}
		if err == nil && string(c.buf)+"\n" != wb.String() {
			t.Fatalf("%q compact:\n got %q\nwant %q", raw, c.buf, wb.String())
		}
	})
}

// TestIsPlain: isPlain is jsonguard.PlainEnd(b, 0) == len(b) for every
// length up to 100, every position of the first byte that is not plain
// (and none), with near misses around it.
func TestIsPlain(t *testing.T) {
	r := mrand.New(mrand.NewPCG(3, 5))
	const plain, special = "a ~!#[]\x7f}", "\"\\\x00\x1f\n\x80\xc3\xff"
	for n := 0; n <= 100; n++ {
		for at := -1; at < n; at++ {
			for range 4 {
				b := make([]byte, n)
				for i := range b {
					b[i] = plain[r.IntN(len(plain))]
				}
				if at >= 0 {
					b[at] = special[r.IntN(len(special))]
					for i := at + 1; i < n; i++ {
						if r.IntN(3) == 0 {
							b[i] = special[r.IntN(len(special))]
						}
					}
				}
				if got, want := isPlain(b), jsonguard.PlainEnd(b, 0) == n; got != want {
					t.Fatalf("%q: isPlain %v, want %v", b, got, want)
				}
			}
		}
	}
}

func jsonMap(t *rapid.T, depth int) map[string]any {
	n := rapid.IntRange(0, 4).Draw(t, "members")
	if n == 0 && rapid.Bool().Draw(t, "nilmap") {
		return nil
	}
	m := map[string]any{}
	for range n {
		m[oddString(t, "key")] = jsonValue(t, depth)
	}
	return m
}

func maybe[T any](t *rapid.T, label string, f func() T) *T {
	if !rapid.Bool().Draw(t, label) {
		return nil
	}
	v := f()
	return &v
}

func randomPayload(t *rapid.T) *driver.StreamPayload {
	s := func(l string) string {
		if rapid.Bool().Draw(t, l+"?") {
			return ""
		}
		return oddString(t, l)
	}
	p := &driver.StreamPayload{
		Kind: driver.StreamKind(oddString(t, "kind")), Sequence: rapid.Uint64().Draw(t, "sequence"), Seq: rapid.Uint64Range(0, 3).Draw(t, "seq"),
		RunID: s("run"), ThreadID: s("thread"), TurnID: s("turn"), ScopeID: s("scope"), ParentScopeID: s("pscope"), ParentToolCallID: s("pcall"),
		MessageID: s("message"), ToolCallID: s("call"), Name: s("name"), Delta: s("delta"),
		Args: jsonMap(t, 0), Result: jsonMap(t, 0), Role: driver.Role(s("role")), Raw: jsonMap(t, 0),
	}
	p.Usage = maybe(t, "usage", func() driver.Usage {
		return driver.Usage{InputTokens: rapid.IntRange(0, 5).Draw(t, "in"), OutputTokens: rapid.Int().Draw(t, "out"), EstimatedCostMilli: rapid.Int64Range(0, 2).Draw(t, "cost")}
	})
	p.Finish = maybe(t, "finish", func() driver.Finish { return driver.Finish{Reason: driver.FinishReason(s("reason")), Raw: s("raw")} })
	p.Error = maybe(t, "error", func() driver.RunFailure {
		return driver.RunFailure{Message: s("msg"), Code: driver.FailureCode(s("code")), HTTPStatus: rapid.IntRange(0, 600).Draw(t, "status"), Metadata: jsonMap(t, 1)}
	})
	if rapid.Bool().Draw(t, "ts") {
		p.Timestamp = time.Unix(rapid.Int64Range(0, 1<<33).Draw(t, "sec"), rapid.Int64Range(0, 1e9-1).Draw(t, "nsec")).UTC()
	}
	p.HITLRequested = maybe(t, "hitlreq", func() driver.HITLRequestedPayload {
		return driver.HITLRequestedPayload{RequestID: s("rid"), Prompt: s("prompt"), Payload: jsonMap(t, 1), Choices: []driver.DecisionChoice{{Key: s("ck")}}}
	})
	p.HITLResolved = maybe(t, "hitlres", func() driver.HITLResolvedPayload {
		return driver.HITLResolvedPayload{RequestID: s("rid2"), Answer: jsonMap(t, 1), Latency: time.Duration(rapid.Int64Range(0, 5).Draw(t, "lat"))}
	})
	return p
}

func randomItem(t *rapid.T) driver.TranscriptItem {
	s := func(l string) string {
		if rapid.Bool().Draw(t, l+"?") {
			return ""
		}
		return oddString(t, l)
	}
	it := driver.TranscriptItem{
		ScopeID: s("scope"), ParentScopeID: s("pscope"), ParentToolCallID: s("pcall"), Kind: driver.TranscriptKind(oddString(t, "kind")),
		Text: s("text"), Delta: rapid.Bool().Draw(t, "delta"), ToolUseID: s("use"), ToolName: s("tool"), IsError: rapid.Bool().Draw(t, "iserr"),
		Model: s("model"), SessionID: s("session"), Subtype: s("subtype"), Data: jsonMap(t, 0),
	}
	if rapid.Bool().Draw(t, "input?") {
		it.Input = jsonValue(t, 0)
	}
	it.Usage = maybe(t, "usage", func() driver.Usage { return driver.Usage{ReasoningTokens: rapid.IntRange(0, 3).Draw(t, "r")} })
	it.CostUSD = maybe(t, "cost", func() float64 { return rapid.Float64().Draw(t, "usd") })
	if rapid.Bool().Draw(t, "errors?") {
		it.Errors = rapid.SliceOfN(rapid.Just("e<&>"), 0, 2).Draw(t, "errors")
	}
	if rapid.Bool().Draw(t, "meta?") {
		it.Metadata = map[string]string{}
		for range rapid.IntRange(0, 3).Draw(t, "metan") {
			it.Metadata[oddString(t, "mk")] = oddString(t, "mv")
		}
	}
	return it
}

// randomEvent draws an event of each kind: a payload, an item or a run
// event.
func randomEvent(t *rapid.T) Event {
	var ev Event
	switch rapid.IntRange(0, 2).Draw(t, "event") {
	case 0:
		ev.Stream = randomPayload(t)
	case 1:
		it := randomItem(t)
		ev.Item = &it
	default:
		ev.RunEvent = &driver.RunEvent{Type: driver.RunEventType(oddString(t, "type")), Text: oddString(t, "text"), Data: jsonMap(t, 0)}
	}
	return ev
}

// want is encoding/json's text of v indented at depth d, as Encode wrote
// it before docEnc (the "" error when it fails).
func want(v any, d int) (string, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(strings.Repeat("  ", d), "  ")
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// TestDocEncMatchesEncodingJSON: docEnc writes encoding/json's bytes for
// random events, transcript items and responses built from every member,
// JSON values of every type and odd strings; and fails where encoding/json
// fails (a NaN).
func TestDocEncMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		if rapid.IntRange(0, 3).Draw(t, "what") == 3 {
			var resp DocResponse
			n := rapid.IntRange(-1, 3).Draw(t, "items")
			if n >= 0 {
				resp.Transcript = []driver.TranscriptItem{}
			}
			for range n {
				resp.Transcript = append(resp.Transcript, randomItem(t))
			}
			resp.Output, resp.Summary, resp.Signal = oddString(t, "output"), oddString(t, "summary"), oddString(t, "signal")
			resp.ExitCode, resp.TimedOut, resp.StdoutBytes = rapid.Int().Draw(t, "exit"), rapid.Bool().Draw(t, "timeout"), rapid.IntRange(0, 1<<40).Draw(t, "bytes")
			resp.Usage = maybe(t, "usage", func() Usage { return Usage{InputTokens: rapid.Int().Draw(t, "in")} })
			resp.Terminal = maybe(t, "terminal", func() Terminal {
				return Terminal{Event: oddString(t, "event"), JSON: json.RawMessage(`{"z": "<\u2028>", "a": [ ]}`)}
			})
			var e docEnc
			err := e.response(&resp, nil, nil)
			w, ok := want(&resp, 1)
			if ok != (err == nil) {
				t.Fatalf("encoding/json ok %v, docEnc error %v", ok, err)
			}
			if ok && string(e.buf) != w {
				t.Fatalf("response:\n got %q\nwant %q", e.buf, w)
			}
			return
		}
		ev := randomEvent(t)
		var e docEnc
		err := e.event(&ev, 2)
		w, ok := want(&ev, 2)
		if ok != (err == nil) {
			t.Fatalf("encoding/json ok %v, docEnc error %v", ok, err)
		}
		if ok && string(e.buf) != w {
			t.Fatalf("event:\n got %q\nwant %q", e.buf, w)
		}
	})
}

// TestNewline: every depth is a newline and two spaces per level, past
// the indentation newline writes in one append too.
func TestNewline(t *testing.T) {
	for d := range 3 * len(indent) {
		var e docEnc
		e.newline(d)
		if want := "\n" + strings.Repeat("  ", d); string(e.buf) != want {
			t.Fatalf("depth %d: %q, want %q", d, e.buf, want)
		}
	}
}

// TestEventLinesMatchEncodingJSON: EventLines writes encoding/json's
// compact text (no HTML escaping) and a newline for random events, and
// fails, leaving dst as it was, where encoding/json fails.
func TestEventLinesMatchEncodingJSON(t *testing.T) {
	var l EventLines
	rapid.Check(t, func(t *rapid.T) {
		ev := randomEvent(t)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		werr := enc.Encode(&ev)
		got, err := l.Append([]byte("prev\n"), &ev)
		if (werr == nil) != (err == nil) {
			t.Fatalf("encoding/json error %v, EventLines error %v", werr, err)
		}
		if err != nil {
			if string(got) != "prev\n" {
				t.Fatalf("dst changed on error: %q", got)
			}
			return
		}
		if string(got) != "prev\n"+b.String() {
			t.Fatalf("line:\n got %q\nwant %q", got[5:], b.String())
		}
	})
}

// TestDocEncDeep: objects nested past the depths whose separators are
// made once (indentSeps) are encoding/json's text too, indented and
// compact.
func TestDocEncDeep(t *testing.T) {
	var v any = map[string]any{"leaf": "x\n", "n": 1.5}
	for i := range 2*len(indentSeps) + 3 {
		v = map[string]any{"a": []any{"é", v}, "k" + strings.Repeat("\"", i%2): i}
	}
	for _, compact := range []bool{false, true} {
		e := docEnc{compact: compact}
		if err := e.any(v, 1); err != nil {
			t.Fatal(err)
		}
		w, _ := want(v, 1)
		if compact {
			b, _ := json.Marshal(v)
			w = string(b)
		}
		if string(e.buf) != w {
			t.Fatalf("compact %v:\n got %q\nwant %q", compact, e.buf, w)
		}
	}
}

// FuzzDocEnc: any bytes, as a string, as a json.RawMessage and as a map
// member of both, are encoding/json's text, indented and compact, or fail
// where encoding/json fails.
func FuzzDocEnc(f *testing.F) {
	for _, s := range []string{`{"a": [1, {}], "b" : "\u2028"}`, "\xff\"\\<", " [ ] ", "", "nul", "-1.5e3", `{"x":{"y":[[]]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range []any{string(b), json.RawMessage(b), map[string]any{string(b): json.RawMessage(b), "k": string(b)}} {
			e := docEnc{}
			err := e.any(v, 2)
			w, ok := want(v, 2)
			if ok != (err == nil) {
				t.Fatalf("%#v: encoding/json ok %v, docEnc error %v", v, ok, err)
			}
			if ok && string(e.buf) != w {
				t.Fatalf("%#v:\n got %q\nwant %q", v, e.buf, w)
			}
			c := docEnc{compact: true}
			err = c.any(v, 0)
			var wb bytes.Buffer
			enc := json.NewEncoder(&wb)
			enc.SetEscapeHTML(false)
			werr := enc.Encode(v)
			if (werr == nil) != (err == nil) {
				t.Fatalf("%#v compact: encoding/json error %v, docEnc error %v", v, werr, err)
			}
			if err == nil && string(c.buf)+"\n" != wb.String() {
				t.Fatalf("%#v compact:\n got %q\nwant %q", v, c.buf, wb.String())
			}
		}
	})
}

// TestDocEncReused: one docEnc writing a random sequence of events drawn
// from a few (so that a payload comes again as itself and as a shallow
// copy, at another depth, compact or not, after others) writes each as
// encoding/json does: what it keeps of the last payload is its text only
// while the payload is the same.
func TestDocEncReused(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := make([]Event, rapid.IntRange(1, 4).Draw(t, "pool"))
		for i := range pool {
			pool[i] = randomEvent(t)
			if pool[i].Stream != nil && rapid.Bool().Draw(t, "raw") {
				pool[i].Stream.Raw = map[string]any{"type": oddString(t, "type")}
			}
		}
		for _, compact := range []bool{false, true} {
			e := docEnc{compact: compact}
			for range rapid.IntRange(1, 12).Draw(t, "events") {
				ev := pool[rapid.IntRange(0, len(pool)-1).Draw(t, "which")]
				if ev.Stream != nil && rapid.Bool().Draw(t, "copy") {
					cp := *ev.Stream
					ev.Stream = &cp
				}
				d := rapid.IntRange(0, 3).Draw(t, "depth")
				e.buf = e.buf[:0]
				err := e.event(&ev, d)
				w, ok := want(&ev, d)
				if compact {
					var wb bytes.Buffer
					enc := json.NewEncoder(&wb)
					enc.SetEscapeHTML(false)
					ok = enc.Encode(&ev) == nil
					w = strings.TrimSuffix(wb.String(), "\n")
				}
				if ok != (err == nil) {
					t.Fatalf("encoding/json ok %v, docEnc error %v", ok, err)
				}
				if ok && string(e.buf) != w {
					t.Fatalf("compact %v depth %d:\n got %q\nwant %q", compact, d, e.buf, w)
				}
			}
		}
	})
}

// TestSamePayloadFields: samePayload compares each of StreamPayload's
// fields (a new field must be added to it, or a payload differing in it
// would be written as the one before): each field changed on its own
// makes two payloads differ for it.
func TestSamePayloadFields(t *testing.T) {
	base := driver.StreamPayload{Kind: "k", Sequence: 1, Seq: 2, RunID: "r", ThreadID: "t", TurnID: "u", ScopeID: "s", ParentScopeID: "ps",
		ParentToolCallID: "pc", MessageID: "m", ToolCallID: "c", Name: "n", Delta: "d", Args: map[string]any{"a": 1.0}, Result: map[string]any{},
		Usage: &driver.Usage{}, Finish: &driver.Finish{}, Error: &driver.RunFailure{}, Timestamp: time.Unix(5, 0),
		HITLRequested: &driver.HITLRequestedPayload{}, HITLResolved: &driver.HITLResolvedPayload{}, Role: "x", Raw: map[string]any{}}
	typ := reflect.TypeOf(base)
	if typ.NumField() != 23 {
		t.Fatalf("StreamPayload has %d fields, samePayload compares 23: add the new ones to it and here", typ.NumField())
	}
	cp := base
	if !samePayload(&base, &cp) {
		t.Fatal("a shallow copy is not the same payload")
	}
	for i := range typ.NumField() {
		other := base
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Uint64:
			f.SetUint(f.Uint() + 1)
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type())) // another reference, equal
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Struct: // Timestamp
			f.Set(reflect.ValueOf(time.Unix(6, 0)))
		default:
			t.Fatalf("field %s: kind %s not handled", typ.Field(i).Name, f.Kind())
		}
		if samePayload(&base, &other) {
			t.Errorf("field %s changed, but samePayload holds the payloads the same", typ.Field(i).Name)
		}
	}
}
