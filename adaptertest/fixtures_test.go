package adaptertest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
)

// Payload constructors keep the fixtures readable.
func runStarted() driver.StreamPayload { return driver.StreamPayload{Kind: driver.StreamRunStarted} }
func runFinished() driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamRunFinished, Usage: &driver.Usage{InputTokens: 1}}
}
func runError(msg string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamRunError, Error: &driver.RunFailure{Code: driver.FailureAgentError, Message: msg}}
}
func textStart(id string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamTextStart, MessageID: id}
}
func textContent(id, d string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamTextContent, MessageID: id, Delta: d}
}
func textEnd(id string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamTextEnd, MessageID: id}
}
func reasonStart(id string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamReasoningStart, MessageID: id}
}
func reasonContent(id, d string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamReasoningContent, MessageID: id, Delta: d}
}
func reasonEnd(id string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamReasoningEnd, MessageID: id}
}
func toolStart(id, name string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamToolCallStart, ToolCallID: id, Name: name}
}
func toolStartArgs(id, name string) driver.StreamPayload {
	p := toolStart(id, name)
	p.Args = map[string]any{"cmd": "ls"}
	return p
}
func toolArgs(id, d string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamToolCallArgs, ToolCallID: id, Delta: d}
}
func toolEnd(id string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamToolCallEnd, ToolCallID: id, Result: map[string]any{"exit_code": 0}}
}
func toolResult(id string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamToolCallResult, ToolCallID: id}
}
func stepStarted(name string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamStepStarted, Name: name}
}
func stepFinished(name string) driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamStepFinished, Name: name}
}
func hitlRequested() driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamHITLRequested, HITLRequested: &driver.HITLRequestedPayload{RequestID: "r1", Kind: driver.HumanDecisionPermission}}
}
func hitlResolved() driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamHITLResolved, HITLResolved: &driver.HITLResolvedPayload{RequestID: "r1", Result: driver.DecisionApproved}}
}
func dropped() driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.StreamDropped, Raw: map[string]any{"dropped_count": 3}}
}
func custom() driver.StreamPayload {
	return driver.StreamPayload{Kind: driver.CustomKind("codex", "todo_list"), Raw: map[string]any{"items": []any{}}}
}

// wrap puts payloads between run.started and run.finished.
func wrap(ps ...driver.StreamPayload) []driver.StreamPayload {
	out := append([]driver.StreamPayload{runStarted()}, ps...)
	return append(out, runFinished())
}

func mod(p driver.StreamPayload, f func(*driver.StreamPayload)) driver.StreamPayload {
	f(&p)
	return p
}

var allCaps = driver.StreamCapability{Native: true, TokenLevel: true, Reasoning: true, ToolCallArgs: true, HITL: true}

type streamFixture struct {
	clause, name string
	cap          driver.StreamCapability
	payloads     []driver.StreamPayload
}

