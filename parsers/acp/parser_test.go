package acp

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/jsonrpc"
)

const sid = "sess-1"

var sessionData = map[string]string{driver.ParamCWD: "/scratch/work", driver.ParamWorkspaceID: "ws-1"}

// Synthetic lines in the shapes of the ACP schema and the four agents.
func initResp(id int, loadSession bool) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":%v,"promptCapabilities":{"image":true}},"agentInfo":{"name":"mock-agent","version":"1.2.3"},"authMethods":[]}}`, id, loadSession)
}

func newResp(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":%q,"models":{"currentModelId":"mock-model"},"modes":{"currentModeId":"default"}}}`, id, sid)
}

func upd(u string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":%s}}`, sid, u)
}

func text(kind, t string) string {
	return upd(fmt.Sprintf(`{"sessionUpdate":%q,"content":{"type":"text","text":%q}}`, kind, t))
}

func promptResp(id int, stop string, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":%q%s}}`, id, stop, extra)
}

var clientSide = lines(
	`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/scratch/work","mcpServers":[]}}`,
	`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hi"}]}}`,
)

func textSession(stop, extra string, load bool) string {
	return lines(
		initResp(0, load),
		newResp(1),
		upd(`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"init","description":"d"}]}`),
		text("agent_thought_chunk", "thinking "),
		text("agent_thought_chunk", "hard"),
		text("agent_message_chunk", "Hello, "),
		text("agent_message_chunk", "wörld 🌍"),
		text("agent_message_chunk", "!"),
		promptResp(2, stop, extra),
	)
}

func TestTextTurn(t *testing.T) {
	out := textSession("end_turn", `,"usage":{"totalTokens":30,"inputTokens":20,"outputTokens":10,"cachedReadTokens":5}`, true)
	for _, stdin := range []string{"", clientSide} {
		r, u := mustRun(t, stdin, out, Options{Streaming: true, SessionData: sessionData}, Outcome{})
		resp := r.Response
		if resp.Failure != nil || resp.Output != "Hello, wörld 🌍!" {
			t.Fatalf("failure %+v output %q", resp.Failure, resp.Output)
		}
		if resp.Finish == nil || *resp.Finish != (driver.Finish{Reason: driver.FinishStop, Raw: "end_turn"}) {
			t.Fatalf("finish %+v", resp.Finish)
		}
		if resp.Usage == nil || *resp.Usage != (driver.Usage{InputTokens: 20, OutputTokens: 10, CachedInputTokens: 5}) {
			t.Fatalf("usage %+v", resp.Usage)
		}
		if cp := resp.Checkpoint; cp == nil || !cp.Valid || cp.State.ResumeID != sid {
			t.Fatalf("checkpoint %+v (%s)", cp, resp.Metadata[MetaCheckpoint])
		}
		if rs := resp.RawStreams; rs.Stdout != out || rs.Terminal == nil || string(rs.Terminal.JSON)+"\n" != lines(promptResp(2, "end_turn", `,"usage":{"totalTokens":30,"inputTokens":20,"outputTokens":10,"cachedReadTokens":5}`)) {
			t.Fatalf("raw streams %+v", rs.Terminal)
		}
		if got := itemKinds(resp.Transcript); !slices.Equal(got, []string{"init", "thinking", "assistant", "result"}) {
			t.Fatalf("items %v", got)
		}
		want := []string{"run.started", "acp/initialize", "acp/available_commands_update", "reasoning.start:message-1", "reasoning.content:message-1", "reasoning.content:message-1", "reasoning.end:message-1", "text.start:message-2", "text.content:message-2", "text.content:message-2", "text.content:message-2", "text.end:message-2", "run.finished"}
		if got := kinds(r.Payloads); !slices.Equal(got, want) {
			t.Fatalf("payloads %v", got)
		}
		if r.Payloads[0].ThreadID != sid || resp.Model != "mock-model" || resp.Metadata[MetaAgentName] != "mock-agent" || resp.Metadata[MetaUsageSource] != "result.usage" {
			t.Fatalf("run.started %+v, model %q, metadata %v", r.Payloads[0], resp.Model, resp.Metadata)
		}
		if len(u) != 0 {
			t.Fatalf("unpaired %v", u)
		}
	}
}

