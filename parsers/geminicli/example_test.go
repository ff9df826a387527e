package geminicli_test

import (
	"fmt"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/geminicli"
)

// A finished `gemini -p ... -o stream-json --yolo` capture (shortened from
// corpus/gemini-cli/gemini-cli@0.61.0/tool-success), parsed with
// streaming on.
func ExampleParse() {
	stdout := `{"type":"init","timestamp":"2026-12-02T01:09:20.408Z","session_id":"6cf0ed36-f7d7-4aa6-a317-070f7df63513","model":"gemini-2.5-flash"}
{"type":"message","timestamp":"2026-12-02T01:09:20.421Z","role":"user","content":"Run echo hello from shell."}
{"type":"message","timestamp":"2026-12-02T01:09:20.913Z","role":"assistant","content":"I'll run ","delta":true}
{"type":"message","timestamp":"2026-12-02T01:09:20.933Z","role":"assistant","content":"the command.","delta":true}
{"type":"tool_use","timestamp":"2026-12-02T01:09:21.787Z","tool_name":"run_shell_command","tool_id":"run_shell_command__run_shell_command_1796173760940_0","parameters":{"command":"echo hello from shell"}}
{"type":"tool_result","timestamp":"2026-12-02T01:09:25.646Z","tool_id":"run_shell_command__run_shell_command_1796173760940_0","status":"success","output":"hello from shell"}
{"type":"message","timestamp":"2026-12-02T01:09:26.501Z","role":"assistant","content":"It printed hello.","delta":true}
{"type":"result","timestamp":"2026-12-02T01:09:26.641Z","status":"success","stats":{"total_tokens":502,"input_tokens":460,"output_tokens":42,"cached":0,"input":460,"duration_ms":6263,"tool_calls":1,"models":{"gemini-2.5-flash":{"total_tokens":502,"input_tokens":460,"output_tokens":42,"cached":0,"input":460}}}}
`
	sink := &adaptertest.RecordingSink{}
	opts := geminicli.Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/repo"}}
	resp, err := geminicli.Parse(strings.NewReader(stdout), strings.NewReader("YOLO mode is enabled. All tool calls will be automatically approved.\n"), sink, opts, geminicli.Outcome{})
	if err != nil {
		panic(err)
	}
	var kinds []string
	for _, p := range sink.Payloads {
		kinds = append(kinds, string(p.Kind))
	}
	fmt.Println(strings.Join(kinds, " "))
	fmt.Printf("output=%q terminal=%s usage=%d/%d\n", resp.Output, resp.RawStreams.Terminal.Event, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	fmt.Printf("resume=%s valid=%v\n", resp.Checkpoint.State.ResumeID, resp.Checkpoint.Valid)
	fmt.Println("violations:", len(sink.Check(true, geminicli.Capability, resp, err, geminicli.Codec)))
	// Output:
	// run.started text.start text.content text.content text.end tool_call.start tool_call.end text.start text.content text.end run.finished
	// output="It printed hello." terminal=result usage=460/42
	// resume=6cf0ed36-f7d7-4aa6-a317-070f7df63513 valid=true
	// violations: 0
}