// Fixtures that violate exactly the named clause (they may trip others too).
var streamViolations = []streamFixture{
	{"EVT-01", "empty stream", allCaps, nil},
	{"EVT-01", "first is text", allCaps, append([]driver.StreamPayload{textStart("m")}, wrap(textEnd("m"))...)},
	{"EVT-01", "started twice", allCaps, wrap(runStarted())},
	{"EVT-01", "missing run.started", allCaps, []driver.StreamPayload{runFinished()}},
	{"EVT-01", "custom kind before run.started", allCaps, append([]driver.StreamPayload{custom()}, wrap()...)},
	{"EVT-02", "no terminal", allCaps, []driver.StreamPayload{runStarted(), textStart("m"), textEnd("m")}},
	{"EVT-02", "two terminals", allCaps, append(wrap(), runFinished())},
	{"EVT-02", "finished then error", allCaps, append(wrap(), runError("late"))},
	{"EVT-02", "text after terminal", allCaps, append(wrap(), textStart("m"))},
	{"EVT-02", "drop report after terminal", allCaps, append(wrap(), dropped())},
	{"EVT-02", "run.error without Error", allCaps, []driver.StreamPayload{runStarted(), {Kind: driver.StreamRunError}}},
	{"EVT-02", "run.error with empty message", allCaps, []driver.StreamPayload{runStarted(), runError("")}},
	{"EVT-03", "text.start without id", allCaps, wrap(textStart(""))},
	{"EVT-03", "reopen after end", allCaps, wrap(textStart("m"), textEnd("m"), textStart("m"), textEnd("m"))},
	{"EVT-03", "open twice", allCaps, wrap(textStart("m"), textStart("m"), textEnd("m"))},
	{"EVT-03", "content before start", allCaps, wrap(textContent("m", "x"), textStart("m"), textEnd("m"))},
	{"EVT-03", "content after end", allCaps, wrap(textStart("m"), textEnd("m"), textContent("m", "x"))},
	{"EVT-03", "end without start", allCaps, wrap(textEnd("m"))},
	{"EVT-04", "empty text delta", allCaps, wrap(textStart("m"), textContent("m", ""), textEnd("m"))},
	{"EVT-05", "tool start without id", allCaps, wrap(toolStart("", "shell"))},
	{"EVT-05", "tool start without name", allCaps, wrap(toolStart("t", ""), toolEnd("t"))},
	{"EVT-05", "tool reopened", allCaps, wrap(toolStart("t", "shell"), toolEnd("t"), toolStart("t", "shell"), toolEnd("t"))},
	{"EVT-05", "args before start", allCaps, wrap(toolArgs("t", "{"), toolStart("t", "shell"), toolEnd("t"))},
	{"EVT-05", "args after end", allCaps, wrap(toolStart("t", "shell"), toolEnd("t"), toolArgs("t", "{"))},
	{"EVT-05", "empty args delta", allCaps, wrap(toolStart("t", "shell"), toolArgs("t", ""), toolEnd("t"))},
	{"EVT-05", "end without start", allCaps, wrap(toolEnd("t"))},
	{"EVT-05", "result for unknown id", allCaps, wrap(toolResult("t"))},
	{"EVT-06", "reasoning without id", allCaps, wrap(reasonStart(""))},
	{"EVT-06", "reasoning reopened", allCaps, wrap(reasonStart("r"), reasonEnd("r"), reasonStart("r"), reasonEnd("r"))},
	{"EVT-06", "reasoning content while closed", allCaps, wrap(reasonContent("r", "x"))},
	{"EVT-06", "empty reasoning delta", allCaps, wrap(reasonStart("r"), reasonContent("r", ""), reasonEnd("r"))},
	{"EVT-06", "reasoning end without start", allCaps, wrap(reasonEnd("r"))},
	{"EVT-07", "step without name", allCaps, wrap(stepStarted(""))},
	{"EVT-07", "finished without started", allCaps, wrap(stepFinished("plan"))},
	{"EVT-07", "finished twice", allCaps, wrap(stepStarted("plan"), stepFinished("plan"), stepFinished("plan"))},
	{"EVT-08", "empty kind", allCaps, wrap(driver.StreamPayload{})},
	{"EVT-08", "unnamespaced unknown kind", allCaps, wrap(driver.StreamPayload{Kind: "todo_list"})},
	{"EVT-08", "hitl.requested without envelope", allCaps, wrap(driver.StreamPayload{Kind: driver.StreamHITLRequested})},
	{"EVT-08", "hitl.resolved without envelope", allCaps, wrap(driver.StreamPayload{Kind: driver.StreamHITLResolved})},
	{"EVT-08", "dropped without count", allCaps, wrap(driver.StreamPayload{Kind: driver.StreamDropped})},
	{"EVT-09", "role user on text", allCaps, wrap(mod(textStart("m"), func(p *driver.StreamPayload) { p.Role = driver.RoleUser }), textEnd("m"))},
	{"EVT-09", "role user on run.started", allCaps, wrap()[:1:1]},
	{"EVT-10", "sequence set", allCaps, wrap(mod(textStart("m"), func(p *driver.StreamPayload) { p.Sequence = 1 }), textEnd("m"))},
	{"EVT-10", "seq set", allCaps, wrap(mod(custom(), func(p *driver.StreamPayload) { p.Seq = 7 }))},
	{"EVT-10", "timestamp set", allCaps, wrap(mod(dropped(), func(p *driver.StreamPayload) { p.Timestamp = time.Unix(1, 0) }))},
	{"EVT-11", "text open at terminal", allCaps, wrap(textStart("m"), textContent("m", "x"))},
	{"EVT-11", "reasoning open at terminal", allCaps, wrap(reasonStart("r"))},
	{"EVT-11", "tool open at terminal", allCaps, wrap(toolStart("t", "shell"))},
	{"EVT-11", "step open at terminal", allCaps, wrap(stepStarted("plan"))},
	{"EVT-11", "open at run.error", allCaps, []driver.StreamPayload{runStarted(), textStart("m"), runError("boom")}},
	{"EVT-12", "reasoning without capability", driver.StreamCapability{}, wrap(reasonStart("r"), reasonEnd("r"))},
	{"EVT-12", "tool args without capability", driver.StreamCapability{Reasoning: true}, wrap(toolStart("t", "shell"), toolArgs("t", "{}"), toolEnd("t"))},
	{"EVT-12", "hitl without capability", driver.StreamCapability{ToolCallArgs: true}, wrap(hitlRequested(), hitlResolved())},
	{"EVT-13", "message id on run.started", allCaps, []driver.StreamPayload{mod(runStarted(), func(p *driver.StreamPayload) { p.MessageID = "m" }), runFinished()}},
	{"EVT-13", "tool id on run.finished", allCaps, []driver.StreamPayload{runStarted(), mod(runFinished(), func(p *driver.StreamPayload) { p.ToolCallID = "t" })}},
	{"EVT-13", "message id on run.error", allCaps, []driver.StreamPayload{runStarted(), mod(runError("x"), func(p *driver.StreamPayload) { p.MessageID = "m" })}},
	{"EVT-14", "args after complete Args", allCaps, wrap(toolStartArgs("t", "shell"), toolArgs("t", "{}"), toolEnd("t"))},
	{"EVT-14", "duplicate result", allCaps, wrap(toolStart("t", "shell"), toolEnd("t"), toolResult("t"), toolResult("t"))},
	{"EVT-14", "self parent", allCaps, wrap(mod(toolStart("t", "task"), func(p *driver.StreamPayload) { p.ParentToolCallID = "t" }), toolEnd("t"))},
	{"EVT-14", "parent changes", allCaps, wrap(mod(toolStart("t", "shell"), func(p *driver.StreamPayload) { p.ParentToolCallID = "a" }), toolEnd("t"))},
}