func TestCheckpointNeedsLoadSession(t *testing.T) {
	r, _ := mustRun(t, "", textSession("end_turn", "", false), Options{Streaming: true}, Outcome{})
	cp := r.Response.Checkpoint
	if cp == nil || cp.Valid || r.Response.Metadata[MetaCheckpoint] != "the agent did not advertise loadSession" {
		t.Fatalf("checkpoint %+v %v", cp, r.Response.Metadata)
	}
	for _, out := range []Outcome{{ExitCode: 1}, {Signal: "SIGTERM"}, {Cancelled: true}, {TimedOut: true}} {
		r, _ := mustRun(t, "", textSession("end_turn", "", true), Options{Streaming: true}, out)
		if r.Response.Checkpoint.Valid || r.Response.Failure == nil {
			t.Fatalf("%+v: checkpoint valid or no failure", out)
		}
	}
}

func TestStopReasons(t *testing.T) {
	for stop, want := range map[string]driver.FinishReason{"max_tokens": driver.FinishLength, "max_turn_requests": driver.FinishOther, "refusal": driver.FinishContentFilter, "something_new": driver.FinishUnknown} {
		r, _ := mustRun(t, "", textSession(stop, "", true), Options{Streaming: true}, Outcome{})
		if r.Response.Failure != nil || r.Response.Finish == nil || r.Response.Finish.Reason != want || r.Response.Finish.Raw != stop {
			t.Fatalf("%s: failure %+v finish %+v", stop, r.Response.Failure, r.Response.Finish)
		}
	}
	r, _ := mustRun(t, "", textSession("cancelled", "", true), Options{Streaming: true}, Outcome{})
	if f := r.Response.Failure; f == nil || f.Code != driver.FailureCancelled || r.Response.Finish != nil || r.Response.Checkpoint.Valid {
		t.Fatalf("cancelled: %+v %+v", f, r.Response.Finish)
	}
	if last := r.Payloads[len(r.Payloads)-1]; last.Kind != driver.StreamRunError {
		t.Fatalf("cancelled ends with %s", last.Kind)
	}
}

func TestPromptError(t *testing.T) {
	out := lines(initResp(0, true), newResp(1), text("agent_message_chunk", "partial"),
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"model API failed after 3 retries","data":{"status":500}}}`)
	for _, stdin := range []string{"", clientSide} {
		r, _ := mustRun(t, stdin, out, Options{Streaming: true}, Outcome{ExitCode: 0})
		f := r.Response.Failure
		if f == nil || f.Code != driver.FailureProviderError || f.ErrorType != "-32603" || !strings.Contains(f.Message, "after 3 retries") || r.Response.Usage != nil {
			t.Fatalf("failure %+v usage %+v", f, r.Response.Usage)
		}
		if r.Response.RawStreams.Terminal == nil || r.Response.Checkpoint.Valid {
			t.Fatal("terminal missing or checkpoint valid")
		}
	}
}

func TestToolCallLifecycle(t *testing.T) {
	out := lines(initResp(0, true), newResp(1),
		text("agent_message_chunk", "Let me look."),
		upd(`{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Read notes.txt","kind":"read","status":"pending","locations":[{"path":"/w/notes.txt"}]}`),
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"in_progress","rawInput":{"path":"/w/notes.txt"}}`),
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"the notes"}}],"rawOutput":{"bytes":9}}`),
		upd(`{"sessionUpdate":"tool_call","toolCallId":"call_2","title":"rm -rf /","kind":"execute","status":"pending","rawInput":{"command":"rm -rf /"}}`),
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"call_2","status":"failed","content":[{"type":"content","content":{"type":"text","text":"denied"}}]}`),
		text("agent_message_chunk", "Done."),
		promptResp(2, "end_turn", ""),
	)
	r, u := mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	if got := itemKinds(r.Response.Transcript); !slices.Equal(got, []string{"init", "assistant", "tool_call", "tool_result", "tool_call", "tool_result", "assistant", "result"}) {
		t.Fatalf("items %v", got)
	}
	tc, tr := r.Response.Transcript[2], r.Response.Transcript[3]
	if tc.ToolName != "read" || tc.Metadata["title"] != "Read notes.txt" || fmt.Sprint(tc.Input) != "map[path:/w/notes.txt]" {
		t.Fatalf("tool call %+v", tc)
	}
	if tr.Text != "the notes" || tr.IsError || tr.Data["status"] != "completed" {
		t.Fatalf("tool result %+v", tr)
	}
	if f := r.Response.Transcript[5]; !f.IsError || f.Text != "denied" {
		t.Fatalf("failed tool %+v", f)
	}
	if r.Response.Output != "Done." || len(u) != 0 {
		t.Fatalf("output %q unpaired %v", r.Response.Output, u)
	}
}

func TestPermission(t *testing.T) {
	out := lines(initResp(0, true), newResp(1),
		upd(`{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"echo hi","kind":"execute","status":"pending"}`),
		`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"sess-1","toolCall":{"toolCallId":"call_1","title":"echo hi","rawInput":{"command":"echo hi"}},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`,
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed"}`),
		promptResp(2, "end_turn", ""),
	)
	stdin := clientSide + lines(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
	r, u := mustRun(t, stdin, out, Options{Streaming: true}, Outcome{})
	var req, res *driver.StreamPayload
	for i := range r.Payloads {
		switch r.Payloads[i].Kind {
		case driver.StreamHITLRequested:
			req = &r.Payloads[i]
		case driver.StreamHITLResolved:
			res = &r.Payloads[i]
		}
	}
	if req == nil || res == nil || req.HITLRequested.ToolCallID != "call_1" || len(req.HITLRequested.Choices) != 2 || res.HITLResolved.Result != driver.DecisionApproved || res.HITLResolved.Choice != "allow" {
		t.Fatalf("hitl %+v %+v", req, res)
	}
	if len(u) != 0 {
		t.Fatalf("unpaired %v", u)
	}
	// Without the answer: requested only, and the request is unpaired on
	// the client side.
	_, u = mustRun(t, clientSide, out, Options{Streaming: true}, Outcome{})
	if len(u) != 1 || !strings.Contains(u[0], "no answer") {
		t.Fatalf("unpaired %v", u)
	}
}

