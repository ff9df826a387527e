package appserver_test

import (
	"fmt"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/parsers/appserver"
)

const stdin = `{"method":"initialize","id":0,"params":{"clientInfo":{"name":"me","version":"1"}}}
{"method":"initialized"}
{"method":"thread/start","id":1,"params":{}}
{"method":"turn/start","id":2,"params":{"threadId":"th-1","input":[{"type":"text","text":"hi"}]}}
`

const stdout = `{"id":0,"result":{"userAgent":"codex"}}
{"id":1,"result":{"thread":{"id":"th-1"},"model":"gpt"}}
{"id":2,"result":{"turn":{"id":"tu-1","status":"inProgress"}}}
{"method":"turn/started","params":{"threadId":"th-1","turn":{"id":"tu-1","status":"inProgress"}}}
{"method":"item/agentMessage/delta","params":{"threadId":"th-1","turnId":"tu-1","itemId":"m1","delta":"Hi "}}
{"method":"item/agentMessage/delta","params":{"threadId":"th-1","turnId":"tu-1","itemId":"m1","delta":"there"}}
{"method":"item/completed","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"agentMessage","id":"m1","text":"Hi there"}}}
{"method":"thread/tokenUsage/updated","params":{"threadId":"th-1","turnId":"tu-1","tokenUsage":{"total":{"inputTokens":100,"outputTokens":10},"last":{"inputTokens":100,"outputTokens":10}}}}
{"method":"turn/completed","params":{"threadId":"th-1","turn":{"id":"tu-1","status":"completed","error":null}}}
`

func ExampleParseSession() {
	sink := &adaptertest.RecordingSink{}
	resp, err := appserver.ParseSession(strings.NewReader(stdin), strings.NewReader(stdout), strings.NewReader(""), sink,
		appserver.Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/repo"}}, appserver.Outcome{})
	fmt.Println(err)
	fmt.Println(resp.Output, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	fmt.Println(resp.RawStreams.Terminal.Event, resp.Checkpoint.Valid, resp.Checkpoint.State.ResumeID)
	for _, p := range sink.Payloads {
		fmt.Print(p.Kind, " ")
	}
	fmt.Println()
	// Output:
	// <nil>
	// Hi there 100 10
	// turn/completed true th-1
	// run.started step.started text.start text.content text.content text.end step.finished run.finished
}

// A driver feeds frames as they arrive and routes approval requests to
// the host, writing the answer line to the app-server's stdin.
func ExampleParser_TakeApprovals() {
	p := appserver.New(&adaptertest.RecordingSink{}, appserver.Options{Streaming: true})
	in := `{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th-1","turnId":"tu-1","itemId":"c1","command":"rm -rf build"}}` + "\n"
	for f, err := range jsonrpc.NewReader(strings.NewReader(in), jsonrpc.Options{}).All() {
		if err != nil {
			p.FeedError(err)
			continue
		}
		p.Feed(f)
		for _, a := range p.TakeApprovals() {
			// With a driver.DecisionCapableSink: resp, err := sink.RequestDecision(ctx, a.Decision)
			resp := driver.DecisionResponse{Result: driver.DecisionRejected}
			line, _ := a.Answer(resp)
			fmt.Printf("%s %q -> %s", a.Method, a.Decision.Prompt, line)
			// The answer, fed back, becomes hitl.resolved.
			ans, _ := jsonrpc.ClassifyBytes(line[:len(line)-1], jsonrpc.Options{})
			p.FeedClient(ans)
		}
	}
	// Output:
	// item/commandExecution/requestApproval "rm -rf build" -> {"id":0,"result":{"decision":"decline"}}
}