func init() {
	// "role user on run.started": build here to keep the table compact.
	for i := range streamViolations {
		if streamViolations[i].name == "role user on run.started" {
			streamViolations[i].payloads = []driver.StreamPayload{mod(runStarted(), func(p *driver.StreamPayload) { p.Role = driver.RoleUser }), runFinished()}
		}
	}
}

// Fixtures that must pass with zero violations, each exercising the edge a
// clause must not misjudge.
var streamConforming = []streamFixture{
	{"EVT-01", "minimal run", driver.StreamCapability{}, wrap()},
	{"EVT-02", "error terminal", driver.StreamCapability{}, []driver.StreamPayload{runStarted(), runError("boom")}},
	{"EVT-03", "interleaved messages", allCaps, wrap(textStart("a"), textStart("b"), textContent("b", "1"), textContent("a", "2"), textEnd("a"), textEnd("b"))},
	{"EVT-03", "same id in two scopes", allCaps, wrap(textStart("m"), mod(textStart("m"), func(p *driver.StreamPayload) { p.ScopeID = "sub" }), textEnd("m"), mod(textEnd("m"), func(p *driver.StreamPayload) { p.ScopeID = "sub" }))},
	{"EVT-04", "multi-byte delta", allCaps, wrap(textStart("m"), textContent("m", "é"), textEnd("m"))},
	{"EVT-05", "streamed args then result after end", allCaps, wrap(toolStart("t", "shell"), toolArgs("t", "{\"cmd\":"), toolArgs("t", "\"ls\"}"), toolEnd("t"), toolResult("t"))},
	{"EVT-05", "same tool id in two scopes", allCaps, wrap(toolStart("t", "shell"), mod(toolStart("t", "shell"), func(p *driver.StreamPayload) { p.ScopeID = "sub" }), toolEnd("t"), mod(toolEnd("t"), func(p *driver.StreamPayload) { p.ScopeID = "sub" }))},
	{"EVT-06", "text and reasoning share an id", allCaps, wrap(reasonStart("m"), reasonContent("m", "hmm"), reasonEnd("m"), textStart("m"), textEnd("m"))},
	{"EVT-07", "nested steps of one name", allCaps, wrap(stepStarted("s"), stepStarted("s"), stepFinished("s"), stepFinished("s"))},
	{"EVT-08", "custom kind, hitl and drop", allCaps, wrap(custom(), hitlRequested(), hitlResolved(), dropped())},
	{"EVT-09", "assistant role everywhere", allCaps, wrap(textStart("m"), textEnd("m"))},
	{"EVT-10", "provider coordinates allowed", allCaps, []driver.StreamPayload{{Kind: driver.StreamRunStarted, RunID: "r", ThreadID: "th", TurnID: "tu"}, runFinished()}},
	{"EVT-11", "closed before error", allCaps, []driver.StreamPayload{runStarted(), textStart("m"), textEnd("m"), runError("boom")}},
	{"EVT-12", "coarse text without TokenLevel or Native", driver.StreamCapability{}, wrap(textStart("m"), textContent("m", "whole message"), textEnd("m"), toolStartArgs("t", "shell"), toolEnd("t"))},
	{"EVT-13", "ids only on lifecycles", allCaps, wrap(textStart("m"), textEnd("m"))},
	{"EVT-14", "nested tool with parent", allCaps, wrap(toolStart("task", "Task"), mod(toolStart("t", "shell"), func(p *driver.StreamPayload) { p.ScopeID = "sub"; p.ParentToolCallID = "task" }), mod(toolEnd("t"), func(p *driver.StreamPayload) { p.ScopeID = "sub"; p.ParentToolCallID = "task" }), toolEnd("task"), toolResult("task"))},
}

