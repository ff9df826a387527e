package claude

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/google/go-cmp/cmp"
)

// Synthetic lines in the shapes of the recordings.

const sid = "11111111-2222-3333-4444-555555555555"

func env(scope string) string {
	ptu := "null"
	if scope != "" {
		ptu = `"` + scope + `"`
	}
	return `,"parent_tool_use_id":` + ptu + `,"session_id":"` + sid + `","uuid":"u"}`
}

func initL() string {
	return `{"type":"system","subtype":"init","cwd":"/w","session_id":"` + sid + `","model":"claude-test","claude_code_version":"9.9.9","uuid":"u"}`
}

func asstL(scope, id, block string) string {
	return `{"type":"assistant","message":{"id":"` + id + `","model":"claude-test","role":"assistant","content":[` + block +
		`],"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":3,"output_tokens":7}}` + env(scope)
}

func textB(s string) string { return `{"type":"text","text":"` + s + `"}` }

func toolB(id, name, input string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}`
}

func userResultL(scope, toolID, content string, isErr bool) string {
	return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + toolID +
		`","content":"` + content + `","is_error":` + fmt.Sprint(isErr) + `}]}` + env(scope)
}

func evL(scope, ev string) string { return `{"type":"stream_event","event":` + ev + env(scope) }

func resultL(subtype string, isErr bool, text string) string {
	return `{"type":"result","subtype":"` + subtype + `","is_error":` + fmt.Sprint(isErr) + `,"result":"` + text +
		`","session_id":"` + sid + `","total_cost_usd":0.5,"num_turns":1,"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4},"uuid":"u"}`
}

func okL(text string) string { return resultL("success", false, text) }

func stream(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// kinds lists the payload kinds of a run.
func kinds(r run) []string {
	var out []string
	for _, p := range r.Payloads {
		out = append(out, string(p.Kind))
	}
	return out
}

func itemKinds(r run) []string {
	var out []string
	for _, it := range r.Items {
		s := string(it.Kind)
		if it.Subtype != "" && it.Kind == driver.TranscriptSystem {
			s += ":" + it.Subtype
		}
		out = append(out, s)
	}
	return out
}

func valid(r run) bool { return r.Response.Checkpoint != nil && r.Response.Checkpoint.Valid }

// do replays a synthetic stream under every chunking and checks the
// validators; it returns the whole-input run.
func do(t *testing.T, opts Options, out Outcome, lines ...string) run {
	t.Helper()
	opts.Streaming = true
	if opts.SessionData == nil {
		opts.SessionData = map[string]string{driver.ParamCWD: "/w"}
	}
	c := tcase{name: t.Name(), stdout: stream(lines...), opts: opts, out: out}
	var first run
	for i, ch := range chunkers {
		r := replay(t, c, ch)
		check(t, c, r)
		earned(t, c, r)
		if i == 0 {
			first = r
		} else if d := cmp.Diff(first.comparable(), r.comparable(), cmpOpts); d != "" {
			t.Fatalf("chunking %s changes the result:\n%s", ch.Name, d)
		}
	}
	return first
}

func wantKinds(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("kinds\n got %q\nwant %q", got, want)
	}
}