func TestRequestAnswer(t *testing.T) {
	p := New(&discard{}, Options{Streaming: true})
	feedLines(t, p, lines(initResp(0, true), newResp(1),
		`{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"sess-1","toolCall":{"toolCallId":"c"},"options":[{"optionId":"a1","name":"Allow","kind":"allow_once"},{"optionId":"r1","name":"No","kind":"reject_always"}]}}`,
		`{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"sess-1","path":"/w/a.txt"}}`,
	))
	reqs := p.TakeRequests()
	if len(reqs) != 2 || reqs[0].Decision == nil || reqs[1].Method != "fs/read_text_file" || len(p.TakeRequests()) != 0 {
		t.Fatalf("requests %+v", reqs)
	}
	for res, want := range map[driver.DecisionResult]string{
		driver.DecisionApproved: `{"jsonrpc":"2.0","id":"p1","result":{"outcome":{"optionId":"a1","outcome":"selected"}}}` + "\n",
		driver.DecisionRejected: `{"jsonrpc":"2.0","id":"p1","result":{"outcome":{"optionId":"r1","outcome":"selected"}}}` + "\n",
		driver.DecisionAborted:  `{"jsonrpc":"2.0","id":"p1","result":{"outcome":{"outcome":"cancelled"}}}` + "\n",
	} {
		b, err := reqs[0].Answer(driver.DecisionResponse{Result: res})
		if err != nil || string(b) != want {
			t.Fatalf("%s: %s %v", res, b, err)
		}
	}
	if _, err := reqs[1].Answer(driver.DecisionResponse{}); err == nil {
		t.Fatal("fs request answered as a permission")
	}
}