func TestStreamClauses(t *testing.T) {
	for _, f := range streamViolations {
		t.Run(f.clause+"/caught/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			vs := CheckStream(f.cap, f.payloads)
			if !vs.Has(f.clause) {
				t.Fatalf("%s not reported; got:\n%s", f.clause, vs)
			}
			for _, v := range vs {
				if v.Index >= len(f.payloads) || v.Index < -1 {
					t.Errorf("violation index %d out of range: %s", v.Index, v)
				}
			}
		})
	}
	for _, f := range streamConforming {
		t.Run(f.clause+"/passes/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			if vs := CheckStream(f.cap, f.payloads); len(vs) != 0 {
				t.Fatalf("false positive:\n%s", vs)
			}
		})
	}
}

func TestStreamViolationPositions(t *testing.T) {
	ps := wrap(textStart("m"), textContent("m", ""), textEnd("m"))
	vs := CheckStream(allCaps, ps)
	if len(vs) != 1 || vs[0].Clause != "EVT-04" || vs[0].Index != 2 {
		t.Fatalf("got %v, want one EVT-04 at #2", vs)
	}
	if got := vs[0].String(); !strings.HasPrefix(got, "EVT-04 [#2]: ") {
		t.Errorf("String() = %q", got)
	}
	// Capability negatives are reported once per family.
	vs = CheckStream(driver.StreamCapability{}, wrap(reasonStart("a"), reasonEnd("a"), reasonStart("b"), reasonEnd("b")))
	if n := countClause(vs, "EVT-12"); n != 1 {
		t.Errorf("EVT-12 reported %d times, want once per family: %v", n, vs)
	}
	// Open lifecycles at the terminal are listed deterministically.
	vs = CheckStream(allCaps, wrap(textStart("b"), textStart("a"), mod(textStart("a"), func(p *driver.StreamPayload) { p.ScopeID = "s" })))
	var msgs []string
	for _, v := range vs {
		msgs = append(msgs, v.Message)
	}
	want := []string{`text "a" still open at the terminal`, `text "b" still open at the terminal`, `text "a" (scope "s") still open at the terminal`}
	if strings.Join(msgs, "|") != strings.Join(want, "|") {
		t.Errorf("EVT-11 messages = %q, want %q", msgs, want)
	}
	if vs.Clauses()[0] != "EVT-11" || vs.Has("EVT-01") {
		t.Errorf("Clauses() = %v", vs.Clauses())
	}
}

func countClause(vs Violations, id string) int {
	n := 0
	for _, v := range vs {
		if v.Clause == id {
			n++
		}
	}
	return n
}

// ---- runs and transcripts ----

