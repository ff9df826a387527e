package claude

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/google/go-cmp/cmp"
)

// TestRawMemo: identical consecutive custom lines share one read-only Raw
// map (a flood of keep-alives costs one map), a different line gets its
// own, and every payload still carries its own line's members.
func TestRawMemo(t *testing.T) {
	in := `{"type":"system","subtype":"init","session_id":"s-1","model":"m","cwd":"/w","tools":[]}
{"type":"keep_alive"}
{"type":"keep_alive"}
{"type":"keep_alive","n":1}
{"type":"keep_alive"}
{"type":"result","subtype":"success","is_error":false,"result":"x","session_id":"s-1","num_turns":1,"usage":{"input_tokens":1,"output_tokens":1}}
`
	sink := &adaptertest.RecordingSink{}
	p := New(sink, Options{Streaming: true})
	for _, f := range frames([]byte(in)) {
		if err := p.Feed(f); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Finish(Outcome{}); err != nil {
		t.Fatal(err)
	}
	var raws []map[string]any
	for _, pl := range sink.Payloads {
		if pl.Kind == driver.CustomKind(provider, "keep_alive") {
			raws = append(raws, pl.Raw)
		}
	}
	if len(raws) != 4 {
		t.Fatalf("%d keep_alive payloads, want 4", len(raws))
	}
	ptr := func(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }
	if ptr(raws[0]) != ptr(raws[1]) {
		t.Error("two identical lines in a row got two maps")
	}
	if !reflect.DeepEqual(raws[2], map[string]any{"type": "keep_alive", "n": float64(1)}) {
		t.Errorf("third line's Raw %v", raws[2])
	}
	if !reflect.DeepEqual(raws[3], map[string]any{"type": "keep_alive"}) || ptr(raws[3]) == ptr(raws[2]) {
		t.Errorf("fourth line's Raw %v", raws[3])
	}
}

// TestRepeatedMessageIDBounded: a message id that comes again and again
// (a hostile or spliced stream) keeps only the blocks something can still
// refer to, so message_stop and snapshots never walk every earlier block,
// and each repetition's text block opens and closes its own lifecycle.
func TestRepeatedMessageIDBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","session_id":"s-1","model":"m","cwd":"/w","tools":[]}` + "\n")
	ev := func(e string) {
		b.WriteString(`{"type":"stream_event","event":` + e + `,"session_id":"s-1","parent_tool_use_id":null}` + "\n")
	}
	const n = 1000
	for range n {
		ev(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[]}}`)
		ev(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		ev(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`)
		b.WriteString(`{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}]},"session_id":"s-1","parent_tool_use_id":null}` + "\n")
		ev(`{"type":"content_block_stop","index":0}`)
		ev(`{"type":"message_stop"}`)
	}
	b.WriteString(`{"type":"result","subtype":"success","is_error":false,"result":"hi","session_id":"s-1","num_turns":1,"usage":{"input_tokens":1,"output_tokens":1}}` + "\n")
	sink := &adaptertest.RecordingSink{}
	p := New(sink, Options{Streaming: true, PartialMessages: true})
	for _, f := range frames([]byte(b.String())) {
		if err := p.Feed(f); err != nil {
			t.Fatal(err)
		}
		if m := p.msgs[msgKey{"", "msg_1"}]; m != nil && len(m.order) > 32 {
			t.Fatalf("line %d: message msg_1 keeps %d blocks", f.Line, len(m.order))
		}
	}
	resp, err := p.Finish(Outcome{})
	if err != nil {
		t.Fatal(err)
	}
	if v := sink.Check(true, p.cap, resp, err, Codec); len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	count := parsertest.Counts(sink.Payloads)
	starts, ends := count[driver.StreamTextStart], count[driver.StreamTextEnd]
	if starts != ends || starts == 0 {
		t.Fatalf("text.start %d, text.end %d", starts, ends)
	}
}

// TestUnknownMemoAgrees: Feed's shortcut for the last line of an unknown
// type again (p.again) gives what the general path gives, line by line, in
// every mode: a repeated line before and after the session is announced,
// with a session id that is the session's, a different one, one made
// different by a conversation_reset, an undecodable one and one whose type
// is empty.
func TestUnknownMemoAgrees(t *testing.T) {
	ka := `{"type":"keep_alive"}`
	kaSid := `{"type":"keep_alive","session_id":"` + sid + `"}`
	kaOther := `{"type":"keep_alive","session_id":"other"}`
	lines := []string{ka, ka, kaSid, kaSid, initL(), ka, ka, kaSid, kaSid, kaOther, kaOther,
		`{"type":"keep_alive","n":1e999}`, `{"type":"keep_alive","n":1e999}`, `{"type":""}`, `{"type":""}`,
		`{"type":"conversation_reset","new_conversation_id":"new","session_id":"` + sid + `"}`,
		kaSid, kaSid, ka, ka, okL("x"), ka, ka}
	for _, opts := range []Options{{}, {Streaming: true}, {Streaming: true, ControlProtocol: true}} {
		var unpaired [2][]string
		run := func(i int, forget bool) (*adaptertest.RecordingSink, driver.Response) {
			o := opts
			o.Unpaired = func(off int64, line int, msg string) { unpaired[i] = append(unpaired[i], msg) }
			sink := &adaptertest.RecordingSink{}
			p := New(sink, o)
			for _, f := range frames(stream(lines...)) {
				if forget {
					p.again = unknownMemo{}
				}
				if err := p.Feed(f); err != nil {
					t.Fatal(err)
				}
			}
			resp, err := p.Finish(Outcome{})
			if err != nil {
				t.Fatal(err)
			}
			return sink, resp
		}
		fast, fr := run(0, false)
		slow, sr := run(1, true)
		if d := cmp.Diff(slow.Payloads, fast.Payloads); d != "" {
			t.Errorf("%+v: payloads differ (-general +memo):\n%s", opts, d)
		}
		if d := cmp.Diff(slow.Events, fast.Events); d != "" {
			t.Errorf("%+v: events differ (-general +memo):\n%s", opts, d)
		}
		if d := cmp.Diff(sr, fr); d != "" {
			t.Errorf("%+v: responses differ (-general +memo):\n%s", opts, d)
		}
		if d := cmp.Diff(unpaired[1], unpaired[0]); d != "" {
			t.Errorf("%+v: Unpaired differs (-general +memo):\n%s", opts, d)
		}
		if fr.Metadata[MetaMalformed] == "" {
			t.Errorf("%+v: no malformed line: %v", opts, fr.Metadata)
		}
	}
}