func TestUsageSources(t *testing.T) {
	gemini := `,"_meta":{"quota":{"token_count":{"input_tokens":100,"output_tokens":7},"model_usage":[{"model":"gemini-2.5-pro","token_count":{"input_tokens":100,"output_tokens":7}}]}}`
	r, _ := mustRun(t, "", textSession("end_turn", gemini, true), Options{Streaming: true}, Outcome{})
	if u := r.Response.Usage; u == nil || *u != (driver.Usage{InputTokens: 100, OutputTokens: 7}) || r.Response.Metadata[MetaUsageSource] != "result._meta.quota" {
		t.Fatalf("gemini usage %+v %v", u, r.Response.Metadata)
	}
	// Qwen Code: one _meta.usage per model call on empty chunks, summed;
	// thoughtTokens counted apart from outputTokens (the total says so).
	qwen := func(in, out, th int) string {
		return upd(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""},"_meta":{"usage":{"inputTokens":%d,"outputTokens":%d,"totalTokens":%d,"thoughtTokens":%d},"durationMs":12}}`, in, out, in+out+th, th))
	}
	out := lines(initResp(0, true), newResp(1), text("agent_message_chunk", "a"), qwen(10, 2, 3),
		upd(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"x","kind":"other","status":"completed"}`),
		text("agent_message_chunk", "b"), qwen(20, 4, 0),
		`{"jsonrpc":"2.0","method":"qwen/notify/session/title-update","params":{"sessionId":"sess-1","title":"t"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"craft/drainMidTurnQueue","params":{"sessionId":"sess-1"}}`,
		promptResp(2, "end_turn", ""))
	r, _ = mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	if u := r.Response.Usage; u == nil || *u != (driver.Usage{InputTokens: 30, OutputTokens: 9, ReasoningTokens: 3}) || r.Response.Metadata[MetaUsageSource] != "update._meta.usage" {
		t.Fatalf("qwen usage %+v %v", u, r.Response.Metadata)
	}
	if r.Response.Metadata[MetaExtensions] != "2" || r.Response.Metadata[MetaUnknown] != "" || r.Response.Output != "b" {
		t.Fatalf("metadata %v output %q", r.Response.Metadata, r.Response.Output)
	}
	// The prompt result's usage replaces the turn's _meta figures.
	out = lines(initResp(0, true), newResp(1), qwen(10, 2, 0), promptResp(2, "end_turn", `,"usage":{"totalTokens":5,"inputTokens":4,"outputTokens":1}`))
	r, _ = mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	if u := r.Response.Usage; u == nil || *u != (driver.Usage{InputTokens: 4, OutputTokens: 1}) {
		t.Fatalf("replaced usage %+v", u)
	}
	// Copilot's usage_update is the context window, not the turn's usage.
	out = lines(initResp(0, true), newResp(1), upd(`{"sessionUpdate":"usage_update","used":53000,"size":200000,"cost":{"amount":0.045,"currency":"USD"}}`), promptResp(2, "end_turn", ""))
	r, _ = mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	if m := r.Response.Metadata; r.Response.Usage != nil || m[MetaContextUsed] != "53000" || m[MetaContextSize] != "200000" || m[MetaCost] != "0.045 USD" {
		t.Fatalf("usage_update %+v %v", r.Response.Usage, m)
	}
}

func TestHostileLines(t *testing.T) {
	out := lines(initResp(0, true), newResp(1),
		`not json at all`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1"}}`,
		upd(`{"sessionUpdate":"brand_new_kind","x":1}`),
		upd(`{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AAAA","mimeType":"image/png"}}`),
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"ghost","status":"completed"}`),
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"other","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"not mine"}}}}`,
		`{"jsonrpc":"2.0","method":"mystery","params":{}}`,
		`[{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"batched"}}}}]`,
		promptResp(2, "end_turn", ""),
	)
	r, u := mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	m := r.Response.Metadata
	if m[MetaMalformed] != "2" || m[MetaUnknown] != "2" || m[MetaOther] != "1" || r.Response.Checkpoint.Valid || r.Response.Output != "batched" {
		t.Fatalf("metadata %v output %q", m, r.Response.Output)
	}
	if len(u) != 1 || !strings.Contains(u[0], "ghost") {
		t.Fatalf("unpaired %v", u)
	}
	// A capture cut off before the prompt response: incomplete.
	r, _ = mustRun(t, "", lines(initResp(0, true), newResp(1), text("agent_message_chunk", "cut")), Options{Streaming: true}, Outcome{})
	if f := r.Response.Failure; f == nil || f.Code != driver.FailureIncomplete || r.Response.Output != "cut" {
		t.Fatalf("incomplete %+v", f)
	}
}