func itemEvent(it driver.TranscriptItem) driver.RunEvent {
	return driver.RunEvent{Type: driver.RunEventItem, Item: &it}
}

func validRun() ([]driver.RunEvent, driver.Response) {
	items := []driver.TranscriptItem{
		{Kind: driver.TranscriptInit, SessionID: "s1", Model: "m"},
		{Kind: driver.TranscriptThinking, Text: "hmm", Delta: true},
		{Kind: driver.TranscriptToolCall, ToolName: "shell", ToolUseID: "t1", Input: map[string]any{"cmd": "ls"}},
		{Kind: driver.TranscriptToolResult, ToolUseID: "t1", Text: "a.txt"},
		{Kind: driver.TranscriptAssistant, Text: "done"},
		{Kind: driver.TranscriptResult, Subtype: "success"},
	}
	stdout := `{"type":"init"}` + "\n" + `{"type":"result"}` + "\n"
	events := []driver.RunEvent{
		{Type: driver.RunEventInvocation, Text: "codex exec --json"},
		{Type: driver.RunEventSpawn, Data: map[string]any{"pid": 42}},
		{Type: driver.RunEventChunk, Stream: driver.StreamStdout, Bytes: []byte(stdout[:5])},
		{Type: driver.RunEventChunk, Stream: driver.StreamStderr, Bytes: []byte("warn\n")},
		{Type: driver.RunEventChunk, Stream: driver.StreamStdout, Bytes: []byte(stdout[5:])},
	}
	for _, it := range items {
		events = append(events, itemEvent(it))
	}
	events = append(events, driver.RunEvent{Type: driver.RunEventLifecycle, Text: "exited"}, driver.RunEvent{Type: driver.RunEventRuntime, Data: map[string]any{"code": "none"}})
	resp := driver.Response{
		Output:     "done",
		Transcript: items,
		RawStreams: &driver.RawStreams{Stdout: stdout, Stderr: "warn\n", Terminal: &driver.TerminalPayload{Event: "result", JSON: json.RawMessage(`{"type":"result"}`)}},
		Checkpoint: &driver.Checkpoint{Valid: true, State: &driver.SessionState{ResumeID: "s1", Data: map[string]string{"cwd": "/repo"}}},
	}
	return events, resp
}

type runFixture struct {
	clause, name string
	edit         func(events []driver.RunEvent, resp *driver.Response) []driver.RunEvent
}

var runViolations = []runFixture{
	{"RUN-01", "chunk on an unknown stream", func(ev []driver.RunEvent, _ *driver.Response) []driver.RunEvent {
		return append(ev, driver.RunEvent{Type: driver.RunEventChunk, Stream: "stdin", Bytes: []byte("x")})
	}},
	{"RUN-01", "unknown event type", func(ev []driver.RunEvent, _ *driver.Response) []driver.RunEvent {
		return append(ev, driver.RunEvent{Type: "progress"})
	}},
	{"RUN-01", "chunks differ from raw stdout", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		r.RawStreams.Stdout += "lost tail"
		return ev
	}},
	{"RUN-01", "chunks differ from raw stderr", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		r.RawStreams.Stderr = "rewritten\n"
		return ev
	}},
	{"RUN-02", "item event without item", func(ev []driver.RunEvent, _ *driver.Response) []driver.RunEvent {
		return append(ev, driver.RunEvent{Type: driver.RunEventItem})
	}},
	{"RUN-03", "seq set", func(ev []driver.RunEvent, _ *driver.Response) []driver.RunEvent {
		ev[0].Seq = 1
		return ev
	}},
	{"RUN-04", "transcript longer than items", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		r.Transcript = append(r.Transcript, driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "hidden"})
		return ev
	}},
	{"RUN-04", "item recomputed at the end", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		r.Transcript = append([]driver.TranscriptItem(nil), r.Transcript...)
		r.Transcript[4].Text = "done!"
		return ev
	}},
	{"RUN-04", "items reordered", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		t := append([]driver.TranscriptItem(nil), r.Transcript...)
		t[0], t[1] = t[1], t[0]
		r.Transcript = t
		return ev
	}},
	{"TRN-01", "assistant without text", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptAssistant})
	}},
	{"TRN-01", "unknown kind", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: "note", Text: "x"})
	}},
	{"TRN-01", "failure without text", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptFailure, Metadata: map[string]string{"code": "x"}})
	}},
	{"TRN-02", "tool call without name", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: "t2"})
	}},
	{"TRN-03", "tool result without id", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptToolResult, Text: "out"})
	}},
	{"TRN-04", "delta on a tool result", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: "t1", Delta: true})
	}},
	{"TRN-04", "delta on a result", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptResult, Delta: true})
	}},
}

