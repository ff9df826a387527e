package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// streamFastSeeds are stream_event lines: the recorded corpus's, the
// benchmark's, and the edges fastStream must decline or decode exactly.
func streamFastSeeds(t testing.TB) [][]byte {
	env := `,"parent_tool_use_id":null,"session_id":"41287ef0-450f-4d7a-8ff2-242aa812f532","uuid":"u"}`
	seeds := [][]byte{}
	for _, s := range []string{
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"hm\u00e9\ud83d\ude00"}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"x"}}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":3}` + env,
		`{"type":"stream_event","event":{"type":"message_stop"}` + env,
		`{"type":"stream_event","event":{"type":"ping"}` + env,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}},"parent_tool_use_id":"toolu_1","session_id":"s"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud800 lone"}},"session_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \xff utf8"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":-4,"delta":null,"usage":null,"message":null}}`,
		// Declined: the decoder would read these differently or fail.
		`{"type":"stream_event","event":{"type":"content_block_delta","Index":7,"delta":{"type":"text_delta","text":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","TEXT":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","te\u0078t":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","text":"y"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1.0,"delta":{"type":"text_delta","text":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":"1","delta":{"type":"text_delta","text":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":12345678901234567890,"delta":{}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m"}}}`,
		`{"type":"stream_event","type":"stream_event","event":{"type":"ping"}}`,
		`{"type":"stream_event","event":{"type":"ping"},"Session_ID":"x"}`,
		`{"type":"stream_event","event":{"type":"ping"},"session_id":"` + string(bytes.Repeat([]byte("a"), 65)) + `"}`,
		`{"type":"stream_event","event":{"type":"ping"},"session_id":"a\"b"}`,
		`{"type":"stream_event","event":{"type":"ping"},"parent_tool_use_id":{}}`,
		`{"type":"stream_event","event":[{"type":"ping"}]}`,
		`{"type":"stream_event","event":{"type":"ping","delta":[]}}`,
		`{"type":"stream_event","event":{"type":"ping"},"session_id":"s"`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"t\u0065xt_delta","text":"x"}}}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	stream, _ := partialStream(1, 3)
	seeds = append(seeds, bytes.Split(stream, []byte("\n"))...)
	files, _ := filepath.Glob("../../corpus/claude/*/*/stdout.jsonl")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if bytes.HasPrefix(line, streamPrefix) && len(line) < 4096 {
				seeds = append(seeds, line)
			}
		}
	}
	return seeds
}

// checkStreamFast is the oracle: when fastStream takes a line, the decoder
// takes it too (a valid stream_event line of one "type") and gives the
// same streamLine.
func checkStreamFast(t *testing.T, line []byte) (took bool) {
	p := New(&countSink{}, Options{})
	var fast streamLine
	if !p.fastStream(line, &fast) {
		return false
	}
	var slow streamLine
	if err := jsonguard.Unmarshal(line, &slow, 0); err != nil {
		t.Fatalf("fastStream took %q, the decoder fails: %v", line, err)
	}
	if slow.Type.n != 1 || slow.Type.v != "stream_event" {
		t.Fatalf("fastStream took %q, the decoder reads type %+v", line, slow.Type)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fastStream %q:\n fast %+v\n slow %+v", line, fast, slow)
	}
	return true
}

func TestStreamFast(t *testing.T) {
	took := 0
	for _, line := range streamFastSeeds(t) {
		if checkStreamFast(t, line) {
			took++
		}
	}
	// The corpus's deltas, stops and pings take the fast path: a change
	// that made it decline them all would pass the oracle and lose the
	// speed.
	if took < 20 {
		t.Fatalf("fastStream took only %d seeds", took)
	}
	for _, s := range []string{
		`{"type":"stream_event","event":{"type":"content_block_delta","Index":7,"delta":{"type":"text_delta","text":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","te\u0078t":"x"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","text":"y"}}}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m"}}}`,
	} {
		var l streamLine
		if New(&countSink{}, Options{}).fastStream([]byte(s), &l) {
			t.Errorf("fastStream took %s", s)
		}
	}
}

// FuzzStreamFast holds fastStream to the decoder on any line.
func FuzzStreamFast(f *testing.F) {
	for _, s := range streamFastSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkStreamFast(t, line) })
}