func TestMessageTypes(t *testing.T) {
	partial := Options{PartialMessages: true}
	tests := []struct {
		name  string
		opts  Options
		out   Outcome
		lines []string
		check func(t *testing.T, r run)
	}{
		{"finish from stop_reason", Options{}, Outcome{}, []string{initL(), asstL("", "m1", textB("Hi")),
			strings.Replace(okL("Hi"), `"num_turns":1`, `"num_turns":1,"stop_reason":"stop_sequence"`, 1)}, func(t *testing.T, r run) {
			want := &driver.Finish{Reason: driver.FinishStop, Raw: "stop_sequence"}
			if f := r.Response.Finish; f == nil || *f != *want {
				t.Errorf("Finish %+v, want %+v", f, want)
			}
			if last := r.Payloads[len(r.Payloads)-1]; last.Finish == nil || *last.Finish != *want {
				t.Errorf("run.finished %+v", last)
			}
		}},
		{"no finish beside a failure", Options{}, Outcome{}, []string{initL(),
			strings.Replace(resultL("error_max_turns", true, "x"), `"num_turns":1`, `"num_turns":1,"stop_reason":"tool_use"`, 1)}, func(t *testing.T, r run) {
			if r.Response.Failure == nil || r.Response.Finish != nil {
				t.Errorf("Failure %+v Finish %+v", r.Response.Failure, r.Response.Finish)
			}
		}},
		{"a bad block costs only itself", Options{}, Outcome{}, []string{initL(),
			asstL("", "m1", `{"type":"text","text":5},`+textB("Hi")+`,{"type":"image","source":{"n":1}}`), okL("Hi")}, func(t *testing.T, r run) {
			wantKinds(t, itemKinds(r), "init", "system:malformed", "assistant", "system:block.image", "result")
			if it := r.Items[1]; !strings.HasPrefix(it.Text, "content block: ") {
				t.Errorf("malformed item %+v", it)
			}
			if d, _ := r.Items[3].Data["source"].(map[string]any); d["n"] != 1.0 {
				t.Errorf("image block Data %+v", r.Items[3].Data)
			}
		}},
		{"envelope decoded with the line: the session id is checked", Options{}, Outcome{}, []string{initL(),
			strings.Replace(asstL("", "m1", textB("Hi")), sid, "other", 1), okL("Hi")}, func(t *testing.T, r run) {
			wantKinds(t, itemKinds(r), "init", "system:malformed", "assistant", "result")
			if !strings.Contains(r.Items[1].Text, `session_id changed from "`+sid+`" to "other"`) {
				t.Errorf("malformed item %+v", r.Items[1])
			}
		}},
		{"tool result contents", Options{}, Outcome{}, []string{initL(), asstL("", "m1", toolB("t1", "Bash", `{"command":"ls"}`)),
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}]}` + env(""),
			asstL("", "m2", toolB("t2", "Bash", `{"command":"ls"}`)),
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":{"x":[1]}}]}` + env(""),
			okL("Hi")}, func(t *testing.T, r run) {
			var results []map[string]any
			for _, p := range r.Payloads {
				if p.Kind == driver.StreamToolCallResult {
					results = append(results, p.Result)
				}
			}
			if len(results) != 2 || results[0]["content"] != "a\nb" || len(results[0]["blocks"].([]any)) != 3 ||
				results[1]["content"] != "" || results[1]["content_raw"].(map[string]any)["x"].([]any)[0] != 1.0 {
				t.Errorf("results %+v", results)
			}
		}},
		{"no finish without stop_reason", Options{}, Outcome{}, []string{initL(), okL("Hi")}, func(t *testing.T, r run) {
			if r.Response.Finish != nil {
				t.Errorf("Finish %+v", r.Response.Finish)
			}
		}},
		{"text", Options{}, Outcome{}, []string{initL(), asstL("", "m1", textB("Hi")), okL("Hi")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "text.start", "text.content", "text.end", "run.finished")
			wantKinds(t, itemKinds(r), "init", "assistant", "result")
			if r.Payloads[0].ThreadID != sid || r.Payloads[1].MessageID != "m1:0" {
				t.Errorf("coordinates: %+v %+v", r.Payloads[0], r.Payloads[1])
			}
			if r.Response.Output != "Hi" || !valid(r) || r.Response.Checkpoint.State.ResumeID != sid {
				t.Errorf("response %+v", r.Response)
			}
			if u := r.Response.Usage; u == nil || *u != (driver.Usage{InputTokens: 6, OutputTokens: 4, CachedInputTokens: 3, CacheWriteInputTokens: 2}) {
				t.Errorf("usage %+v (result usage, cache reads and writes added to input)", u)
			}
			if r.Response.Model != "claude-test" || r.Response.Metadata[MetaVersion] != "9.9.9" {
				t.Errorf("model/version %q %v", r.Response.Model, r.Response.Metadata)
			}
		}},
		{"thinking coarse", Options{}, Outcome{}, []string{initL(),
			asstL("", "m1", `{"type":"thinking","thinking":"hmm","signature":"sig"}`), asstL("", "m1", textB("A")), okL("A")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "reasoning.start", "reasoning.content", "reasoning.end", "text.start", "text.content", "text.end", "run.finished")
			if it := r.Items[1]; it.Kind != driver.TranscriptThinking || it.Text != "hmm" || it.Metadata["signature"] != "sig" {
				t.Errorf("thinking item %+v", it)
			}
			if r.Payloads[4].MessageID != "m1:1" {
				t.Errorf("second block id %q", r.Payloads[4].MessageID)
			}
		}},
		{"redacted thinking", Options{}, Outcome{}, []string{initL(), asstL("", "m1", `{"type":"redacted_thinking","data":"opaque"}`), okL("")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "claude/block.redacted_thinking", "run.finished")
			wantKinds(t, itemKinds(r), "init", "system:redacted_thinking", "result")
		}},
		{"tool call and result", Options{}, Outcome{}, []string{initL(), asstL("", "m1", toolB("t1", "Bash", `{"command":"ls"}`)),
			userResultL("", "t1", `a\nb`, false), asstL("", "m2", textB("done")), okL("done")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "tool_call.start", "tool_call.end", "tool_call.result", "text.start", "text.content", "text.end", "run.finished")
			if p := r.Payloads[1]; p.Name != "Bash" || p.Args["command"] != "ls" {
				t.Errorf("tool start %+v", p)
			}
			if p := r.Payloads[3]; p.Result["content"] != "a\nb" || p.Result["is_error"] != false {
				t.Errorf("tool result %+v", p)
			}
			wantKinds(t, itemKinds(r), "init", "tool_call", "tool_result", "assistant", "result")
		}},
		{"tool failure and blocks content", Options{}, Outcome{}, []string{initL(), asstL("", "m1", toolB("t1", "Read", `{}`)),
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"},{"type":"image","source":{}}],"is_error":true}]}` + env(""),
			okL("ok")}, func(t *testing.T, r run) {
			it := r.Items[2]
			if it.Kind != driver.TranscriptToolResult || !it.IsError || it.Text != "x" {
				t.Errorf("tool result item %+v", it)
			}
			if r.Payloads[3].Result["blocks"] == nil {
				t.Errorf("non-text blocks are kept: %+v", r.Payloads[3])
			}
		}},
		{"server tool in assistant", Options{}, Outcome{}, []string{initL(),
			asstL("", "m1", `{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"go"}}`),
			asstL("", "m1", `{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"type":"web_search_result","url":"u"}]}`),
			okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "tool_call.start", "tool_call.end", "tool_call.result", "run.finished")
			if r.Items[1].Metadata["block_type"] != "server_tool_use" || r.Items[2].ToolUseID != "s1" {
				t.Errorf("items %+v", r.Items)
			}
		}},
		{"unknown block", Options{}, Outcome{}, []string{initL(), asstL("", "m1", `{"type":"hologram","x":1}`), okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "claude/block.hologram", "run.finished")
			if r.Payloads[1].Raw["x"] != float64(1) || !valid(r) || r.Response.Metadata[MetaUnknown] != "1" {
				t.Errorf("unknown block kept with raw, checkpoint unaffected: %+v %+v", r.Payloads[1], r.Response)
			}
		}},
		{"unknown message type", Options{}, Outcome{}, []string{initL(), `{"type":"hologram_event","session_id":"` + sid + `","v":{"a":[1]}}`, okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "claude/hologram_event", "run.finished")
			// No transcript item: a count.
			wantKinds(t, itemKinds(r), "init", "result")
			if !valid(r) || r.Response.Metadata[MetaUnknown] != "1" {
				t.Errorf("an unknown type is not malformed, and is counted: %v", r.Response.Metadata)
			}
		}},
		{"rate limit event", Options{}, Outcome{}, []string{initL(),
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","rateLimitType":"five_hour","resetsAt":1},"session_id":"` + sid + `","uuid":"u"}`, okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "claude/rate_limit_event", "run.finished")
			if r.Items[1].Text != "rate limit allowed_warning (five_hour)" || !valid(r) {
				t.Errorf("item %+v", r.Items[1])
			}
		}},
		{"system subtypes", Options{}, Outcome{}, []string{initL(),
			`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":500,"error_status":529,"error":"overloaded","session_id":"` + sid + `"}`,
			`{"type":"system","subtype":"status","status":"requesting","session_id":"` + sid + `"}`,
			`{"type":"system","subtype":"task_started","task_id":"k1","tool_use_id":"t1","description":"build","session_id":"` + sid + `"}`,
			`{"type":"system","subtype":"task_started","task_id":"k2","description":"never ends","session_id":"` + sid + `"}`,
			`{"type":"system","subtype":"task_notification","task_id":"k1","status":"completed","summary":"built","session_id":"` + sid + `"}`,
			okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "claude/system.api_retry", "claude/system.status", "step.started", "claude/system.task_started",
				"step.started", "claude/system.task_started", "step.finished", "claude/system.task_notification", "step.finished", "run.finished")
			wantKinds(t, itemKinds(r), "init", "system:api_retry", "system:task_started", "system:task_started", "system:task_notification", "result")
			if r.Payloads[3].Name != "task k1" || r.Payloads[7].Name != "task k1" || r.Items[2].ToolUseID != "t1" {
				t.Errorf("task steps %+v %+v", r.Payloads[3], r.Items[2])
			}
			if got := r.Items[1].Text; got != "API retry 2/10 after HTTP 529 (overloaded), waiting 500 ms" {
				t.Errorf("api_retry text %q", got)
			}
		}},
		{"not JSON", Options{}, Outcome{}, []string{initL(), `[SandboxDebug] hello`, okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, itemKinds(r), "init", "stdout", "result")
			if valid(r) || r.Response.Metadata[MetaCheckpoint] != "malformed protocol" || r.Response.Output != "x" {
				t.Errorf("response %+v", r.Response)
			}
			if r.Items[1].Text != "[SandboxDebug] hello" {
				t.Errorf("stdout item %+v", r.Items[1])
			}
		}},
		{"broken JSON", Options{}, Outcome{}, []string{initL(), `{"type":"assistant","message":`, okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, itemKinds(r), "init", "system:malformed", "result")
			if valid(r) || !strings.Contains(r.Response.Metadata[MetaProblem], "line 2") {
				t.Errorf("response %+v", r.Response.Metadata)
			}
		}},
		{"no type", Options{}, Outcome{}, []string{initL(), `{"session_id":"` + sid + `"}`, okL("x")}, func(t *testing.T, r run) {
			if valid(r) || r.Items[1].Text != "message without a string type" {
				t.Errorf("items %+v", r.Items)
			}
		}},
		{"wrong field type", Options{}, Outcome{}, []string{initL(), `{"type":"assistant","message":{"content":"not blocks"}}`, okL("x")}, func(t *testing.T, r run) {
			if valid(r) || r.Items[1].Subtype != "malformed" {
				t.Errorf("items %+v", r.Items)
			}
		}},
		{"api error", Options{}, Outcome{ExitCode: 1}, []string{initL(),
			`{"type":"assistant","message":{"id":"8e76","model":"<synthetic>","content":[{"type":"text","text":"API Error: 400 bad"}]},"error":"unknown","is_api_error_message":true,"api_error_status":400` + env(""),
			`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 400 bad","terminal_reason":"api_error","api_error_status":400,"session_id":"` + sid + `"}`},
			func(t *testing.T, r run) {
				wantKinds(t, kinds(r), "run.started", "claude/api_error", "run.error")
				wantKinds(t, itemKinds(r), "init", "failure", "result")
				f := r.Response.Failure
				if f == nil || f.Code != driver.FailureAgentError || f.Message != "API Error: 400 bad" || r.Response.Output != "" || valid(r) {
					t.Errorf("response %+v failure %+v", r.Response, f)
				}
				if !r.Items[2].IsError || r.Items[2].Metadata["terminal_reason"] != "api_error" {
					t.Errorf("result item %+v", r.Items[2])
				}
			}},
		{"success with is_error true and exit 0", Options{}, Outcome{}, []string{initL(), resultL("success", true, "boom")}, func(t *testing.T, r run) {
			if f := r.Response.Failure; f == nil || f.Code != driver.FailureAgentError || valid(r) || r.Response.Output != "" {
				t.Errorf("failure %+v", f)
			}
		}},
		{"error subtype with is_error false", Options{}, Outcome{}, []string{initL(),
			`{"type":"result","subtype":"error_during_execution","is_error":false,"result":null,"errors":[],"session_id":"` + sid + `"}`}, func(t *testing.T, r run) {
			f := r.Response.Failure
			if f == nil || f.Code != driver.FailureAgentError || f.Message != "claude: result error_during_execution" || valid(r) {
				t.Errorf("failure %+v", f)
			}
		}},
		{"interrupted", Options{}, Outcome{}, []string{initL(), `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}` + env(""),
			`{"type":"result","subtype":"error_during_execution","is_error":true,"result":null,"terminal_reason":"aborted_streaming","errors":["[ede_diagnostic] x",{"k":1}],"session_id":"` + sid + `"}`}, func(t *testing.T, r run) {
			f := r.Response.Failure
			if f == nil || f.Code != driver.FailureCancelled || f.Message != `[ede_diagnostic] x; {"k":1}` {
				t.Errorf("failure %+v", f)
			}
			if !slices.Equal(r.Items[2].Errors, []string{"[ede_diagnostic] x", `{"k":1}`}) {
				t.Errorf("errors %q", r.Items[2].Errors)
			}
		}},
		{"missing is_error", Options{}, Outcome{}, []string{initL(), `{"type":"result","subtype":"success","result":"x","session_id":"` + sid + `"}`}, func(t *testing.T, r run) {
			if r.Response.Failure == nil || valid(r) {
				t.Error("success needs is_error present and false")
			}
		}},
		{"error_max_turns", Options{}, Outcome{ExitCode: 1}, []string{initL(),
			`{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"` + sid + `","errors":["Reached maximum number of turns (1)"]}`}, func(t *testing.T, r run) {
			if f := r.Response.Failure; f == nil || f.Message != "Reached maximum number of turns (1)" || f.Metadata["subtype"] != "error_max_turns" {
				t.Errorf("failure %+v", f)
			}
		}},
		{"structured output", Options{}, Outcome{}, []string{initL(),
			`{"type":"result","subtype":"success","is_error":false,"result":"","structured_output":{"a":[1,2]},"session_id":"` + sid + `"}`}, func(t *testing.T, r run) {
			so := r.Response.StructuredOutput
			if so == nil || string(so.RawJSON) != `{"a":[1,2]}` || !so.Valid || so.Source != driver.StructuredOutputNative {
				t.Errorf("structured %+v", so)
			}
		}},
		{"model usage and denials", Options{}, Outcome{}, []string{initL(),
			`{"type":"result","subtype":"success","is_error":false,"result":"x","session_id":"` + sid + `","usage":{"input_tokens":1,"output_tokens":2},"modelUsage":{"m":{"inputTokens":38,"outputTokens":765,"costUSD":0.2}},"permission_denials":[{"tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"rm"}}]}`},
			func(t *testing.T, r run) {
				d := r.Items[1].Data
				mu, _ := d["model_usage"].(map[string]ModelUsage)
				den, _ := d["permission_denials"].([]PermissionDenial)
				if mu["m"].OutputTokens != 765 || len(den) != 1 || den[0].ToolName != "Bash" {
					t.Errorf("data %+v", d)
				}
				if u := r.Response.Usage; u.InputTokens != 1 || u.OutputTokens != 2 {
					t.Errorf("usage is result.usage, never modelUsage: %+v", u)
				}
			}},
		{"subagent result is not the terminal", Options{}, Outcome{}, []string{initL(),
			`{"type":"result","subtype":"success","is_error":false,"result":"sub","parent_tool_use_id":"t9","session_id":"` + sid + `"}`, okL("root")}, func(t *testing.T, r run) {
			if r.Response.Output != "root" || !valid(r) || r.Items[1].ScopeID != "t9" {
				t.Errorf("output %q items %+v", r.Response.Output, r.Items)
			}
		}},
		{"no result", Options{}, Outcome{}, []string{initL(), asstL("", "m1", textB("Hi"))}, func(t *testing.T, r run) {
			cp := r.Response.Checkpoint
			if cp == nil || cp.Valid || cp.State.ResumeID != sid || r.Response.Failure == nil || r.Response.RawStreams.Terminal != nil {
				t.Errorf("response %+v", r.Response)
			}
			if u := r.Response.Usage; u == nil || u.OutputTokens != 7 || u.InputTokens != 18 {
				t.Errorf("fallback usage is the message's, once: %+v", u)
			}
		}},
		{"nothing at all", Options{}, Outcome{}, []string{`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{}}}`}, func(t *testing.T, r run) {
			if r.Response.Checkpoint != nil || r.Response.Failure == nil {
				t.Errorf("response %+v", r.Response)
			}
		}},
		{"session id changes", Options{}, Outcome{}, []string{initL(), strings.Replace(asstL("", "m1", textB("Hi")), sid, "other", 1), okL("Hi")}, func(t *testing.T, r run) {
			if valid(r) || r.Response.Metadata[MetaCheckpoint] != "malformed protocol" || !strings.Contains(r.Response.Metadata[MetaProblem], "session_id changed") {
				t.Errorf("response %+v", r.Response.Metadata)
			}
			if r.Response.Output != "Hi" {
				t.Error("the line is still parsed")
			}
		}},
		{"session id changes in a stream event", partial, Outcome{}, []string{initL(),
			strings.Replace(evL("", `{"type":"message_start","message":{"id":"m1"}}`), sid, "other", 1), okL("Hi")}, func(t *testing.T, r run) {
			if valid(r) || !strings.Contains(r.Response.Metadata[MetaProblem], "session_id changed") {
				t.Errorf("response %+v", r.Response.Metadata)
			}
		}},
		{"result session differs", Options{}, Outcome{}, []string{initL(), strings.Replace(okL("x"), sid, "other", 1)}, func(t *testing.T, r run) {
			if valid(r) || r.Response.Checkpoint.State.ResumeID != "other" {
				t.Errorf("checkpoint %+v", r.Response.Checkpoint)
			}
		}},
		{"conversation reset", Options{}, Outcome{}, []string{initL(), `{"type":"conversation_reset","new_conversation_id":"new","session_id":"` + sid + `"}`,
			strings.Replace(okL("x"), sid, "new", 1)}, func(t *testing.T, r run) {
			if !valid(r) || r.Response.Checkpoint.State.ResumeID != "new" {
				t.Errorf("checkpoint %+v %v", r.Response.Checkpoint, r.Response.Metadata)
			}
		}},
		{"exit 1 after success", Options{}, Outcome{ExitCode: 1}, []string{initL(), okL("x")}, func(t *testing.T, r run) {
			if f := r.Response.Failure; f == nil || f.Message != "claude: exited with code 1" || valid(r) || r.Response.Output != "x" {
				t.Errorf("response %+v", r.Response)
			}
		}},
		{"cancelled", Options{}, Outcome{Cancelled: true}, []string{initL(), okL("x")}, func(t *testing.T, r run) {
			if f := r.Response.Failure; f == nil || f.Code != driver.FailureCancelled || valid(r) {
				t.Errorf("failure %+v", f)
			}
		}},
		{"timed out", Options{}, Outcome{TimedOut: true}, []string{initL()}, func(t *testing.T, r run) {
			if f := r.Response.Failure; f == nil || f.Code != driver.FailureTimeout {
				t.Errorf("failure %+v", f)
			}
		}},
		{"signal", Options{}, Outcome{Signal: "SIGKILL", ExitCode: -1}, []string{initL()}, func(t *testing.T, r run) {
			if f := r.Response.Failure; f == nil || f.Message != "claude: terminated by signal SIGKILL" {
				t.Errorf("failure %+v", f)
			}
		}},
		{"infrastructure error", Options{}, Outcome{Err: errors.New("pipe broke")}, []string{initL(), okL("x")}, func(t *testing.T, r run) {
			if r.err == nil || !strings.Contains(r.err.Error(), "pipe broke") || valid(r) {
				t.Errorf("err %v checkpoint %+v", r.err, r.Response.Checkpoint)
			}
		}},
		{"user string and synthetic", Options{}, Outcome{}, []string{initL(),
			`{"type":"user","message":{"role":"user","content":"echo"},"isReplay":true` + env(""),
			`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"resume"}]},"isSynthetic":true` + env(""), okL("x")},
			func(t *testing.T, r run) {
				wantKinds(t, itemKinds(r), "init", "user", "user", "result")
				if r.Items[1].Metadata["replay"] != "true" || r.Items[2].Metadata["synthetic"] != "true" {
					t.Errorf("items %+v", r.Items)
				}
				wantKinds(t, kinds(r), "run.started", "run.finished")
			}},
		{"partial text with retry", partial, Outcome{}, []string{initL(),
			evL("", `{"type":"message_start","message":{"id":"a1","usage":{"input_tokens":5,"output_tokens":1}}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Partial "}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ans"}}`),
			evL("", `{"type":"message_start","message":{"id":"a2"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Recovered"}}`),
			asstL("", "a2", textB("Recovered")),
			evL("", `{"type":"content_block_stop","index":0}`),
			evL("", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}`),
			evL("", `{"type":"message_stop"}`),
			okL("Recovered in full")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "text.start", "text.content", "text.content", "text.end",
				"text.start", "text.content", "text.end", "run.finished")
			wantKinds(t, itemKinds(r), "init", "assistant", "assistant", "result")
			if it := r.Items[1]; !it.Delta || it.Text != "Partial ans" || it.Metadata["unconfirmed"] != "true" {
				t.Errorf("abandoned attempt item %+v", it)
			}
			if r.Items[2].Delta || r.Items[2].Text != "Recovered" {
				t.Errorf("confirmed item %+v", r.Items[2])
			}
			if r.Response.Output != "Recovered in full" {
				t.Errorf("Output %q must be the result text, not the deltas", r.Response.Output)
			}
		}},
		{"partial restarted message", partial, Outcome{}, []string{initL(),
			evL("", `{"type":"message_start","message":{"id":"a1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`),
			evL("", `{"type":"message_start","message":{"id":"a1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"pre"}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"y"}}`),
			asstL("", "a1", textB("prey")),
			evL("", `{"type":"content_block_stop","index":0}`), okL("prey")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "text.start", "text.content", "text.end", "text.start", "text.content", "text.content", "text.end", "run.finished")
			if r.Payloads[4].MessageID != "a1:0#2" {
				t.Errorf("restarted block id %q", r.Payloads[4].MessageID)
			}
		}},
		{"partial thinking and tool", partial, Outcome{}, []string{initL(),
			evL("", `{"type":"message_start","message":{"id":"m1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`),
			asstL("", "m1", `{"type":"thinking","thinking":"hm","signature":"s"}`),
			evL("", `{"type":"content_block_stop","index":0}`),
			evL("", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}`),
			evL("", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`),
			evL("", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`),
			evL("", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}`),
			asstL("", "m1", toolB("t1", "Bash", `{"a":1}`)),
			evL("", `{"type":"content_block_stop","index":1}`),
			evL("", `{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"url":"u"}}}`),
			evL("", `{"type":"hologram"}`),
			evL("", `{"type":"ping"}`),
			evL("", `{"type":"message_stop"}`),
			userResultL("", "t1", "ok", false), okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "reasoning.start", "reasoning.content", "reasoning.end",
				"tool_call.start", "tool_call.args", "tool_call.args", "tool_call.end",
				"claude/delta.citations_delta", "claude/stream_event.hologram", "tool_call.result", "run.finished")
			wantKinds(t, itemKinds(r), "init", "thinking", "tool_call", "tool_result", "result")
			if r.Payloads[4].Args != nil {
				t.Error("a streamed tool starts without Args")
			}
		}},
		{"partial tool matched by id", partial, Outcome{}, []string{initL(),
			evL("", `{"type":"message_start","message":{"id":"m1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`),
			asstL("", "m1", toolB("t2", "Read", `{"f":1}`)),
			evL("", `{"type":"content_block_stop","index":0}`),
			userResultL("", "t2", "ok", false), okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "tool_call.start", "tool_call.args", "tool_call.start", "tool_call.end", "tool_call.end", "tool_call.result", "run.finished")
			if p := r.Payloads[6]; p.ToolCallID != "t2" {
				t.Errorf("result went to %q", p.ToolCallID)
			}
			wantKinds(t, itemKinds(r), "init", "tool_call", "tool_result", "result", "tool_call")
			if it := r.Items[4]; it.ToolUseID != "t1" || it.Metadata["unconfirmed"] != "true" || it.Input == nil {
				t.Errorf("unconfirmed streamed call %+v", it)
			}
		}},
		{"partial flag off keeps args whole", Options{}, Outcome{}, []string{initL(),
			evL("", `{"type":"message_start","message":{"id":"m1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}`),
			asstL("", "m1", toolB("t1", "Bash", `{"a":1}`)),
			evL("", `{"type":"content_block_stop","index":0}`), okL("x")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "tool_call.start", "tool_call.end", "run.finished")
			if r.Payloads[1].Args["a"] != float64(1) {
				t.Errorf("start %+v", r.Payloads[1])
			}
		}},
		{"lines after the result in one-shot mode", partial, Outcome{}, []string{initL(),
			evL("", `{"type":"message_start","message":{"id":"m1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`),
			asstL("", "m1", textB("Hi")),
			okL("Hi"),
			evL("", `{"type":"content_block_stop","index":0}`),
			evL("", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`),
			evL("", `{"type":"message_stop"}`)}, func(t *testing.T, r run) {
			// One-shot mode: the root result is the last line; the stream
			// events after it are malformed and poison the checkpoint.
			wantKinds(t, kinds(r), "run.started", "text.start", "text.content",
				"claude/malformed", "claude/malformed", "claude/malformed", "text.end", "run.finished")
			if valid(r) || r.Response.Output != "Hi" || r.Response.Metadata[MetaMalformed] != "3" {
				t.Errorf("response %+v", r.Response)
			}
		}},
		{"snapshot before stream events", partial, Outcome{}, []string{initL(),
			asstL("", "m1", textB("Hi")),
			evL("", `{"type":"message_start","message":{"id":"m1"}}`),
			evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
			evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`),
			evL("", `{"type":"content_block_stop","index":0}`), okL("Hi")}, func(t *testing.T, r run) {
			wantKinds(t, kinds(r), "run.started", "text.start", "text.content", "text.end", "run.finished")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, do(t, tc.opts, tc.out, tc.lines...))
		})
	}
}