func TestLoadReplaysHistory(t *testing.T) {
	stdin := lines(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"sess-1","cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"again"}]}}`,
	)
	out := lines(initResp(0, true),
		text("user_message_chunk", "first prompt"), text("agent_message_chunk", "old answer"),
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		text("agent_message_chunk", "new answer"),
		promptResp(2, "end_turn", ""))
	for _, c := range []struct {
		stdin string
		opts  Options
	}{{stdin, Options{Streaming: true}}, {"", Options{Streaming: true, SessionID: sid, Load: true}}} {
		r, u := mustRun(t, c.stdin, out, c.opts, Outcome{})
		resp := r.Response
		if resp.Output != "new answer" || resp.Metadata[MetaReplayed] != "2" || !resp.Checkpoint.Valid || resp.Checkpoint.State.ResumeID != sid || len(u) != 0 {
			t.Fatalf("output %q metadata %v checkpoint %+v unpaired %v", resp.Output, resp.Metadata, resp.Checkpoint, u)
		}
		if got := itemKinds(resp.Transcript); !slices.Equal(got, []string{"init", "assistant", "result"}) {
			t.Fatalf("items %v", got)
		}
	}
}

func TestMessageIDs(t *testing.T) {
	chunk := func(id, t string) string {
		return upd(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","messageId":%q,"content":{"type":"text","text":%q}}`, id, t))
	}
	out := lines(initResp(0, true), newResp(1), chunk("m1", "a"), chunk("m1", "b"), chunk("m2", "c"), promptResp(2, "end_turn", ""))
	r, _ := mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	var texts []string
	for _, it := range r.Response.Transcript {
		if it.Kind == driver.TranscriptAssistant {
			texts = append(texts, it.Text+"@"+it.Metadata["message_id"])
		}
	}
	if !slices.Equal(texts, []string{"ab@m1", "c@m2"}) || r.Response.Output != "c" {
		t.Fatalf("messages %v", texts)
	}
}

func TestNoStreaming(t *testing.T) {
	r, _ := mustRun(t, "", textSession("end_turn", "", true), Options{}, Outcome{})
	if len(r.Payloads) != 0 || r.Response.Output == "" {
		t.Fatalf("payloads %d", len(r.Payloads))
	}
}

func TestCodec(t *testing.T) { parsertest.CheckCodecDisplayID(t, Codec) }

// TestQwenShapes: Qwen Code 0.24.4 announces a call with rawInput {} while
// "preparing" and names the tool in _meta.toolName; the input comes with
// the permission request; an update arrives after the prompt response.
// opencode 1.18.33 announces a pending call with a partial rawInput.
func TestQwenShapes(t *testing.T) {
	out := lines(initResp(0, true), newResp(1),
		upd(`{"sessionUpdate":"tool_call","toolCallId":"call_1","status":"pending","title":"Shell","content":[],"locations":[],"kind":"execute","rawInput":{},"_meta":{"toolName":"run_shell_command","provenance":"builtin","phase":"preparing"}}`),
		`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"sess-1","options":[{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}],"toolCall":{"toolCallId":"call_1","status":"pending","title":"rm -rf ./build","kind":"execute","rawInput":{"command":"rm -rf ./build"},"_meta":{"toolName":"run_shell_command"}}}}`,
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"failed","content":[{"type":"content","content":{"type":"text","text":"Tool \"run_shell_command\" was canceled by the user."}}],"_meta":{"toolName":"run_shell_command","provenance":"builtin"}}`),
		promptResp(2, "end_turn", ""),
		upd(`{"sessionUpdate":"available_commands_update","availableCommands":[]}`),
	)
	stdin := clientSide + lines(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"cancel"}}}`)
	r, u := mustRun(t, stdin, out, Options{Streaming: true}, Outcome{})
	var call, res *driver.TranscriptItem
	for i, it := range r.Response.Transcript {
		switch it.Kind {
		case driver.TranscriptToolCall:
			call = &r.Response.Transcript[i]
		case driver.TranscriptToolResult:
			res = &r.Response.Transcript[i]
		}
	}
	if call == nil || call.ToolName != "run_shell_command" || fmt.Sprint(call.Input) != "map[command:rm -rf ./build]" {
		t.Fatalf("tool call %+v", call)
	}
	if res == nil || !res.IsError || !strings.Contains(res.Text, "canceled by the user") {
		t.Fatalf("tool result %+v", res)
	}
	if r.Response.Metadata[MetaState] != "done" || len(u) != 0 || !r.Response.Checkpoint.Valid {
		t.Fatalf("state %q unpaired %v checkpoint %+v", r.Response.Metadata[MetaState], u, r.Response.Checkpoint)
	}
	out = lines(initResp(0, true), newResp(1),
		upd(`{"sessionUpdate":"tool_call","toolCallId":"call_2","title":"bash","kind":"execute","status":"pending","rawInput":{"cwd":"/w"}}`),
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"call_2","status":"in_progress","kind":"execute","title":"touch x","rawInput":{"command":"touch x","cwd":"/w"}}`),
		upd(`{"sessionUpdate":"tool_call_update","toolCallId":"call_2","status":"completed","title":"touch x","content":[{"type":"content","content":{"type":"text","text":"(no output)"}}],"rawOutput":{"output":"(no output)","metadata":{"exit":0}}}`),
		promptResp(2, "end_turn", ""))
	r, _ = mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	if it := r.Response.Transcript[1]; it.Kind != driver.TranscriptToolCall || fmt.Sprint(it.Input) != "map[command:touch x cwd:/w]" || it.Metadata["title"] != "touch x" {
		t.Fatalf("opencode tool call %+v", it)
	}
}

// TestHeldBackPayloads: custom payloads held back for run.started are
// emitted before the first other payload, even when that payload starts
// the run itself (a chunk before any session response).
func TestHeldBackPayloads(t *testing.T) {
	out := lines(initResp(0, true), text("agent_message_chunk", "early"), promptResp(2, "end_turn", ""))
	r, u := mustRun(t, "", out, Options{Streaming: true}, Outcome{})
	got := kinds(r.Payloads)
	if !slices.Equal(got[:3], []string{"run.started", "acp/initialize", "text.start:message-1"}) {
		t.Fatalf("payloads %v", got)
	}
	if len(u) != 1 || !strings.Contains(u[0], "without a session") {
		t.Fatalf("unpaired %v", u)
	}
}

// TestTwoPrompts: two turns in one run: the last response is the
// terminal, the turns' usage adds up, each turn's reports replace within
// it.
func TestTwoPrompts(t *testing.T) {
	stdin := clientSide + lines(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"more"}]}}`)
	out := lines(initResp(0, true), newResp(1),
		text("agent_message_chunk", "one"), promptResp(2, "end_turn", `,"usage":{"totalTokens":11,"inputTokens":10,"outputTokens":1}`),
		text("agent_message_chunk", "two"), promptResp(3, "max_tokens", `,"usage":{"totalTokens":22,"inputTokens":20,"outputTokens":2}`))
	r, u := mustRun(t, stdin, out, Options{Streaming: true}, Outcome{})
	resp := r.Response
	if resp.Output != "two" || resp.Usage == nil || *resp.Usage != (driver.Usage{InputTokens: 30, OutputTokens: 3}) || resp.Finish.Reason != driver.FinishLength || resp.Metadata[MetaPrompts] != "2" || len(u) != 0 {
		t.Fatalf("output %q usage %+v finish %+v metadata %v unpaired %v", resp.Output, resp.Usage, resp.Finish, resp.Metadata, u)
	}
	if !strings.Contains(string(resp.RawStreams.Terminal.JSON), `"id":3`) {
		t.Fatalf("terminal %s", resp.RawStreams.Terminal.JSON)
	}
	// The second prompt unanswered: incomplete.
	r, _ = mustRun(t, stdin, lines(initResp(0, true), newResp(1), promptResp(2, "end_turn", "")), Options{Streaming: true}, Outcome{})
	if f := r.Response.Failure; f == nil || f.Code != driver.FailureIncomplete || !strings.Contains(f.Message, "id 3") {
		t.Fatalf("failure %+v", f)
	}
}