// appendItem emits an item and mirrors it, so only the TRN clause fires.
func appendItem(ev []driver.RunEvent, r *driver.Response, it driver.TranscriptItem) []driver.RunEvent {
	r.Transcript = append(append([]driver.TranscriptItem(nil), r.Transcript...), it)
	return append(ev, itemEvent(it))
}

var runConforming = []runFixture{
	{"RUN-01", "no chunks at all", func(ev []driver.RunEvent, _ *driver.Response) []driver.RunEvent {
		var out []driver.RunEvent
		for _, e := range ev {
			if e.Type != driver.RunEventChunk {
				out = append(out, e)
			}
		}
		return out
	}},
	{"RUN-02", "baseline run", func(ev []driver.RunEvent, _ *driver.Response) []driver.RunEvent { return ev }},
	{"RUN-03", "timestamps are allowed on run events", func(ev []driver.RunEvent, _ *driver.Response) []driver.RunEvent {
		ev[0].Timestamp = time.Unix(5, 0)
		return ev
	}},
	{"RUN-04", "empty transcript and no items", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		r.Transcript = nil
		return ev[:5]
	}},
	{"TRN-01", "every text kind with text", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		for _, k := range []driver.TranscriptKind{driver.TranscriptUser, driver.TranscriptStdout, driver.TranscriptStderr, driver.TranscriptSystem, driver.TranscriptSummary, driver.TranscriptQuestion, driver.TranscriptFailure} {
			ev = appendItem(ev, r, driver.TranscriptItem{Kind: k, Text: "x"})
		}
		return ev
	}},
	{"TRN-02", "tool call with name only", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolName: "shell"})
	}},
	{"TRN-03", "tool result without text", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: "t1", IsError: true})
	}},
	{"TRN-04", "assistant delta", func(ev []driver.RunEvent, r *driver.Response) []driver.RunEvent {
		return appendItem(ev, r, driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "x", Delta: true})
	}},
}

func TestRunClauses(t *testing.T) {
	for _, f := range runViolations {
		t.Run(f.clause+"/caught/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			ev, resp := validRun()
			ev = f.edit(ev, &resp)
			vs := CheckRun(ev, resp)
			if !vs.Has(f.clause) {
				t.Fatalf("%s not reported; got:\n%s", f.clause, vs)
			}
		})
	}
	for _, f := range runConforming {
		t.Run(f.clause+"/passes/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			ev, resp := validRun()
			ev = f.edit(ev, &resp)
			if vs := CheckRun(ev, resp); len(vs) != 0 {
				t.Fatalf("false positive:\n%s", vs)
			}
		})
	}
}

func TestCheckTranscript(t *testing.T) {
	_, resp := validRun()
	if vs := CheckTranscript(resp.Transcript); len(vs) != 0 {
		t.Fatalf("false positive: %s", vs)
	}
	vs := CheckTranscript([]driver.TranscriptItem{{Kind: driver.TranscriptAssistant, Text: "ok"}, {Kind: driver.TranscriptToolCall}})
	if len(vs) != 1 || vs[0].Clause != "TRN-02" || vs[0].Index != 1 {
		t.Fatalf("got %v, want TRN-02 at #1", vs)
	}
}

// ---- responses ----

// testCodec is a well-behaved codec: DisplayID defaults to ResumeID and the
// guard hashes the cwd.
type testCodec struct{ lossy, emptyGuard, flaky, panics bool }