// TestSubagentsInterleaved: two Task calls run subagents whose lines
// interleave, reuse one message id and call tools; every payload keeps its
// scope and parent, ids never collide, results reach the right call, and
// only the root result ends the run.
func TestSubagentsInterleaved(t *testing.T) {
	for _, partial := range []bool{false, true} {
		t.Run(fmt.Sprint("partial=", partial), func(t *testing.T) {
			lines := []string{initL(),
				asstL("", "r1", toolB("T1", "Task", `{"prompt":"a"}`)),
				asstL("", "r1", toolB("T2", "Task", `{"prompt":"b"}`)),
				`{"type":"user","message":{"role":"user","content":"sub prompt a"}` + env("T1"),
			}
			if partial {
				lines = append(lines,
					evL("T1", `{"type":"message_start","message":{"id":"sm"}}`),
					evL("T2", `{"type":"message_start","message":{"id":"sm"}}`),
					evL("T1", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
					evL("T2", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
					evL("T2", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}`),
					evL("T1", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}`),
				)
			}
			lines = append(lines,
				asstL("T1", "sm", textB("a")),
				asstL("T2", "sm", textB("b")),
				asstL("T1", "sm", toolB("s1", "Grep", `{"pattern":"x"}`)),
				asstL("T2", "sm", toolB("s2", "Glob", `{"pattern":"*"}`)),
				userResultL("T2", "s2", "g", false),
				userResultL("T1", "s1", "r", true),
				userResultL("", "T2", "sub b done", false),
				userResultL("", "T1", "sub a done", false),
				asstL("", "r2", textB("both done")),
				okL("both done"))
			opts := Options{PartialMessages: partial}
			r := do(t, opts, Outcome{}, lines...)
			if r.Response.Output != "both done" || !valid(r) {
				t.Fatalf("response %+v", r.Response)
			}
			for _, p := range r.Payloads {
				switch p.ToolCallID {
				case "s1":
					if p.ScopeID != "T1" || p.ParentToolCallID != "T1" || p.ParentScopeID != "" {
						t.Errorf("s1 payload %+v", p)
					}
				case "s2":
					if p.ScopeID != "T2" || p.ParentToolCallID != "T2" {
						t.Errorf("s2 payload %+v", p)
					}
				case "T1", "T2":
					if p.ScopeID != "" || p.ParentToolCallID != "" {
						t.Errorf("root tool payload %+v", p)
					}
				}
				if p.Kind == driver.StreamTextStart && p.MessageID == "sm:0" && p.ScopeID == "" {
					t.Errorf("subagent text in the root scope: %+v", p)
				}
			}
			var subText []string
			for _, it := range r.Items {
				if it.Kind == driver.TranscriptAssistant && it.ScopeID != "" {
					subText = append(subText, it.ScopeID+"="+it.Text)
					if it.ParentToolCallID != it.ScopeID {
						t.Errorf("item parent %+v", it)
					}
				}
				if it.Kind == driver.TranscriptToolResult && it.ToolUseID == "s1" && (!it.IsError || it.ScopeID != "T1") {
					t.Errorf("s1 result %+v", it)
				}
			}
			if !slices.Equal(subText, []string{"T1=a", "T2=b"}) {
				t.Errorf("subagent texts %q", subText)
			}
			results := 0
			for _, p := range r.Payloads {
				if p.Kind == driver.StreamToolCallResult {
					results++
				}
			}
			if results != 4 {
				t.Errorf("%d tool results, want 4", results)
			}
		})
	}
}

// TestSinkError: a failing sink stops the parser: Feed returns the error,
// sticky, and Finish reports it.
func TestSinkError(t *testing.T) {
	sink := &adaptertest.RecordingSink{FailAfter: 2}
	p := New(sink, Options{Streaming: true})
	var err error
	rd := frames(stream(initL(), asstL("", "m", textB("x")), okL("x")))
	for _, f := range rd {
		if err = p.Feed(f); err != nil {
			break
		}
	}
	if !errors.Is(err, adaptertest.ErrSinkFailed) {
		t.Fatalf("Feed error %v", err)
	}
	if err := p.Feed(rd[0]); !errors.Is(err, adaptertest.ErrSinkFailed) {
		t.Fatalf("not sticky: %v", err)
	}
	resp, err := p.Finish(Outcome{})
	if !errors.Is(err, adaptertest.ErrSinkFailed) || (resp.Checkpoint != nil && resp.Checkpoint.Valid) {
		t.Fatalf("Finish: %v %+v", err, resp.Checkpoint)
	}
	if _, err := p.Finish(Outcome{}); !errors.Is(err, ErrFinished) {
		t.Fatalf("second Finish: %v", err)
	}
	if err := p.Feed(rd[0]); !errors.Is(err, ErrFinished) {
		t.Fatalf("Feed after Finish: %v", err)
	}
}

func TestCapability(t *testing.T) {
	for _, o := range []Options{{}, {PartialMessages: true}, {ControlProtocol: true}, {PartialMessages: true, ControlProtocol: true, Streaming: true}} {
		c := New(nil, o).Capability()
		want := driver.StreamCapability{Native: true, Reasoning: true, TokenLevel: o.PartialMessages, ToolCallArgs: o.PartialMessages, HITL: o.ControlProtocol}
		if c != want || New(nil, o).Capability() != c {
			t.Errorf("%+v: capability %+v, want %+v", o, c, want)
		}
	}
	for s := stateIdle; s <= stateFinished+1; s++ {
		if s.String() == "" {
			t.Errorf("state %d has no name", s)
		}
	}
}

// TestOneShotSingleResult: in one-shot mode (no control protocol) the root
// result is the last line; a second result (also an error result followed
// by a success), or a tool_use after it, is malformed, never a new
// terminal, and the checkpoint is invalid. Under the control protocol each
// result closes its own turn, so several are legal and the last one is the
// terminal.
func TestOneShotSingleResult(t *testing.T) {
	errL := resultL("error_during_execution", true, "")
	tool := asstL("", "m2", `{"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"ls"}}`)
	for _, tc := range []struct {
		name  string
		lines []string
	}{
		{"two results", []string{initL(), asstL("", "m1", textB("Hi")), okL("Hi"), okL("Hi")}},
		{"error then success", []string{initL(), asstL("", "m1", textB("Hi")), errL, okL("Hi")}},
		{"tool_use after the result", []string{initL(), asstL("", "m1", textB("Hi")), okL("Hi"), tool}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, Options{}, Outcome{}, tc.lines...)
			if valid(r) {
				t.Errorf("checkpoint valid after %s", tc.name)
			}
			if r.Response.Metadata[MetaMalformed] != "1" || !strings.Contains(r.Response.Metadata[MetaProblem], "line 4") {
				t.Errorf("metadata %v, want one malformed line at line 4", r.Response.Metadata)
			}
			if term := r.Response.RawStreams.Terminal; term == nil || string(term.JSON) != tc.lines[2] {
				t.Errorf("terminal %+v, want the first result", term)
			}
		})
	}
	t.Run("control protocol", func(t *testing.T) {
		r := do(t, Options{ControlProtocol: true}, Outcome{}, initL(), asstL("", "m1", textB("Hi")), errL,
			asstL("", "m2", textB("Again")), okL("Again"))
		if r.Response.Metadata[MetaMalformed] != "" || r.Response.Failure != nil {
			t.Errorf("two turns under the control protocol: metadata %v failure %v", r.Response.Metadata, r.Response.Failure)
		}
	})
}
