package geminicli

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/google/go-cmp/cmp"
)

var streaming = Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/repo"}}

var toolRun = lines(lInit, lUser, lDelta1, lDelta2, lToolUse, lToolOK, lDelta3, lResult)

func TestToolRun(t *testing.T) {
	r := mustRun(t, toolRun, streaming, Outcome{})
	want := []string{"run.started",
		"text.start:msg-1", "text.content:msg-1", "text.content:msg-1", "text.end:msg-1",
		"tool_call.start:t-1", "tool_call.end:t-1",
		"text.start:msg-2", "text.content:msg-2", "text.end:msg-2",
		"run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
	if r.Payloads[0].ThreadID != "s-1" {
		t.Errorf("run.started ThreadID = %q", r.Payloads[0].ThreadID)
	}
	start := r.Payloads[5]
	if start.Name != "run_shell_command" || !cmp.Equal(start.Args, map[string]any{"command": "echo hi"}) {
		t.Errorf("tool_call.start = %+v", start)
	}
	if end := r.Payloads[6]; !cmp.Equal(end.Result, map[string]any{"status": "success", "output": "hi"}) {
		t.Errorf("tool_call.end Result = %v", end.Result)
	}
	if d := cmp.Diff([]string{"init", "user", "assistant", "tool_call", "tool_result", "assistant", "result"}, itemKinds(r.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if it := r.Items[2]; it.Text != "I'll run it." || it.Model != "gemini-2.5-flash" {
		t.Errorf("first assistant item = %+v", it)
	}
	if it := r.Items[4]; it.ToolUseID != "t-1" || it.ToolName != "run_shell_command" || it.Text != "hi" || it.IsError {
		t.Errorf("tool_result item = %+v", it)
	}
	resp := r.Response
	if resp.Output != "It printed hi." || resp.Summary != "" || resp.Failure != nil || resp.Model != "gemini-2.5-flash" {
		t.Errorf("Output %q Summary %q Failure %v Model %q", resp.Output, resp.Summary, resp.Failure, resp.Model)
	}
	wantU := &driver.Usage{InputTokens: 460, CachedInputTokens: 60, OutputTokens: 70, ReasoningTokens: 28}
	if !cmp.Equal(wantU, resp.Usage) {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, wantU)
	}
	if got := r.Payloads[len(r.Payloads)-1].Usage; !cmp.Equal(wantU, got) {
		t.Errorf("run.finished Usage = %+v", got)
	}
	if term := resp.RawStreams.Terminal; term == nil || term.Event != "result" || string(term.JSON) != lResult {
		t.Errorf("Terminal = %+v", term)
	}
	if cp := resp.Checkpoint; cp == nil || !cp.Valid || cp.State.ResumeID != "s-1" || cp.State.Data[driver.ParamCWD] != "/repo" {
		t.Errorf("Checkpoint = %+v", cp)
	}
}

// TestChunkings: every delivery of the input gives the same result.
func TestChunkings(t *testing.T) {
	in := lines(lInit, lUser, lDelta1, lDelta2, lToolUse, lToolErr, lWarn, "not json", lDelta3, lResult)
	whole, _ := run(in, streaming, Outcome{}, nil)
	for _, c := range chunkings(7) {
		got, v := run(in, streaming, Outcome{}, c.Mk)
		if len(v) > 0 {
			t.Errorf("%s: violations:\n%s", c.Name, v)
		}
		if d := cmp.Diff(whole, got); d != "" {
			t.Errorf("%s differs from whole (-whole +got):\n%s", c.Name, d)
		}
	}
}

func TestNonStreaming(t *testing.T) {
	r := mustRun(t, toolRun, Options{}, Outcome{})
	if len(r.Payloads) != 0 {
		t.Errorf("non-streaming run emitted %d payloads", len(r.Payloads))
	}
	if len(r.Items) != 7 || !r.Response.Checkpoint.Valid {
		t.Errorf("items %v, checkpoint %+v", itemKinds(r.Items), r.Response.Checkpoint)
	}
}

func TestToolFailure(t *testing.T) {
	r := mustRun(t, lines(lInit, lUser, lToolUse, lToolErr, lDelta3, lResult), streaming, Outcome{})
	it := r.Items[3]
	if it.Kind != driver.TranscriptToolResult || !it.IsError || it.Text != "File not found: /w/missing.txt" || it.Data["error_type"] != "file_not_found" {
		t.Errorf("tool_result item = %+v", it)
	}
	wantRes := map[string]any{"status": "error", "output": "File not found.", "error": map[string]any{"type": "file_not_found", "message": "File not found: /w/missing.txt"}}
	if end := r.Payloads[2]; end.Kind != driver.StreamToolCallEnd || !cmp.Equal(end.Result, wantRes) {
		t.Errorf("tool_call.end = %+v", end)
	}
	if r.Response.Failure != nil || !r.Response.Checkpoint.Valid {
		t.Errorf("a failed tool must not fail the run: %+v", r.Response.Failure)
	}
}

// TestResultError: a result with status error fails the run, with the
// result's error, or the error event's message when it has none.
func TestResultError(t *testing.T) {
	r := mustRun(t, lines(lInit, lUser, lAPIErr), streaming, Outcome{ExitCode: 244})
	f := r.Response.Failure
	if f == nil || f.Code != driver.FailureAgentError || f.ErrorType != "unknown" || !strings.HasPrefix(f.Message, "[API Error:") {
		t.Errorf("Failure = %+v", f)
	}
	if last := r.Payloads[len(r.Payloads)-1]; last.Kind != driver.StreamRunError || last.Usage != nil {
		t.Errorf("terminal = %+v", last)
	}
	if r.Response.Checkpoint.Valid {
		t.Error("checkpoint valid after an error result")
	}

	r = mustRun(t, lines(lInit, lUser, lWarn, lResErr), streaming, Outcome{})
	if f := r.Response.Failure; f == nil || f.Message != "The model response was blocked due to safety settings." || f.ErrorType != "" {
		t.Errorf("blocked: Failure = %+v", f)
	}
	if it := r.Items[2]; it.Kind != driver.TranscriptSystem || it.Metadata["severity"] != "error" {
		t.Errorf("error item = %+v", it)
	}

	cancelled := `{"type":"result","status":"error","error":{"type":"FatalCancellationError","message":"Operation cancelled."},"stats":{}}`
	r = mustRun(t, lines(lInit, cancelled), streaming, Outcome{ExitCode: 130})
	if f := r.Response.Failure; f == nil || f.Code != driver.FailureCancelled {
		t.Errorf("FatalCancellationError: Failure = %+v", f)
	}
}

// TestIncomplete: a stream without a result is never a success; a
// cancelled one (SIGINT, exit 0) is cancelled.
func TestIncomplete(t *testing.T) {
	in := lines(lInit, lUser, lDelta1)
	r := mustRun(t, in, streaming, Outcome{})
	f := r.Response.Failure
	if f == nil || f.Code != driver.FailureIncomplete || r.Response.Checkpoint.Valid || r.Response.RawStreams.Terminal != nil {
		t.Errorf("Failure %+v checkpoint %+v", f, r.Response.Checkpoint)
	}
	if r.Response.Output != "I'll run " {
		t.Errorf("Output = %q, want the partial message", r.Response.Output)
	}
	if f := mustRun(t, in, streaming, Outcome{Cancelled: true}).Response.Failure; f == nil || f.Code != driver.FailureCancelled {
		t.Errorf("cancelled: Failure = %+v", f)
	}
	if f := mustRun(t, in, streaming, Outcome{ExitCode: 1}).Response.Failure; f == nil || f.Code != driver.FailureIncomplete || !strings.Contains(f.Message, "exit code 1") {
		t.Errorf("exit 1 without result: Failure = %+v", f)
	}
}

// TestCheckpointConditions: each condition of contract §9 alone makes the
// checkpoint invalid.
func TestCheckpointConditions(t *testing.T) {
	cases := []struct {
		name string
		in   string
		opts Options
		out  Outcome
	}{
		{"exit code", toolRun, streaming, Outcome{ExitCode: 1}},
		{"signal", toolRun, streaming, Outcome{Signal: "SIGTERM"}},
		{"timeout", toolRun, streaming, Outcome{TimedOut: true}},
		{"cancelled", toolRun, streaming, Outcome{Cancelled: true}},
		{"error", toolRun, streaming, Outcome{Err: errors.New("io")}},
		{"malformed", lines(lInit, "{oops", lResult), streaming, Outcome{}},
		{"no result", lines(lInit, lDelta1), streaming, Outcome{}},
		{"error result", lines(lInit, lResErr), streaming, Outcome{}},
		{"other session", toolRun, Options{Streaming: true, Resume: &driver.SessionState{ResumeID: "s-0"}}, Outcome{}},
	}
	for _, c := range cases {
		r, _ := run(c.in, c.opts, c.out, nil)
		cp := r.Response.Checkpoint
		if cp == nil || cp.Valid || r.Response.Metadata[MetaCheckpoint] == "" {
			t.Errorf("%s: checkpoint %+v, metadata %v", c.name, cp, r.Response.Metadata)
		}
	}
	if cp := mustRun(t, lines(lUser, lDelta1, lResult), streaming, Outcome{}).Response.Checkpoint; cp != nil {
		t.Errorf("no init: checkpoint %+v, want nil", cp)
	}
	resumed := mustRun(t, toolRun, Options{Streaming: true, Resume: &driver.SessionState{ResumeID: "s-1"}}, Outcome{})
	if !resumed.Response.Checkpoint.Valid {
		t.Errorf("resumed run of the same session: %+v", resumed.Response.Metadata)
	}
}

// TestMalformed: bad lines are kept with their position, parsing goes on,
// the checkpoint is poisoned.
func TestMalformed(t *testing.T) {
	in := lines(lInit, "garbage", `{"type":"message","role":"assistant","content":5}`, `{"no":"type"}`,
		`{"type":"tool_use","tool_name":"x"}`, `{"type":"init","session_id":"s-2"}`, lDelta3, lResult, lDelta1)
	r := mustRun(t, in, streaming, Outcome{})
	var bad []driver.TranscriptItem
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptStdout {
			bad = append(bad, it)
		}
	}
	if len(bad) != 6 {
		t.Fatalf("%d stdout items, want 6: %v", len(bad), itemKinds(r.Items))
	}
	if bad[0].Text != "garbage" || bad[0].Metadata["line"] != "2" || bad[0].Metadata["offset"] != "101" || bad[0].Metadata["malformed"] != "not JSON" {
		t.Errorf("first bad line = %+v", bad[0])
	}
	if !strings.Contains(bad[1].Metadata["malformed"], "invalid message event") || !strings.Contains(bad[1].Metadata["malformed"], "line 3") {
		t.Errorf("mistyped content: %q", bad[1].Metadata["malformed"])
	}
	if bad[5].Metadata["malformed"] != "line after the result" {
		t.Errorf("last = %q", bad[5].Metadata["malformed"])
	}
	if r.Response.Output != "It printed hi." || r.Response.Checkpoint.Valid || r.Response.Metadata[MetaMalformed] != "6" {
		t.Errorf("Output %q checkpoint %+v metadata %v", r.Response.Output, r.Response.Checkpoint, r.Response.Metadata)
	}
	if raw := r.Response.RawStreams.Stdout; raw != in {
		t.Errorf("raw stdout not kept")
	}
}

// TestUnknown: new event types and roles are custom payloads, counted,
// not malformed.
func TestUnknown(t *testing.T) {
	in := lines(lInit, `{"type":"thought","content":"hm"}`, `{"type":"message","role":"system","content":"note"}`, lDelta3, lResult)
	r := mustRun(t, in, streaming, Outcome{})
	want := []string{"run.started", "gemini-cli/thought", "gemini-cli/message.system", "text.start:msg-1", "text.content:msg-1", "text.end:msg-1", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
	if r.Payloads[1].Raw["content"] != "hm" {
		t.Errorf("Raw = %v", r.Payloads[1].Raw)
	}
	if !r.Response.Checkpoint.Valid || r.Response.Metadata[MetaUnknown] != "2" {
		t.Errorf("checkpoint %+v metadata %v", r.Response.Checkpoint, r.Response.Metadata)
	}
}

// TestUnpaired: the parser's own pass reports a missing init, a
// tool_result without its tool_use and a tool_use without its result.
func TestUnpaired(t *testing.T) {
	var got []string
	opts := streaming
	opts.Unpaired = func(off int64, line int, msg string) { got = append(got, msg) }
	r := mustRun(t, lines(lUser, lToolOK, lToolUse, lResult), opts, Outcome{})
	want := []string{
		"message before any init: the session announcement is missing",
		"tool_result t-1 without a tool_use before it",
		"tool_use t-1 (run_shell_command) without a tool_result, though the run reached its result",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if k := kinds(r.Payloads); !strings.Contains(strings.Join(k, " "), "gemini-cli/tool_result") {
		t.Errorf("the orphan result was dropped: %v", k)
	}
	got = nil
	mustRun(t, toolRun, opts, Outcome{})
	if len(got) != 0 {
		t.Errorf("a complete run has findings: %v", got)
	}
}

// TestFramingError: a line over the limit is a positioned malformed item.
func TestFramingError(t *testing.T) {
	p := New(&adaptertest.RecordingSink{}, Options{})
	if err := p.FeedError(&ndjson.LineError{Line: 3, Offset: 200, Len: 1 << 27, Err: ndjson.ErrLineTooLong}); err != nil {
		t.Fatal(err)
	}
	resp, err := p.Finish(Outcome{})
	if err != nil {
		t.Fatal(err)
	}
	it := resp.Transcript[0]
	if it.Kind != driver.TranscriptStdout || it.Metadata["line"] != "3" || it.Metadata["offset"] != "200" {
		t.Errorf("item = %+v", it)
	}
	if _, err := p.Finish(Outcome{}); !errors.Is(err, ErrFinished) {
		t.Errorf("second Finish: %v", err)
	}
}

// TestSinkError: a failing sink stops the parse and its error comes back;
// the raw stream stays whole.
func TestSinkError(t *testing.T) {
	boom := errors.New("sink full")
	sink := &failSink{after: 3, err: boom}
	resp, err := Parse(strings.NewReader(toolRun), nil, sink, streaming, Outcome{})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	if resp.RawStreams == nil || resp.RawStreams.Stdout != toolRun {
		t.Error("raw stdout incomplete after a sink error")
	}
}

type failSink struct {
	after int
	err   error
	n     int
}

func (s *failSink) Emit(driver.RunEvent) error { return s.tick() }
func (s *failSink) EmitStream(driver.StreamPayload) error {
	return s.tick()
}
func (s *failSink) tick() error {
	if s.n++; s.n > s.after {
		return s.err
	}
	return nil
}

func TestCodec(t *testing.T) { parsertest.CheckCodecDisplayID(t, Codec) }

// TestWholeMessageAndOddParameters: an assistant message without "delta"
// is a message of its own; tool parameters that are not an object are
// kept as the item's Input and mark the line malformed.
func TestWholeMessageAndOddParameters(t *testing.T) {
	whole := `{"type":"message","role":"assistant","content":"Whole."}`
	odd := `{"type":"tool_use","tool_name":"x","tool_id":"t-9","parameters":[1,2]}`
	r := mustRun(t, lines(lInit, lDelta1, whole, lDelta2, odd, lResult), streaming, Outcome{})
	want := []string{"run.started",
		"text.start:msg-1", "text.content:msg-1", "text.end:msg-1",
		"text.start:msg-2", "text.content:msg-2", "text.end:msg-2",
		"text.start:msg-3", "text.content:msg-3", "text.end:msg-3",
		"tool_call.start:t-9", "tool_call.end:t-9", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
	var texts []string
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptAssistant {
			texts = append(texts, it.Text)
		}
		if it.Kind == driver.TranscriptToolCall && !cmp.Equal(it.Input, []any{1.0, 2.0}) {
			t.Errorf("tool_call Input = %#v", it.Input)
		}
	}
	if d := cmp.Diff([]string{"I'll run ", "Whole.", "it."}, texts); d != "" {
		t.Errorf("assistant items (-want +got):\n%s", d)
	}
	if r.Response.Output != "it." || r.Response.Metadata[MetaProblem] != "tool_use parameters are not an object" {
		t.Errorf("Output %q metadata %v", r.Response.Output, r.Response.Metadata)
	}
}

// TestEmptyUserMessage: a user message with an empty content (FuzzCLIGemini
// found one with "delta": true on libFuzzer, session 6) ends the assistant
// message like any user message but is no user item, which must have Text.
func TestEmptyUserMessage(t *testing.T) {
	empty := `{"type":"message","role":"user","content":"","delta":true}`
	r := mustRun(t, lines(lInit, lUser, lDelta1, empty, lDelta2, lResult), streaming, Outcome{})
	want := []string{"run.started",
		"text.start:msg-1", "text.content:msg-1", "text.end:msg-1",
		"text.start:msg-2", "text.content:msg-2", "text.end:msg-2",
		"run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"init", "user", "assistant", "assistant", "result"}, itemKinds(r.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if !r.Response.Checkpoint.Valid {
		t.Errorf("checkpoint %+v", r.Response.Checkpoint)
	}
}