func (c *testCodec) Name() string { return "test" }
func (c *testCodec) ToParams(s *driver.SessionState) driver.SessionParams {
	if c.panics {
		panic("boom")
	}
	if s == nil {
		return driver.SessionParams{}
	}
	p := driver.SessionParams{ResumeID: s.ResumeID, DisplayID: s.DisplayID, Values: map[string]string{}}
	if p.DisplayID == "" {
		p.DisplayID = s.ResumeID
	}
	for k, v := range s.Data {
		if c.lossy && k == "cwd" {
			continue
		}
		p.Values[k] = v
	}
	return p
}
func (c *testCodec) FromParams(p driver.SessionParams) *driver.SessionState {
	if p.IsZero() {
		return nil
	}
	s := &driver.SessionState{ResumeID: p.ResumeID, DisplayID: p.DisplayID, Data: map[string]string{}}
	for k, v := range p.Values {
		s.Data[k] = v
	}
	if c.flaky {
		s.Data["extra"] = "1"
	}
	return s
}

var guardCalls int

func (c *testCodec) GuardFingerprint(p driver.SessionParams) string {
	if c.emptyGuard {
		return ""
	}
	if c.flaky {
		guardCalls++
		return "g" + string(rune('0'+guardCalls%10))
	}
	return "g:" + p.Values["cwd"]
}

type respFixture struct {
	clause, name string
	codec        driver.SessionCodec
	runErr       error
	edit         func(*driver.Response)
}

var respViolations = []respFixture{
	{"RSP-01", "valid without state", &testCodec{}, nil, func(r *driver.Response) { r.Checkpoint.State = nil }},
	{"RSP-01", "valid without resume id", &testCodec{}, nil, func(r *driver.Response) { r.Checkpoint.State.ResumeID = "" }},
	{"RSP-01", "valid with non-zero exit", &testCodec{}, nil, func(r *driver.Response) { r.ExitCode = 1 }},
	{"RSP-01", "valid with a signal", &testCodec{}, nil, func(r *driver.Response) { r.Signal = "SIGINT" }},
	{"RSP-01", "valid after a timeout", &testCodec{}, nil, func(r *driver.Response) { r.TimedOut = true }},
	{"RSP-01", "valid with a failure", &testCodec{}, nil, func(r *driver.Response) {
		r.Failure = &driver.RunFailure{Code: driver.FailureAgentError, Message: "x"}
	}},
	{"RSP-01", "valid with a run error", &testCodec{}, errors.New("pipe broke"), func(*driver.Response) {}},
	{"RSP-01", "valid without a terminal", &testCodec{}, nil, func(r *driver.Response) { r.RawStreams.Terminal = nil }},
	{"RSP-01", "valid without raw streams", &testCodec{}, nil, func(r *driver.Response) { r.RawStreams = nil }},
	{"RSP-02", "rejection without decision", nil, nil, func(r *driver.Response) {
		r.Checkpoint = nil
		r.Failure = &driver.RunFailure{Code: driver.FailureDecisionRejected, Message: "denied"}
	}},
	{"RSP-02", "decision on an agent error", nil, nil, func(r *driver.Response) {
		r.Checkpoint = nil
		r.Failure = &driver.RunFailure{Code: driver.FailureAgentError, Message: "x", HumanDecision: &driver.HumanDecisionFailure{}}
	}},
	{"RSP-02", "failure without message", nil, nil, func(r *driver.Response) {
		r.Checkpoint = nil
		r.Failure = &driver.RunFailure{Code: driver.FailureAgentError}
	}},
	{"RSP-03", "output is raw stdout", &testCodec{}, nil, func(r *driver.Response) { r.Output = r.RawStreams.Stdout }},
	{"RSP-03", "output contains stderr", &testCodec{}, nil, func(r *driver.Response) { r.Output = "done\n" + r.RawStreams.Stderr }},
	{"RSP-03", "output contains terminal JSON", &testCodec{}, nil, func(r *driver.Response) {
		r.RawStreams.Stdout = "x\n"
		r.Output = "done " + string(r.RawStreams.Terminal.JSON)
	}},
	{"RSP-03", "summary falls back to output", &testCodec{}, nil, func(r *driver.Response) { r.Summary = r.Output }},
	{"RSP-04", "no codec", nil, nil, func(*driver.Response) {}},
	{"RSP-04", "typed nil codec", (*testCodec)(nil), nil, func(*driver.Response) {}},
	{"RSP-04", "lossy codec", &testCodec{lossy: true}, nil, func(*driver.Response) {}},
	{"RSP-04", "empty guard", &testCodec{emptyGuard: true}, nil, func(*driver.Response) {}},
	{"RSP-04", "non-deterministic codec", &testCodec{flaky: true}, nil, func(*driver.Response) {}},
	{"RSP-04", "panicking codec", &testCodec{panics: true}, nil, func(*driver.Response) {}},
	{"RSP-05", "terminal without event", &testCodec{}, nil, func(r *driver.Response) { r.RawStreams.Terminal.Event = "" }},
	{"RSP-05", "terminal with invalid JSON", &testCodec{}, nil, func(r *driver.Response) { r.RawStreams.Terminal.JSON = json.RawMessage(`{"type":`) }},
	{"RSP-05", "terminal with empty JSON", &testCodec{}, nil, func(r *driver.Response) { r.RawStreams.Terminal.JSON = nil }},
}

