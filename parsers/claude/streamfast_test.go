package claude

import (
	"bytes"
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
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"x\u00ff","text":"x"}}}`,
		"{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"\xfftext\",\"text\":\"x\"}}}",
		// The other events.
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":3,"output_tokens":1,"cache_creation":{"e":0}}}}` + env,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","usage":null}}}`,
		`{"type":"stream_event","event":{"type":"message_start","message":null}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":"","signature":""}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_start","index":3,"content_block":{"type":"web_search_tool_result","tool_use_id":"s","content":[{"type":"text","text":"a"}]}}` + env,
		`{"type":"stream_event","event":{"type":"content_block_start","index":3,"content_block":null}}`,
		`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":200,"output_tokens":30}}` + env,
		`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":null}}`,
		`{"type":"stream_event","event":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + env,
		`{"type":"stream_event","event":{"type":"error","error":null}}`,
		`{"type":"stream_event","event":{"type":"some_new_event","payload":{"a":[1,2]}}}`,
		`{"type":"stream_event","event":null}`,
		`{"type":"stream_event"}`,
		// Declined.
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m","ID":"n"}}}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{"usage":{"input_tokens":"1"}}}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","content_block":{"type":"text","text":1}}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","content_block":[]}}`,
		`{"type":"stream_event","event":{"type":"error","error":{"type":"x","Message":"y"}}}`,
		`{"type":"stream_event","event":{"type":"error","error":"boom"}}`,
		`{"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":1},"usage":{"output_tokens":2}}}`,
		`{"type":"stream_event","event":{"type":7}}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	stream, _ := partialStream(1, 3)
	seeds = append(seeds, bytes.Split(stream, []byte("\n"))...)
	return append(seeds, corpusLines(t, streamPrefix)...)
}

// checkStreamFast is the oracle: when fastStream takes a line, the decoder
// takes it too (a valid stream_event line of one "type") and gives the
// same streamLine. It decodes the line twice: the second time the usage
// memo holds the line's own usage.
func checkStreamFast(t *testing.T, line []byte) (took bool) {
	p := New(&countSink{}, Options{})
	if !p.fastStream([]byte(`{"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":9}}}`), &p.sl) {
		t.Fatal("fastStream declines its own seed")
	}
	for pass := range 2 {
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
			t.Fatalf("fastStream %q (pass %d):\n fast %+v\n slow %+v", line, pass, fast, slow)
		}
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
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m","ID":"n"}}}`,
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
