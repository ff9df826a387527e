package claude_test

import (
	"fmt"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/claude"
)

// Parse a finished `claude -p --output-format stream-json --verbose
// --include-partial-messages` capture.
func Example() {
	stdout := strings.Join([]string{
		`{"type":"system","subtype":"init","session_id":"s-1","model":"claude-opus-5-5","cwd":"/w"}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}},"parent_tool_use_id":null,"session_id":"s-1"}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"parent_tool_use_id":null,"session_id":"s-1"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello, "}},"parent_tool_use_id":null,"session_id":"s-1"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"world."}},"parent_tool_use_id":null,"session_id":"s-1"}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Hello, world."}]},"parent_tool_use_id":null,"session_id":"s-1"}`,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":0},"parent_tool_use_id":null,"session_id":"s-1"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Hello, world.","session_id":"s-1","usage":{"input_tokens":12,"output_tokens":4}}`,
	}, "\n") + "\n"
	sink := &adaptertest.RecordingSink{}
	opts := claude.Options{Streaming: true, PartialMessages: true, SessionData: map[string]string{driver.ParamCWD: "/w"}}
	resp, err := claude.Parse(strings.NewReader(stdout), strings.NewReader(""), sink, opts, claude.Outcome{})
	if err != nil {
		panic(err)
	}
	for _, p := range sink.Payloads {
		line := string(p.Kind)
		if p.MessageID != "" {
			line += " " + p.MessageID
		}
		if p.Delta != "" {
			line += fmt.Sprintf(" %q", p.Delta)
		}
		fmt.Println(line)
	}
	fmt.Println("output:", resp.Output)
	fmt.Println("resume:", resp.Checkpoint.State.ResumeID, resp.Checkpoint.Valid)
	fmt.Println("violations:", len(sink.Check(true, claude.New(nil, opts).Capability(), resp, err, claude.Codec)))
	// Output:
	// run.started
	// text.start m1:0
	// text.content m1:0 "Hello, "
	// text.content m1:0 "world."
	// text.end m1:0
	// run.finished
	// output: Hello, world.
	// resume: s-1 true
	// violations: 0
}