var respConforming = []respFixture{
	{"RSP-01", "valid checkpoint on a clean run", &testCodec{}, nil, func(*driver.Response) {}},
	{"RSP-01", "invalid checkpoint on a failed run", nil, errors.New("x"), func(r *driver.Response) {
		r.Checkpoint.Valid = false
		r.ExitCode = 2
	}},
	{"RSP-02", "rejection with its decision", nil, nil, func(r *driver.Response) {
		r.Checkpoint = nil
		r.Failure = &driver.RunFailure{Code: driver.FailureDecisionTimeout, Message: "timed out", HumanDecision: &driver.HumanDecisionFailure{Kind: driver.HumanDecisionPermission, Decision: driver.DecisionTimedOut}}
	}},
	{"RSP-03", "formal summary distinct from output", &testCodec{}, nil, func(r *driver.Response) { r.Summary = "did it" }},
	{"RSP-04", "codec without data", &testCodec{}, nil, func(r *driver.Response) { r.Checkpoint.State.Data = nil }},
	{"RSP-05", "no terminal and no checkpoint", nil, nil, func(r *driver.Response) {
		r.Checkpoint = nil
		r.RawStreams.Terminal = nil
	}},
}

func TestResponseClauses(t *testing.T) {
	for _, f := range respViolations {
		t.Run(f.clause+"/caught/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			_, resp := validRun()
			f.edit(&resp)
			vs := CheckResponse(resp, f.runErr, f.codec)
			if !vs.Has(f.clause) {
				t.Fatalf("%s not reported; got:\n%s", f.clause, vs)
			}
		})
	}
	for _, f := range respConforming {
		t.Run(f.clause+"/passes/"+strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			_, resp := validRun()
			f.edit(&resp)
			if vs := CheckResponse(resp, f.runErr, f.codec); len(vs) != 0 {
				t.Fatalf("false positive:\n%s", vs)
			}
		})
	}
}

// TestEveryClauseHasFixtures keeps the catalogue and the fixtures in step:
// every clause has a fixture that violates it and one that passes near it.
func TestEveryClauseHasFixtures(t *testing.T) {
	caught, passes := map[string]bool{}, map[string]bool{}
	for _, f := range streamViolations {
		caught[f.clause] = true
	}
	for _, f := range streamConforming {
		passes[f.clause] = true
	}
	for _, f := range runViolations {
		caught[f.clause] = true
	}
	for _, f := range runConforming {
		passes[f.clause] = true
	}
	for _, f := range respViolations {
		caught[f.clause] = true
	}
	for _, f := range respConforming {
		passes[f.clause] = true
	}
	for _, f := range crossViolations {
		caught[f.clause] = true
	}
	for _, f := range crossConforming {
		passes[f.clause] = true
	}
	// Driver-level clauses: TestSuiteClauses breaks the reference driver
	// for each, and the intact reference driver passes them all.
	for _, id := range append(suiteClauses, "LIV-05") {
		caught[id], passes[id] = true, true
	}
	seen := map[string]bool{}
	for _, c := range Clauses {
		if seen[c.ID] {
			t.Errorf("duplicate clause %s", c.ID)
		}
		seen[c.ID] = true
		if !caught[c.ID] {
			t.Errorf("%s has no violating fixture", c.ID)
		}
		if !passes[c.ID] {
			t.Errorf("%s has no conforming fixture", c.ID)
		}
		if c.Rule == "" || c.Section == "" {
			t.Errorf("%s lacks its rule or section", c.ID)
		}
	}
	for id := range caught {
		if !seen[id] {
			t.Errorf("fixture for %s, which the catalogue does not list", id)
		}
	}
}
