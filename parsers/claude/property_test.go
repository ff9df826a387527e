package claude

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// genStream draws a stream from the protocol's vocabulary with random
// order, scopes, ids and indexes: the state machine must keep every
// validator satisfied whatever the interleaving, and a valid checkpoint
// must still be earned.
func genStream(t *rapid.T) []string {
	scopes := []string{"", "T1", "T2"}
	ids := []string{"m1", "m2", "m3"}
	tools := []string{"T1", "T2", "t3", "t4"}
	types := []string{"text", "thinking", "tool_use", "redacted_thinking", "server_tool_use", "hologram"}
	lines := []string{}
	if rapid.Bool().Draw(t, "init") {
		lines = append(lines, initL())
	}
	n := rapid.IntRange(0, 40).Draw(t, "n")
	for i := range n {
		scope := rapid.SampledFrom(scopes).Draw(t, "scope")
		id := rapid.SampledFrom(ids).Draw(t, "id")
		idx := strconv.Itoa(rapid.IntRange(0, 2).Draw(t, "idx"))
		tool := rapid.SampledFrom(tools).Draw(t, "tool")
		var l string
		switch rapid.IntRange(0, 16).Draw(t, "op") {
		case 15:
			l = rapid.SampledFrom([]string{`garbage`, `{"type":"assistant","message":`, `{"x":1}`}).Draw(t, "bad")
		case 16:
			l = `{"type":"system","subtype":"status","session_id":"other"}`
		case 0:
			l = evL(scope, `{"type":"message_start","message":{"id":"`+id+`","usage":{"input_tokens":3,"output_tokens":1}}}`)
		case 1:
			typ := rapid.SampledFrom(types).Draw(t, "type")
			l = evL(scope, `{"type":"content_block_start","index":`+idx+`,"content_block":{"type":"`+typ+`","id":"`+tool+`","name":"Bash","input":{},"text":"","thinking":""}}`)
		case 2:
			l = evL(scope, `{"type":"content_block_delta","index":`+idx+`,"delta":{"type":"text_delta","text":"w`+strconv.Itoa(i)+`"}}`)
		case 3:
			l = evL(scope, `{"type":"content_block_delta","index":`+idx+`,"delta":{"type":"thinking_delta","thinking":"t"}}`)
		case 4:
			l = evL(scope, `{"type":"content_block_delta","index":`+idx+`,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`)
		case 5:
			l = evL(scope, `{"type":"content_block_stop","index":`+idx+`}`)
		case 6:
			l = evL(scope, `{"type":"message_stop"}`)
		case 7:
			l = asstL(scope, id, textB("snap"))
		case 8:
			l = asstL(scope, id, toolB(tool, "Task", `{"x":1}`))
		case 9:
			l = asstL(scope, id, `{"type":"thinking","thinking":"th","signature":"s"}`)
		case 10:
			l = userResultL(scope, tool, "r", rapid.Bool().Draw(t, "err"))
		case 11:
			l = canUseL(id, "Bash", `{}`)
		case 12:
			l = `{"type":"control_cancel_request","request_id":"` + id + `"}`
		case 13:
			l = okL("done")
		case 14:
			l = evL(scope, `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`)
		}
		lines = append(lines, l)
	}
	return lines
}

func TestPropertyInterleavings(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		lines := genStream(rt)
		flags := rapid.Byte().Draw(rt, "flags") | 4 // streaming on
		c := fuzzCase(stream(lines...), flags)
		whole := replay(t, c, chunkers[0])
		check(t, c, whole)
		earned(t, c, whole)
		if d := diffRuns(whole, replay(t, c, chunkers[1])); d != "" {
			rt.Fatalf("per-line chunking differs:\n%s", d)
		}
	})
}