// TestUpdateRead: the reader of session/update agrees with a decode of
// the same params, on the shapes the agents write and on spacing, escapes
// and member orders they might, with the framing's index and without.
func TestUpdateRead(t *testing.T) {
	for _, params := range []string{
		`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`,
		`{ "update" : { "content" : { "text" : "a\"b}" , "type" : "text" } , "messageId" : "m" , "sessionUpdate" : "agent_thought_chunk" , "_meta" : {"usage":{"inputTokens":1}} } , "sessionId" : "s\u0031" }`,
		`{"sessionId":"s","update":{"sessionUpdate":"tool_call","content":[{"type":"content","content":{"type":"text","text":"x"}}],"toolCallId":"t"},"_meta":{"a":[1,{"b":"}"}]}}`,
		`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}`,
	} {
		var want struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				Kind    string             `json:"sessionUpdate"`
				MsgID   string             `json:"messageId"`
				Content stdjson.RawMessage `json:"content"`
			} `json:"update"`
		}
		if err := stdjson.Unmarshal([]byte(params), &want); err != nil {
			t.Fatal(err)
		}
		line := `{"jsonrpc":"2.0","method":"session/update","params":` + params + "}"
		// A Reader's frame (members from the framing's index) and
		// Classify's (members walked) read alike.
		indexed, err := jsonrpc.NewReader(strings.NewReader(line+"\n"), jsonrpc.Options{}).Next()
		if err != nil {
			t.Fatal(err)
		}
		walked, err := jsonrpc.ClassifyBytes([]byte(line), jsonrpc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var u, w update
		if !u.read(&indexed) || !w.read(&walked) {
			t.Fatalf("%s: read failed", params)
		}
		if d := cmp.Diff(u, w, cmp.AllowUnexported(update{}, block{}, toolFields{})); d != "" {
			t.Fatalf("%s: indexed and walked reads differ:\n%s", params, d)
		}
		s, _ := tokenString(u.session)
		k, _ := tokenString(u.kind)
		m, _ := tokenString(u.msgID)
		if s != want.SessionID || k != want.Update.Kind || m != want.Update.MsgID || string(u.content) != string(want.Update.Content) {
			t.Fatalf("%s: read %q %q %q %s", params, s, k, m, u.content)
		}
		var bl struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if len(want.Update.Content) > 0 && want.Update.Content[0] == '{' {
			stdjson.Unmarshal(want.Update.Content, &bl)
			typ, _ := tokenString(u.block.typ)
			txt, _ := tokenString(u.block.text)
			if !u.block.ok || typ != bl.Type || txt != bl.Text {
				t.Fatalf("%s: block %q %q", params, typ, txt)
			}
		}
	}
}

