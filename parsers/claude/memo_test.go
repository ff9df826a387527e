package claude

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/ndjson"
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
	r := ndjson.NewReader(strings.NewReader(in), ndjson.Options{})
	for {
		f, err := r.Next()
		if err != nil {
			break
		}
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
