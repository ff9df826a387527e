package codex

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var streaming = Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/repo"}}

func TestSuccess(t *testing.T) {
	r := mustRun(t, lines(lThread, lTurn, lReasoning, lMsg, lDone), streaming, Outcome{})
	want := []string{"run.started", "step.started:turn",
		"reasoning.start:item_1", "reasoning.content:item_1", "reasoning.end:item_1",
		"text.start:item_0", "text.content:item_0", "text.end:item_0",
		"step.finished:turn", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
	if r.Payloads[0].ThreadID != "t-1" {
		t.Errorf("run.started ThreadID = %q", r.Payloads[0].ThreadID)
	}
	if d := cmp.Diff([]string{"init", "thinking", "assistant", "result"}, itemKinds(r.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	resp := r.Response
	if resp.Output != "hi" || resp.Summary != "" || resp.Failure != nil {
		t.Errorf("Output %q Summary %q Failure %v", resp.Output, resp.Summary, resp.Failure)
	}
	if want := (&driver.Usage{InputTokens: 10, CachedInputTokens: 2, OutputTokens: 3}); !cmp.Equal(want, resp.Usage) {
		t.Errorf("Usage = %+v", resp.Usage)
	}
	if got := r.Payloads[len(r.Payloads)-1].Usage; !cmp.Equal(resp.Usage, got) {
		t.Errorf("run.finished usage %+v", got)
	}
	term := resp.RawStreams.Terminal
	if term == nil || term.Event != "turn.completed" || string(term.JSON) != lDone {
		t.Errorf("Terminal = %+v", term)
	}
	cp := resp.Checkpoint
	if cp == nil || !cp.Valid || cp.State.ResumeID != "t-1" || cp.State.Data[driver.ParamCWD] != "/repo" {
		t.Errorf("Checkpoint = %+v", cp)
	}
}

// TestBOMTolerated: a leading byte order mark is skipped and kept in the
// raw stream (package ndjson); the checkpoint stays valid.
func TestBOMTolerated(t *testing.T) {
	stdout := "\ufeff" + lines(lThread, lTurn, lMsg, lDone)
	r := mustRun(t, stdout, streaming, Outcome{})
	if cp := r.Response.Checkpoint; cp == nil || !cp.Valid {
		t.Errorf("checkpoint %+v, want valid", cp)
	}
	if r.Response.RawStreams == nil || r.Response.RawStreams.Stdout != stdout {
		t.Errorf("raw stdout lost the BOM")
	}
}

func TestNonStreaming(t *testing.T) {
	r := mustRun(t, lines(lThread, lTurn, lMsg, lDone), Options{}, Outcome{})
	if len(r.Payloads) != 0 {
		t.Errorf("non-streaming run emitted %d payloads", len(r.Payloads))
	}
	if len(r.Items) != 3 || !r.Response.Checkpoint.Valid {
		t.Errorf("items %v, checkpoint %+v", itemKinds(r.Items), r.Response.Checkpoint)
	}
}

// TestCheckpointConditions: each condition of contract §9 alone makes the
// checkpoint invalid.
func TestCheckpointConditions(t *testing.T) {
	ok := lines(lThread, lTurn, lMsg, lDone)
	cases := []struct {
		name   string
		stdout string
		out    Outcome
		opts   Options
		nilCP  bool
	}{
		{name: "exit code", stdout: ok, out: Outcome{ExitCode: 1}},
		{name: "signal", stdout: ok, out: Outcome{Signal: "SIGTERM"}},
		{name: "timeout", stdout: ok, out: Outcome{TimedOut: true}},
		{name: "cancelled", stdout: ok, out: Outcome{Cancelled: true}},
		{name: "turn failed", stdout: lines(lThread, lTurn, lFailed)},
		{name: "no terminal", stdout: lines(lThread, lTurn, lMsg)},
		{name: "malformed line", stdout: lines(lThread, lTurn, "not json", lMsg, lDone)},
		{name: "broken json", stdout: lines(lThread, lTurn, `{"type":"item.completed",`, lMsg, lDone)},
		{name: "wrong shape", stdout: lines(lThread, lTurn, `{"type":"item.completed","item":{"id":1,"type":"agent_message"}}`, lMsg, lDone)},
		{name: "line after terminal", stdout: lines(lThread, lTurn, lMsg, lDone, lMsg)},
		{name: "no thread", stdout: lines(lTurn, lMsg, lDone), nilCP: true},
		{name: "thread id not a string", stdout: lines(`{"type":"thread.started","thread_id":7}`, lTurn, lMsg, lDone), nilCP: true},
		{name: "nested thread id only", stdout: lines(`{"type":"thread.started","item":{"thread_id":"x"}}`, lTurn, lMsg, lDone), nilCP: true},
		{name: "terminal without usage", stdout: lines(lThread, lTurn, lMsg, `{"type":"turn.completed"}`)},
		{name: "resume mismatch", stdout: ok, opts: Options{Resume: &driver.SessionState{ResumeID: "other"}}},
		{name: "second thread.started", stdout: lines(lThread, `{"type":"thread.started","thread_id":"t-2"}`, lTurn, lMsg, lDone)},
		{name: "unterminated terminal is fine but error event is not terminal", stdout: lines(lThread, lTurn, `{"type":"error","message":"x"}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			opts.Streaming = true
			r, v := run(c.stdout, "", opts, c.out, nil)
			if len(v) > 0 {
				t.Fatalf("violations:\n%s", v)
			}
			cp := r.Response.Checkpoint
			if c.nilCP {
				if cp != nil {
					t.Fatalf("checkpoint = %+v, want nil", cp)
				}
				return
			}
			if cp == nil || cp.Valid {
				t.Fatalf("checkpoint = %+v, want present and invalid", cp)
			}
			if r.Response.Metadata[MetaCheckpoint] == "" {
				t.Errorf("no reason in Metadata[%q]", MetaCheckpoint)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	cases := []struct {
		name, stdout string
		out          Outcome
		code         driver.FailureCode
		msg          string
	}{
		{"turn.failed", lines(lThread, lTurn, `{"type":"error","message":"upstream 500"}`, lFailed), Outcome{ExitCode: 1}, driver.FailureAgentError, "boom"},
		{"exit disagrees with success", lines(lThread, lTurn, lMsg, lDone), Outcome{ExitCode: 2}, driver.FailureAgentError, "codex exited with code 2"},
		{"turn.failed with exit 0", lines(lThread, lTurn, lFailed), Outcome{}, driver.FailureAgentError, "boom"},
		{"cut off after retry notice", lines(lThread, lTurn, `{"type":"error","message":"Reconnecting... 1/5"}`), Outcome{ExitCode: 1}, driver.FailureAgentError, "codex exited with code 1: Reconnecting... 1/5"},
		{"clean exit without terminal", lines(lThread, lTurn), Outcome{}, driver.FailureAgentError, "codex output ended without turn.completed"},
		{"cancelled", lines(lThread, lTurn), Outcome{Cancelled: true, Signal: "SIGINT"}, driver.FailureCancelled, "codex run cancelled"},
		{"timeout", lines(lThread, lTurn), Outcome{TimedOut: true, Signal: "SIGKILL"}, driver.FailureTimeout, "codex run timed out"},
		{"signal", lines(lThread, lTurn), Outcome{Signal: "SIGKILL", ExitCode: -1}, driver.FailureAgentError, "codex terminated by signal SIGKILL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, v := run(c.stdout, "", streaming, c.out, nil)
			if len(v) > 0 {
				t.Fatalf("violations:\n%s", v)
			}
			f := r.Response.Failure
			if f == nil || f.Code != c.code || f.Message != c.msg {
				t.Fatalf("Failure = %+v, want %s %q", f, c.code, c.msg)
			}
			last := r.Payloads[len(r.Payloads)-1]
			if last.Kind != driver.StreamRunError || last.Error.Message != c.msg {
				t.Errorf("terminal payload %+v", last)
			}
		})
	}
}

// TestRetryNoticeThenSuccess: a top-level error event is not a terminal;
// the run that then completes succeeds with a valid checkpoint.
func TestRetryNoticeThenSuccess(t *testing.T) {
	r := mustRun(t, lines(lThread, lTurn, `{"type":"error","message":"Reconnecting... 1/5 (stream disconnected)"}`, lMsg, lDone), streaming, Outcome{})
	if r.Response.Failure != nil || !r.Response.Checkpoint.Valid {
		t.Fatalf("Failure %+v, checkpoint %+v", r.Response.Failure, r.Response.Checkpoint)
	}
	if !slices.Contains(kinds(r.Payloads), "codex/error") {
		t.Errorf("no codex/error payload: %v", kinds(r.Payloads))
	}
	if it := r.Items[1]; it.Kind != driver.TranscriptSystem || !strings.HasPrefix(it.Text, "Reconnecting") {
		t.Errorf("item %+v", it)
	}
}

func TestTools(t *testing.T) {
	stdout := lines(lThread, lTurn,
		`{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		`{"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":null,"error":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a\nb\n","exit_code":2,"status":"failed"}}`,
		`{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"/x","kind":"add"}],"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found"}],"structured_content":null},"error":null,"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"item_4","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}`,
		`{"type":"item.completed","item":{"id":"item_4","type":"web_search","id":"ws_1","query":"go fuzz","action":{"type":"search","query":"go fuzz"}}}`,
		lMsg, lDone)
	r := mustRun(t, stdout, streaming, Outcome{})
	want := []string{"run.started", "step.started:turn",
		"tool_call.start:item_1", "tool_call.start:item_2", "tool_call.end:item_1",
		"tool_call.start:item_3", "tool_call.end:item_3", "tool_call.end:item_2",
		"tool_call.start:ws_1", "tool_call.end:ws_1",
		"text.start:item_0", "text.content:item_0", "text.end:item_0", "step.finished:turn", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Fatalf("payloads (-want +got):\n%s", d)
	}
	start := r.Payloads[2]
	if start.Name != "command_execution" || start.Args["command"] != "bash -lc ls" {
		t.Errorf("start %+v", start)
	}
	end := r.Payloads[4]
	if end.Result["exit_code"] != 2 || end.Result["status"] != "failed" || end.Result["output"] != "a\nb\n" {
		t.Errorf("end result %+v", end.Result)
	}
	var results []driver.TranscriptItem
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptToolResult {
			results = append(results, it)
		}
	}
	if len(results) != 4 {
		t.Fatalf("tool results %v", itemKinds(r.Items))
	}
	if !results[0].IsError || results[0].Text != "a\nb\n" || results[0].Data["exit_code"] != 2 {
		t.Errorf("command result %+v", results[0])
	}
	if results[2].Text != "found" || results[2].IsError {
		t.Errorf("mcp result %+v", results[2])
	}
	if r.Payloads[3].Args["arguments"].(map[string]any)["q"] != "x" {
		t.Errorf("mcp args %+v", r.Payloads[3].Args)
	}
}

func TestTodoAndUnknown(t *testing.T) {
	stdout := lines(lThread,
		`{"type":"item.completed","item":{"id":"item_w","type":"error","message":"config warning"}}`,
		lTurn,
		`{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false}]}}`,
		`{"type":"item.updated","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":true}]}}`,
		`{"type":"item.plan.delta","item_id":"item_9","delta":"x"}`,
		`{"type":"item.completed","item":{"id":"item_5","type":"collab_tool_call","tool":"spawn_agent","items":"not a todo list"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":true}]}}`,
		lMsg, lDone)
	r := mustRun(t, stdout, streaming, Outcome{})
	got := kinds(r.Payloads)
	for _, k := range []string{"codex/error_item", "codex/todo_list", "codex/item.plan.delta", "codex/collab_tool_call"} {
		if !slices.Contains(got, k) {
			t.Errorf("no %s in %v", k, got)
		}
	}
	if r.Response.Metadata[MetaUnknown] != "2" || !r.Response.Checkpoint.Valid {
		t.Errorf("metadata %v checkpoint %+v", r.Response.Metadata, r.Response.Checkpoint)
	}
	var todo *driver.TranscriptItem
	for i, it := range r.Items {
		if it.Metadata["item_type"] == "todo_list" {
			todo = &r.Items[i]
		}
	}
	if todo == nil || todo.Text != "[x] a" {
		t.Errorf("todo item %+v", todo)
	}
}

// TestWarningBeforeThread: an error item before thread.started is allowed;
// run.started then goes out without the thread id, which follows as
// codex/thread.started.
func TestWarningBeforeThread(t *testing.T) {
	r := mustRun(t, lines(`{"type":"item.completed","item":{"id":"item_w","type":"error","message":"deprecated flag"}}`, lThread, lTurn, lMsg, lDone), streaming, Outcome{})
	if !r.Response.Checkpoint.Valid {
		t.Errorf("checkpoint %+v (%v)", r.Response.Checkpoint, r.Response.Metadata)
	}
	if !slices.Contains(kinds(r.Payloads), "codex/thread.started") {
		t.Errorf("payloads %v", kinds(r.Payloads))
	}
}

func TestInterleavedAndReused(t *testing.T) {
	stdout := lines(lThread, lTurn,
		`{"type":"item.started","item":{"id":"a","type":"command_execution","command":"x","status":"in_progress"}}`,
		`{"type":"item.started","item":{"id":"b","type":"command_execution","command":"y","status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"b","type":"command_execution","command":"y","aggregated_output":"","exit_code":0,"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"a","type":"command_execution","command":"x","aggregated_output":"","exit_code":0,"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"a","type":"command_execution","command":"x","aggregated_output":"","exit_code":0,"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"m","type":"agent_message","text":"one"}}`,
		`{"type":"item.completed","item":{"id":"m","type":"agent_message","text":"two"}}`,
		lDone)
	r := mustRun(t, stdout, streaming, Outcome{})
	got := kinds(r.Payloads)
	if !slices.Contains(got, "tool_call.start:a#2") || !slices.Contains(got, "text.start:m#2") {
		t.Errorf("payloads %v", got)
	}
	if r.Response.Output != "two" {
		t.Errorf("Output %q", r.Response.Output)
	}
	if r.Response.Checkpoint.Valid {
		t.Error("a reused item id is a protocol violation; checkpoint must be invalid")
	}
}

// TestCutOffMidItem: a stream cut inside an item still closes every
// lifecycle before the one terminal.
func TestCutOffMidItem(t *testing.T) {
	stdout := lThread + "\n" + lTurn + "\n" +
		`{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"sleep 9","status":"in_progress"}}` + "\n" +
		`{"type":"item.completed","item":{"id":"item_2","type":"agent_mes`
	r, v := run(stdout, "", streaming, Outcome{Signal: "SIGKILL", ExitCode: -1}, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	got := kinds(r.Payloads)
	want := []string{"run.started", "step.started:turn", "tool_call.start:item_1", "codex/malformed", "tool_call.end:item_1", "step.finished:turn", "run.error"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
}

func TestUnicodeSeparators(t *testing.T) {
	text := "a\u2028b\u2029c é 😀"
	r := mustRun(t, lines(lThread, lTurn, `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"`+text+`"}}`, lDone), streaming, Outcome{})
	if r.Response.Output != text || !r.Response.Checkpoint.Valid {
		t.Errorf("Output %q, checkpoint %+v", r.Response.Output, r.Response.Checkpoint)
	}
	// Escaped forms decode to the same text.
	r2 := mustRun(t, lines(lThread, lTurn, `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"a\u2028b\u2029c \u00e9 \ud83d\ude00"}}`, lDone), streaming, Outcome{})
	if r2.Response.Output != text {
		t.Errorf("escaped Output %q", r2.Response.Output)
	}
}

func TestHugeLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	cmd := `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"cat big","aggregated_output":"` + big + `","exit_code":0,"status":"completed"}}`
	r := mustRun(t, lines(lThread, lTurn, cmd, lMsg, lDone), streaming, Outcome{})
	if !r.Response.Checkpoint.Valid {
		t.Fatalf("checkpoint %+v %v", r.Response.Checkpoint, r.Response.Metadata)
	}
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptToolResult && len(it.Text) != len(big) {
			t.Errorf("tool result text has %d bytes, want %d", len(it.Text), len(big))
		}
	}
	if len(r.Response.RawStreams.Stdout) < len(big) {
		t.Error("raw stdout truncated")
	}
}

// TestOversizedLine: a line over the reader's limit is a framing error:
// recorded, checkpoint poisoned, parsing goes on.
func TestOversizedLine(t *testing.T) {
	stdout := lines(lThread, lTurn, `{"type":"item.completed","item":{"id":"x","type":"agent_message","text":"`+strings.Repeat("y", 200)+`"}}`, lMsg, lDone)
	sink := &adaptertest.RecordingSink{}
	p := New(sink, streaming)
	rd := ndjson.NewReader(strings.NewReader(stdout), ndjson.Options{MaxLineSize: 128})
	for {
		f, err := rd.Next()
		if err != nil {
			if errors.Is(err, ndjson.ErrLineTooLong) {
				if err := p.FeedError(err); err != nil {
					t.Fatal(err)
				}
				continue
			}
			break
		}
		if err := p.Feed(f); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := p.Finish(Outcome{})
	if v := sink.Check(true, Capability, resp, err, Codec); len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	if resp.Checkpoint.Valid || resp.Output != "hi" || resp.Metadata[MetaMalformed] != "1" {
		t.Errorf("checkpoint %+v output %q meta %v", resp.Checkpoint, resp.Output, resp.Metadata)
	}
}

func TestResumeUsage(t *testing.T) {
	prev := &driver.SessionState{ResumeID: "t-1", Data: map[string]string{KeyUsageInput: "4", KeyUsageCachedInput: "1", KeyUsageOutput: "1"}}
	// Process totals (0.58 shape, no cache_write_input_tokens): as reported.
	r := mustRun(t, lines(lThread, lTurn, lMsg, lDone), Options{Streaming: true, Resume: prev}, Outcome{})
	if r.Response.Usage.InputTokens != 10 || r.Response.Metadata[MetaUsageScope] != "run" || r.Response.Checkpoint.State.Data[KeyUsageInput] != "" {
		t.Errorf("process totals: usage %+v meta %v state %v", r.Response.Usage, r.Response.Metadata, r.Response.Checkpoint.State.Data)
	}
	// Thread totals (0.169 shape).
	lDoneThread := `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":2,"cache_write_input_tokens":0,"output_tokens":3,"reasoning_output_tokens":0}}`
	r = mustRun(t, lines(lThread, lTurn, lMsg, lDoneThread), Options{Streaming: true, Resume: prev}, Outcome{})
	if want := (&driver.Usage{InputTokens: 6, CachedInputTokens: 1, OutputTokens: 2}); !cmp.Equal(want, r.Response.Usage) {
		t.Errorf("Usage %+v", r.Response.Usage)
	}
	if r.Response.Metadata[MetaUsageScope] != "run" || !r.Response.Checkpoint.Valid {
		t.Errorf("meta %v", r.Response.Metadata)
	}
	// The transcript keeps what codex reported.
	if u := r.Items[len(r.Items)-1].Usage; u.InputTokens != 10 {
		t.Errorf("result item usage %+v", u)
	}
	// The stored totals are the thread's, for the next resume.
	if r.Response.Checkpoint.State.Data[KeyUsageInput] != "10" {
		t.Errorf("state %v", r.Response.Checkpoint.State.Data)
	}
	// Forced thread totals on the 0.58 shape.
	r = mustRun(t, lines(lThread, lTurn, lMsg, lDone), Options{Streaming: true, Resume: prev, UsageTotals: UsageTotalsThread}, Outcome{})
	if r.Response.Usage.InputTokens != 6 {
		t.Errorf("forced thread totals: usage %+v", r.Response.Usage)
	}
	// Forced process totals on the 0.169 shape.
	r = mustRun(t, lines(lThread, lTurn, lMsg, lDoneThread), Options{Streaming: true, Resume: prev, UsageTotals: UsageTotalsProcess}, Outcome{})
	if r.Response.Usage.InputTokens != 10 || r.Response.Metadata[MetaUsageScope] != "run" {
		t.Errorf("forced process totals: usage %+v", r.Response.Usage)
	}
	// Totals lower than the stored ones: the run's share is unknown.
	prev.Data[KeyUsageInput] = "99"
	r = mustRun(t, lines(lThread, lTurn, lMsg, lDoneThread), Options{Streaming: true, Resume: prev}, Outcome{})
	if r.Response.Usage.InputTokens != 10 || r.Response.Metadata[MetaUsageScope] != "thread_total" {
		t.Errorf("usage %+v meta %v", r.Response.Usage, r.Response.Metadata)
	}
	// No stored totals.
	r = mustRun(t, lines(lThread, lTurn, lMsg, lDoneThread), Options{Streaming: true, Resume: &driver.SessionState{ResumeID: "t-1"}}, Outcome{})
	if r.Response.Metadata[MetaUsageScope] != "thread_total" {
		t.Errorf("meta %v", r.Response.Metadata)
	}
}

func TestCodec(t *testing.T) {
	if Codec.Name() == "" || Codec.ToParams(nil).ResumeID != "" || Codec.FromParams(driver.SessionParams{}) != nil {
		t.Fatal("nil/zero mapping")
	}
	st := &driver.SessionState{ResumeID: "t", DisplayID: "t", Data: map[string]string{driver.ParamCWD: "/a", "x": "1"}} // an empty DisplayID: codec_test.go
	p := Codec.ToParams(st)
	if d := cmp.Diff(st, Codec.FromParams(p)); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	g := Codec.GuardFingerprint(p)
	if len(g) != 64 {
		t.Fatalf("guard %q", g)
	}
	for _, mut := range []func(m map[string]string){
		func(m map[string]string) { m[driver.ParamCWD] = "/b" },
		func(m map[string]string) { m[driver.ParamWorkspaceID] = "w" },
		func(m map[string]string) { m[driver.ParamProfileFingerprint] = "p" },
		func(m map[string]string) { delete(m, driver.ParamCWD) },
		func(m map[string]string) { m[driver.ParamCWD] = "" },
	} {
		q := Codec.ToParams(st)
		mut(q.Values)
		if Codec.GuardFingerprint(q) == g {
			t.Errorf("guard unchanged after mutation %v", q.Values)
		}
	}
	// Not guarded: usage totals and other data.
	q := Codec.ToParams(st)
	q.Values[KeyUsageInput] = "5"
	if Codec.GuardFingerprint(q) != g {
		t.Error("usage totals changed the guard")
	}
	// Joining is unambiguous.
	a := driver.SessionParams{ResumeID: "t", Values: map[string]string{driver.ParamCWD: "/a", driver.ParamWorkspaceID: "b"}}
	b := driver.SessionParams{ResumeID: "t", Values: map[string]string{driver.ParamCWD: "/a=b"}}
	if Codec.GuardFingerprint(a) == Codec.GuardFingerprint(b) {
		t.Error("ambiguous guard")
	}
}

func TestSinkError(t *testing.T) {
	sink := &adaptertest.RecordingSink{FailAfter: 2}
	_, err := Parse(strings.NewReader(lines(lThread, lTurn, lMsg, lDone)), nil, sink, streaming, Outcome{})
	if !errors.Is(err, adaptertest.ErrSinkFailed) {
		t.Fatalf("err = %v", err)
	}
}

func TestFinishTwice(t *testing.T) {
	p := New(&adaptertest.RecordingSink{}, Options{})
	if _, err := p.Finish(Outcome{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Finish(Outcome{}); !errors.Is(err, ErrFinished) {
		t.Errorf("second Finish: %v", err)
	}
	if err := p.Feed(ndjson.Frame{Kind: ndjson.KindLine, Data: []byte(lThread)}); !errors.Is(err, ErrFinished) {
		t.Errorf("Feed after Finish: %v", err)
	}
}

func TestInfrastructureError(t *testing.T) {
	boom := errors.New("read failed")
	r, v := run(lines(lThread, lTurn, lMsg, lDone), "", streaming, Outcome{Err: boom}, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	if r.Err != boom.Error() || r.Response.Checkpoint.Valid {
		t.Errorf("err %q checkpoint %+v", r.Err, r.Response.Checkpoint)
	}
}

// TestReadError: a read error on stdout is an infrastructure error: the
// lines read before it are parsed, Parse returns the error, the
// checkpoint is invalid and the stream still ends with one terminal.
func TestReadError(t *testing.T) {
	boom := errors.New("pipe broke")
	src := io.MultiReader(strings.NewReader(lines(lThread, lTurn, lMsg, lDone)), iotest.ErrReader(boom))
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(src, nil, sink, streaming, Outcome{})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if v := sink.Check(true, Capability, resp, err, Codec); len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	if resp.Checkpoint == nil || resp.Checkpoint.Valid || resp.Output != "hi" {
		t.Errorf("checkpoint %+v output %q", resp.Checkpoint, resp.Output)
	}
	if last := sink.Payloads[len(sink.Payloads)-1]; last.Kind != driver.StreamRunError {
		t.Errorf("terminal %s", last.Kind)
	}
}

// TestUndecodableEvent: a line that is valid JSON but cannot be decoded
// (1e999 overflows float64) is malformed with its bytes kept verbatim,
// whether it is an unknown event or an item the parser keeps as Raw; it is
// never a custom payload with a null value, and the checkpoint is invalid.
func TestUndecodableEvent(t *testing.T) {
	for _, bad := range []string{
		`{"type":"item.future","n":1e999}`,
		`{"type":"item.completed","item":{"id":"item_5","type":"collab_tool_call","n":1e999}}`,
		`{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[],"n":1e999}}`,
	} {
		for _, opts := range []Options{streaming, {}} {
			undecodable(t, bad, mustRun(t, lines(lThread, lTurn, bad, lMsg, lDone), opts, Outcome{}))
		}
	}
}

func undecodable(t *testing.T, bad string, r result) {
	t.Helper()
	{
		var found bool
		for _, it := range r.Items {
			if it.Kind == driver.TranscriptStdout && it.Text == bad && strings.HasPrefix(it.Metadata["malformed"], "undecodable JSON") {
				found = true
			}
			if it.Data != nil && it.Data["event"] == nil && it.Metadata["event"] != "" {
				t.Errorf("%s: custom item with a null event: %+v", bad, it)
			}
		}
		if !found {
			t.Errorf("%s: no malformed stdout item keeping the line; items %+v", bad, r.Items)
		}
		if r.Response.Checkpoint == nil || r.Response.Checkpoint.Valid {
			t.Errorf("%s: checkpoint %+v, want invalid", bad, r.Response.Checkpoint)
		}
	}
}

// TestCommandDataShared: command results with equal status and exit code
// share one read-only Data map, different ones get their own with the
// right members, and past the cache's 16 pairs every result still gets
// its own correct map.
func TestCommandDataShared(t *testing.T) {
	cmd := func(id, status, exit string) string {
		ex := ""
		if exit != "" {
			ex = `,"exit_code":` + exit
		}
		return `{"type":"item.completed","item":{"id":"` + id + `","type":"command_execution","command":"ls","aggregated_output":"x"` + ex + `,"status":"` + status + `"}}`
	}
	ls := []string{lThread, lTurn,
		cmd("a", "completed", "0"), cmd("b", "completed", "0"), cmd("c", "failed", "1"), cmd("d", "completed", "")}
	for i := range 20 {
		ls = append(ls, cmd("e"+strconv.Itoa(i), "failed", strconv.Itoa(i+2)))
	}
	ls = append(ls, lDone)
	r := mustRun(t, lines(ls...), Options{}, Outcome{})
	data := map[string]map[string]any{}
	for _, it := range r.Response.Transcript {
		if it.Kind == driver.TranscriptToolResult {
			data[it.ToolUseID] = it.Data
		}
	}
	if reflect.ValueOf(data["a"]).Pointer() != reflect.ValueOf(data["b"]).Pointer() {
		t.Error("a and b (completed, 0) do not share their Data")
	}
	if reflect.ValueOf(data["a"]).Pointer() == reflect.ValueOf(data["c"]).Pointer() {
		t.Error("a and c share their Data")
	}
	want := map[string]map[string]any{
		"a": {"status": "completed", "exit_code": 0},
		"c": {"status": "failed", "exit_code": 1},
		"d": {"status": "completed"},
	}
	for i := range 20 {
		want["e"+strconv.Itoa(i)] = map[string]any{"status": "failed", "exit_code": i + 2}
	}
	for id, w := range want {
		if !reflect.DeepEqual(data[id], w) {
			t.Errorf("%s: Data %v, want %v", id, data[id], w)
		}
	}
}

// TestBoundedForgetsItems: with Bounded the parser forgets an
// item once it is completed (its state and its pairing), so 20,000
// completed items, each started first, leave nothing behind; an id reused
// after its item.completed is then a new item (the same wire id, a valid
// checkpoint), where the exact parse gives it a fresh id and invalidates
// the checkpoint (TestInterleavedAndReused).
func TestBoundedForgetsItems(t *testing.T) {
	var b strings.Builder
	b.WriteString(lines(lThread, lTurn))
	const n = 20_000
	for i := range n {
		id := strconv.Itoa(i)
		b.WriteString(`{"type":"item.started","item":{"id":"c` + id + `","type":"command_execution","command":"x","status":"in_progress"}}` + "\n")
		b.WriteString(`{"type":"item.completed","item":{"id":"c` + id + `","type":"command_execution","command":"x","aggregated_output":"","exit_code":0,"status":"completed"}}` + "\n")
		b.WriteString(`{"type":"item.completed","item":{"id":"m` + id + `","type":"agent_message","text":"hi"}}` + "\n")
	}
	b.WriteString(lines(`{"type":"item.completed","item":{"id":"m0","type":"agent_message","text":"again"}}`, lDone))
	for _, bounded := range []bool{true, false} {
		opts := streaming
		opts.Bounded = bounded
		var unpaired []string
		opts.Unpaired = func(_ int64, _ int, msg string) { unpaired = append(unpaired, msg) }
		k := adaptertest.NewChecker(true, Capability)
		k.Bounded = bounded
		p := New(k, opts)
		for _, l := range strings.SplitAfter(b.String(), "\n") {
			if l == "" {
				continue
			}
			if err := p.Feed(ndjson.Frame{Kind: ndjson.KindLine, Data: []byte(strings.TrimSuffix(l, "\n"))}); err != nil {
				t.Fatal(err)
			}
		}
		kept, pending := len(p.items), len(p.pairs.pending)
		resp, err := p.Finish(Outcome{})
		if err != nil {
			t.Fatal(err)
		}
		if vs := k.Report(resp, err, Codec).All(); len(vs) > 0 && bounded {
			t.Errorf("bounded: %v", vs)
		}
		if len(unpaired) > 0 {
			t.Errorf("bounded %v: unpaired %q", bounded, unpaired)
		}
		switch {
		case bounded && (kept != 0 || pending != 0 || !resp.Checkpoint.Valid):
			t.Errorf("bounded: %d items and %d pending kept after %d completed, checkpoint valid %v", kept, pending, 2*n, resp.Checkpoint.Valid)
		case !bounded && (kept != 2*n || resp.Checkpoint.Valid):
			t.Errorf("exact: %d items kept, want %d; checkpoint valid %v despite the reused id", kept, 2*n, resp.Checkpoint.Valid)
		}
	}
}

// TestUnknownAgainAgrees holds unknownAgain (a line equal to the last
// unknown event kept) to the general path: random streams drawn from a
// pool of lines, with long runs of equal lines (unknown events, empty and
// long types, a line over jsonguard.MemoMax, undecodable and malformed
// lines, blank lines between equal ones, item events, the terminal and
// lines after it), are fed line by line to a parser and to one whose
// memo is cleared before each line; their payloads, items, responses
// and Unpaired reports must be equal, streaming, not streaming and with
// Unpaired set.
func TestUnknownAgainAgrees(t *testing.T) {
	long := `{"type":"x.long","pad":"` + strings.Repeat("p", jsonguard.MemoMax) + `"}`
	pool := []string{
		`{"type":"x"}`, `{"type":"x"}`, `{"type":"y","n":1}`, `{"type":""}`, long,
		`{"type":"x","n":1e999}`, `{"type":"x"`, `not json`, `{"n":1}`, ``,
		lThread, lTurn, lMsg, lReasoning, lDone,
		`{"type":"item.completed","item":{"id":"e","type":"error","message":"w"}}`,
	}
	rapid.Check(t, func(t *rapid.T) {
		var ls []string
		for range rapid.IntRange(0, 40).Draw(t, "runs") {
			l := rapid.SampledFrom(pool).Draw(t, "line")
			for range rapid.IntRange(1, 4).Draw(t, "repeats") {
				ls = append(ls, l)
			}
		}
		stream := lines(ls...)
		for _, mode := range []string{"streaming", "plain", "unpaired"} {
			parse := func(general bool) (result, []string) {
				sink := &adaptertest.RecordingSink{}
				var unpaired []string
				opts := Options{Streaming: mode != "plain"}
				if mode == "unpaired" {
					opts.Unpaired = func(off int64, line int, msg string) { unpaired = append(unpaired, fmt.Sprint(off, line, msg)) }
				}
				p := New(sink, opts)
				r := ndjson.NewReader(strings.NewReader(stream), ndjson.Options{})
				for {
					f, err := r.Next()
					if err == io.EOF {
						break
					}
					if general {
						p.rep.ok = false
					}
					if err != nil {
						_ = p.FeedError(err)
					} else if err := p.Feed(f); err != nil {
						t.Fatal(err)
					}
				}
				resp, err := p.Finish(Outcome{})
				if err != nil {
					t.Fatal(err)
				}
				return result{Payloads: sink.Payloads, Items: sink.Items(), Response: resp}, unpaired
			}
			want, wantU := parse(true)
			got, gotU := parse(false)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s: unknownAgain differs (-general +memo):\n%s", mode, d)
			}
			if d := cmp.Diff(wantU, gotU); d != "" {
				t.Fatalf("%s: Unpaired differs (-general +memo):\n%s", mode, d)
			}
		}
	})
}

// TestCommandArgsShared: calls of one command share one read-only Args
// map, which is also their tool_call items' Input; other commands get
// their own, with the right member, and so does every call past the
// cache's 16 distinct commands, and a command pushed out of it.
func TestCommandArgsShared(t *testing.T) {
	cmd := func(id, command string) string {
		return `{"type":"item.started","item":{"id":"` + id + `","type":"command_execution","command":"` + command + `","aggregated_output":"","exit_code":null,"status":"in_progress"}}` + "\n" +
			`{"type":"item.completed","item":{"id":"` + id + `","type":"command_execution","command":"` + command + `","aggregated_output":"x","exit_code":0,"status":"completed"}}`
	}
	ls := []string{lThread, lTurn, cmd("a", "ls"), cmd("b", "git status"), cmd("c", "ls"), cmd("d", "lt")}
	for i := range 20 {
		ls = append(ls, cmd("e"+strconv.Itoa(i), "echo "+strconv.Itoa(i)))
	}
	ls = append(ls, cmd("f", "ls"), lDone)
	r := mustRun(t, lines(ls...), streaming, Outcome{})
	input := map[string]map[string]any{}
	for _, it := range r.Response.Transcript {
		if it.Kind == driver.TranscriptToolCall {
			input[it.ToolUseID] = it.Input.(map[string]any)
		}
	}
	args := map[string]map[string]any{}
	for _, p := range r.Payloads {
		if p.Kind == driver.StreamToolCallStart {
			args[p.ToolCallID] = p.Args
		}
	}
	ptr := func(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }
	for id, in := range input {
		if ptr(in) != ptr(args[id]) {
			t.Errorf("%s: the item's Input is not the call's Args", id)
		}
	}
	if ptr(input["a"]) != ptr(input["c"]) {
		t.Error("a and c (ls) do not share their Args")
	}
	if ptr(input["a"]) == ptr(input["d"]) || ptr(input["a"]) == ptr(input["f"]) {
		t.Error("a shares its Args with another command, or with a call after 20 other commands")
	}
	for id, want := range map[string]string{"a": "ls", "b": "git status", "c": "ls", "d": "lt", "e3": "echo 3", "e19": "echo 19", "f": "ls"} {
		if d := cmp.Diff(map[string]any{"command": want}, input[id]); d != "" {
			t.Errorf("%s: Input (-want +got):\n%s", id, d)
		}
	}
}
