package codex_test

import (
	"fmt"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/codex"
)

// A finished `codex exec --json` capture, parsed with streaming on.
func ExampleParse() {
	stdout := `{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/5"}
{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"bash -lc ls","aggregated_output":"go.mod\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"One file: go.mod."}}
{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":0,"output_tokens":14}}
`
	sink := &adaptertest.RecordingSink{}
	opts := codex.Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/repo"}}
	resp, err := codex.Parse(strings.NewReader(stdout), strings.NewReader("Reading additional input from stdin...\n"), sink, opts, codex.Outcome{ExitCode: 0})
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
	fmt.Println("violations:", len(sink.Check(true, codex.Capability, resp, err, codex.Codec)))
	// Output:
	// run.started step.started codex/error tool_call.start tool_call.end text.start text.content text.end step.finished run.finished
	// output="One file: go.mod." terminal=turn.completed usage=120/14
	// resume=0199a213-81c0-7800-8aa1-bbab2a035a53 valid=true
	// violations: 0
}