// TestCancelledWithStopError: a cancelled run stays a cancellation when
// its stop also failed. Qwen Code 0.24.4's cancel
// (corpus/acp/qwen-code@0.24.4/cancel: the prompt answered with
// stopReason cancelled) with the error the process helper reports when
// the killed agent left a process holding the output pipes: Failure and
// the run.error terminal are cancelled, the error is in Metadata "error"
// and returned, and the checkpoint is invalid; the same error on a turn
// that ended with end_turn is an agent_error.
func TestCancelledWithStopError(t *testing.T) {
	capture, err := os.ReadFile("../../corpus/acp/qwen-code@0.24.4/cancel/stdout")
	if err != nil {
		t.Fatal(err)
	}
	stopErr := errors.New("process: output pipes still open after the process exited; stopped reading")
	for _, tc := range []struct {
		name, stdout string
		out          Outcome
		want         driver.FailureCode
	}{
		{"cancelled", string(capture), Outcome{Cancelled: true, Signal: "SIGKILL", Err: stopErr}, driver.FailureCancelled},
		{"timed out", string(capture), Outcome{TimedOut: true, Err: stopErr}, driver.FailureTimeout},
		{"stopReason cancelled", string(capture), Outcome{Err: stopErr}, driver.FailureCancelled},
		{"end_turn", textSession("end_turn", "", true), Outcome{Err: stopErr}, driver.FailureAgentError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, v, _ := run("", tc.stdout, "", Options{Streaming: true}, tc.out, nil)
			if len(v) > 0 {
				t.Fatalf("violations:\n%s", v)
			}
			f := r.Response.Failure
			if f == nil || f.Code != tc.want || f.Metadata["error"] != stopErr.Error() {
				t.Fatalf("failure %+v, want code %s with the error in Metadata", f, tc.want)
			}
			last := r.Payloads[len(r.Payloads)-1]
			if last.Kind != driver.StreamRunError || last.Error == nil || last.Error.Code != tc.want {
				t.Fatalf("terminal %s %+v, want run.error %s", last.Kind, last.Error, tc.want)
			}
			if r.Err != stopErr.Error() || r.Response.Checkpoint.Valid {
				t.Fatalf("err %q, checkpoint valid %v", r.Err, r.Response.Checkpoint.Valid)
			}
		})
	}
}

// TestUsageFigures holds usage_update's fast path to decoding: where it
// reads the figures they are what decoding the object gives, and every
// shape it leaves (a cost, a null, a string, another or a differently
// cased or escaped name) it leaves to the decoder.
func TestUsageFigures(t *testing.T) {
	for _, c := range []struct {
		obj  string
		fast bool
	}{
		{`{"sessionUpdate":"usage_update","used":8801,"size":64000}`, true},
		{`{"sessionUpdate":"usage_update","used":-0.5e+3,"size":1E2}`, true},
		{`{"used":1,"used":2}`, true},
		{`{"size":7}`, true},
		{`{}`, true},
		{`{"used":1,"used":null}`, false},
		{`{"used":"12","size":3}`, false},
		{`{"used":1,"size":2,"cost":{"amount":0.045,"currency":"USD"}}`, false},
		{`{"Used":1,"size":2}`, false},
		{`{"us\u0065d":1}`, false},
		{`{"used":1,"_meta":{}}`, false},
	} {
		f, err := jsonrpc.ClassifyBytes([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"update":`+c.obj+`}}`), jsonrpc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var obj []byte
		jsonrpc.Members(f.Params, func(_, v []byte) bool { obj = v; return false })
		used, size, ok := usageFigures(&f, obj)
		if ok != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.obj, ok, c.fast)
		}
		if !ok {
			continue
		}
		var w wireUsageUpdate
		if err := jsonguard.Unmarshal(obj, &w, 0); err != nil {
			t.Fatalf("%s: %v", c.obj, err)
		}
		var wu, ws string
		if w.Used != nil {
			wu = w.Used.String()
		}
		if w.Size != nil {
			ws = w.Size.String()
		}
		if used != wu || size != ws || w.Cost != nil {
			t.Errorf("%s: fast path %q %q, decoding %q %q (cost %v)", c.obj, used, size, wu, ws, w.Cost)
		}
	}
}

// TestPermissionOf holds permissionOf to decoding the params into a
// wirePermission: where it takes the fast path, the same session id,
// options and toolCall bytes; the shapes on which the two could differ
// (case-insensitive or escaped names, repeated members, other types)
// decline.
func TestPermissionOf(t *testing.T) {
	const tc = `"toolCall":{"toolCallId":"c1","title":"t"}`
	for _, c := range []struct {
		params string
		fast   bool
	}{
		{`{"sessionId":"s",` + tc + `,"options":[{"optionId":"a","name":"A","kind":"allow_once"},{"optionId":"r","kind":"reject_once","name":"R","_meta":{}}]}`, true},
		{`{` + tc + `}`, true},
		{`{` + tc + `,"options":null,"sessionId":null,"other":1}`, true},
		{`{` + tc + `,"options":[{"optionId":null,"name":"n"}]}`, true},
		{`{"toolCall":null,"options":[]}`, true},
		{`{"options":[]}`, true},
		{`{` + tc + `,"options":[null]}`, false},
		{`{` + tc + `,"options":[{"optionId":1}]}`, false},
		{`{` + tc + `,"options":[{"OptionID":"a"}]}`, false},
		{`{` + tc + `,"options":[{"optionid":"a","optionId":"b"}]}`, false},
		{`{` + tc + `,"options":{}}`, false},
		{`{` + tc + `,"Options":[]}`, false},
		{`{` + tc + `,"ſessionId":"x"}`, false},
		{`{` + tc + `,"sessionId":5}`, false},
		{`{"tool\u0043all":{"toolCallId":"c1"}}`, false},
		{`{` + tc + `,` + tc + `}`, false},
		{`{` + tc + `,"options":[{"optionId":"a"}],"options":[{"name":"b"}]}`, false},
	} {
		f, err := jsonrpc.ClassifyBytes([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":`+c.params+`}`), jsonrpc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := permissionOf(&f, objectOf(f.Params))
		if ok != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.params, ok, c.fast)
		}
		if !ok {
			continue
		}
		var want wirePermission
		if err := f.DecodeParams(&want); err != nil {
			t.Fatalf("%s: %v", c.params, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: fast path differs from decoding (-want +got):\n%s", c.params, diff)
		}
	}
}
