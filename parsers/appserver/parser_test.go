package appserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// A minimal 0.169.0-shaped session.
const (
	sInit       = `{"id":0,"result":{"userAgent":"x"}}`
	sWarn       = `{"method":"configWarning","params":{"summary":"no bubblewrap","details":null}}`
	sThreadResp = `{"id":1,"result":{"thread":{"id":"th-1"},"model":"m-1"}}`
	sThreadStd  = `{"method":"thread/started","params":{"thread":{"id":"th-1"}}}`
	sTurnResp   = `{"id":2,"result":{"turn":{"id":"tu-1","items":[],"status":"inProgress","error":null}}}`
	sTurnStd    = `{"method":"turn/started","params":{"threadId":"th-1","turn":{"id":"tu-1","status":"inProgress"}}}`
	sMsgStart   = `{"method":"item/started","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"agentMessage","id":"m1","text":""}}}`
	sDelta1     = `{"method":"item/agentMessage/delta","params":{"threadId":"th-1","turnId":"tu-1","itemId":"m1","delta":"Hel"}}`
	sDelta2     = `{"method":"item/agentMessage/delta","params":{"threadId":"th-1","turnId":"tu-1","itemId":"m1","delta":"lo"}}`
	sMsgDone    = `{"method":"item/completed","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"agentMessage","id":"m1","text":"Hello","phase":"final_answer"}}}`
	sUsage      = `{"method":"thread/tokenUsage/updated","params":{"threadId":"th-1","turnId":"tu-1","tokenUsage":{"total":{"totalTokens":1110,"inputTokens":1000,"cachedInputTokens":400,"outputTokens":110},"last":{"totalTokens":110,"inputTokens":100,"cachedInputTokens":40,"outputTokens":10}}}}`
	sDone       = `{"method":"turn/completed","params":{"threadId":"th-1","turn":{"id":"tu-1","items":[],"status":"completed","error":null}}}`
	sFailed     = `{"method":"turn/completed","params":{"threadId":"th-1","turn":{"id":"tu-1","status":"failed","error":{"message":"boom","codexErrorInfo":"other"}}}}`
	sInterr     = `{"method":"turn/completed","params":{"threadId":"th-1","turn":{"id":"tu-1","status":"interrupted","error":null}}}`
	sCmdStart   = `{"method":"item/started","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"commandExecution","id":"c1","command":"touch x","cwd":"/w","status":"inProgress"}}}`
	sApproval   = `{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th-1","turnId":"tu-1","itemId":"c1","command":"touch x","cwd":"/w","availableDecisions":["accept","acceptForSession","decline","cancel"]}}`
	sResolved   = `{"method":"serverRequest/resolved","params":{"threadId":"th-1","requestId":0}}`
	sCmdDone    = `{"method":"item/completed","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"commandExecution","id":"c1","command":"touch x","cwd":"/w","status":"completed","aggregatedOutput":"ok\n","exitCode":0,"durationMs":5}}}`
)

var sSession = []string{sInit, sWarn, sThreadResp, sThreadStd, sTurnResp, sTurnStd, sMsgStart, sDelta1, sDelta2, sMsgDone, sUsage, sDone}

const sStdin = `{"method":"initialize","id":0,"params":{"clientInfo":{"name":"t","version":"1"}}}
{"method":"initialized"}
{"method":"thread/start","id":1,"params":{}}
{"method":"turn/start","id":2,"params":{"threadId":"th-1","input":[{"type":"text","text":"hi"}]}}
{"id":0,"result":{"decision":"accept"}}
`

var streaming = Options{Streaming: true, SessionData: map[string]string{driver.ParamCWD: "/w"}}

func TestSuccess(t *testing.T) {
	r := mustRun(t, sStdin, lines(sSession...), streaming, Outcome{})
	want := []string{"run.started", "appserver/configWarning", "step.started:turn", "text.start:m1", "text.content:m1", "text.content:m1", "text.end:m1", "step.finished:turn", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Fatalf("payloads (-want +got):\n%s", d)
	}
	if p := r.Payloads[0]; p.ThreadID != "th-1" || p.TurnID != "tu-1" {
		t.Errorf("run.started coordinates %+v", p)
	}
	if d := cmp.Diff([]string{"system", "init", "assistant", "result"}, itemKinds(r.Items)); d != "" {
		t.Fatalf("items (-want +got):\n%s", d)
	}
	resp := r.Response
	if resp.Output != "Hello" || resp.Summary != "" || resp.Failure != nil {
		t.Fatalf("response %+v", resp)
	}
	// Usage: the increase of the thread total over the turn (1000-100 was
	// the thread's total before the turn's first model call).
	if d := cmp.Diff(&driver.Usage{InputTokens: 100, CachedInputTokens: 40, OutputTokens: 10}, resp.Usage); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
	if resp.Metadata[MetaThreadIn] != "1000" {
		t.Errorf("metadata %v", resp.Metadata)
	}
	if cp := resp.Checkpoint; cp == nil || !cp.Valid || cp.State.ResumeID != "th-1" || cp.State.Data[driver.ParamCWD] != "/w" {
		t.Fatalf("checkpoint %+v", cp)
	}
	if term := resp.RawStreams.Terminal; term == nil || term.Event != "turn/completed" || string(term.JSON) != sDone {
		t.Fatalf("terminal %+v", term)
	}
}

func TestTerminalStatus(t *testing.T) {
	base := sSession[:len(sSession)-1]
	for _, tc := range []struct {
		name string
		last string
		out  Outcome
		code driver.FailureCode
		msg  string
	}{
		{"failed", sFailed, Outcome{}, driver.FailureAgentError, "boom"},
		{"interrupted", sInterr, Outcome{}, driver.FailureCancelled, "turn interrupted"},
		{"completed but exit 1", sDone, Outcome{ExitCode: 1}, driver.FailureAgentError, "app-server exited with code 1"},
		{"completed but cancelled", sDone, Outcome{Cancelled: true}, driver.FailureCancelled, "app-server run cancelled"},
		{"no terminal", "", Outcome{}, driver.FailureAgentError, "app-server output ended without turn/completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(base)
			if tc.last != "" {
				in = append(in, tc.last)
			}
			r := mustRun(t, "", lines(in...), streaming, tc.out)
			f := r.Response.Failure
			if f == nil || f.Code != tc.code || f.Message != tc.msg {
				t.Fatalf("failure %+v", f)
			}
			if cp := r.Response.Checkpoint; cp == nil || cp.Valid {
				t.Fatalf("checkpoint %+v", cp)
			}
			if last := r.Payloads[len(r.Payloads)-1]; last.Kind != driver.StreamRunError {
				t.Fatalf("last payload %s", last.Kind)
			}
			if (r.Response.RawStreams.Terminal != nil) != (tc.last != "") {
				t.Fatalf("terminal %+v", r.Response.RawStreams.Terminal)
			}
		})
	}
}

// TestTruncation cuts the session at every line and inside every line:
// never a valid checkpoint, no violation, a Failure.
func TestTruncation(t *testing.T) {
	full := lines(append(slices.Clone(sSession[:9]), sCmdStart, sApproval, sResolved, sCmdDone, sMsgDone, sUsage, sDone)...)
	end := len(full) - 2 // the terminal's closing brace
	for n := 0; n < end; n++ {
		for _, out := range []Outcome{{}, {Signal: "SIGKILL", ExitCode: -1}} {
			r, v := run(sStdin, full[:n], "", streaming, out, nil)
			if len(v) > 0 {
				t.Fatalf("cut at %d: violations:\n%s", n, v)
			}
			if cp := r.Response.Checkpoint; cp != nil && cp.Valid {
				t.Fatalf("cut at %d: valid checkpoint", n)
			}
			if r.Response.Failure == nil {
				t.Fatalf("cut at %d: no failure", n)
			}
		}
	}
	// The whole session is a success.
	if r := mustRun(t, sStdin, full, streaming, Outcome{}); !r.Response.Checkpoint.Valid {
		t.Fatalf("full session: %+v", r.Response.Checkpoint)
	}
}

func TestApprovalIDZero(t *testing.T) {
	in := lines(sInit, sThreadResp, sTurnResp, sTurnStd, sCmdStart, sApproval, sResolved, sCmdDone, sDone)
	for _, stdin := range []string{sStdin, ""} {
		sink := &adaptertest.RecordingSink{}
		p := New(sink, streaming)
		if stdin != "" {
			feedAll(t, p.FeedClient, stdin)
		}
		var got []Approval
		r := jsonrpc.NewReader(strings.NewReader(in), jsonrpc.Options{})
		for f, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Feed(f); err != nil {
				t.Fatal(err)
			}
			got = append(got, p.TakeApprovals()...)
		}
		resp, err := p.Finish(Outcome{})
		if v := sink.Check(true, Capability, resp, err, Codec); len(v) > 0 {
			t.Fatalf("violations:\n%s", v)
		}
		if len(got) != 1 {
			t.Fatalf("approvals %+v", got)
		}
		a := got[0]
		if a.ID.String() != "0" || a.Method != "item/commandExecution/requestApproval" || a.ItemID != "c1" || a.TurnID != "tu-1" || a.Decision.Prompt != "touch x" || a.Decision.Kind != driver.HumanDecisionPermission || len(a.Decision.Choices) != 4 {
			t.Fatalf("approval %+v", a)
		}
		line, err := a.Answer(driver.DecisionResponse{Result: driver.DecisionApproved})
		if err != nil || string(line) != `{"id":0,"result":{"decision":"accept"}}`+"\n" {
			t.Fatalf("answer %s %v", line, err)
		}
		line, _ = a.Answer(driver.DecisionResponse{Result: driver.DecisionRejected})
		if string(line) != `{"id":0,"result":{"decision":"decline"}}`+"\n" {
			t.Fatalf("decline %s", line)
		}
		if a.DecisionFor(driver.DecisionResponse{Result: driver.DecisionApproved, Choice: "acceptForSession"}) != "acceptForSession" || a.DecisionFor(driver.DecisionResponse{Result: driver.DecisionAborted}) != "cancel" {
			t.Fatal("DecisionFor")
		}
		var req, res *driver.StreamPayload
		for i := range sink.Payloads {
			switch sink.Payloads[i].Kind {
			case driver.StreamHITLRequested:
				req = &sink.Payloads[i]
			case driver.StreamHITLResolved:
				res = &sink.Payloads[i]
			}
		}
		if req == nil || res == nil || req.HITLRequested.RequestID != "0" || req.HITLRequested.ToolCallID != "c1" || res.HITLResolved.RequestID != "0" {
			t.Fatalf("hitl payloads %+v %+v", req, res)
		}
		wantRes := driver.DecisionApproved
		if stdin == "" {
			wantRes = driver.DecisionAnswered
		}
		if res.HITLResolved.Result != wantRes {
			t.Errorf("stdin=%v: resolved %+v", stdin != "", res.HITLResolved)
		}
	}
	// The client id 0 (initialize) is not confused with the server's id 0.
	if r := mustRun(t, sStdin, in, streaming, Outcome{}); !r.Response.Checkpoint.Valid {
		t.Fatalf("checkpoint %+v", r.Response.Checkpoint)
	}
}

func feedAll(t *testing.T, feed func(jsonrpc.Frame) error, s string) {
	t.Helper()
	for f, err := range jsonrpc.NewReader(strings.NewReader(s), jsonrpc.Options{}).All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := feed(f); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOtherThread: notifications about another thread or an unknown turn
// stay in the audit and never reach this run's lifecycles or output.
func TestOtherThread(t *testing.T) {
	other := []string{
		`{"method":"thread/started","params":{"thread":{"id":"th-child"}}}`,
		`{"method":"item/started","params":{"threadId":"th-child","turnId":"x","item":{"type":"agentMessage","id":"m1","text":""}}}`,
		`{"method":"item/agentMessage/delta","params":{"threadId":"th-child","turnId":"x","itemId":"m1","delta":"NOT OURS"}}`,
		`{"method":"item/completed","params":{"threadId":"th-1","turnId":"old-turn","item":{"type":"agentMessage","id":"m0","text":"OLD"}}}`,
		`{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th-child","turnId":"x","itemId":"c9"}}`,
		`{"method":"turn/completed","params":{"threadId":"th-child","turn":{"id":"x","status":"failed","error":{"message":"child failed"}}}}`,
	}
	in := slices.Clone(sSession[:9])
	in = append(in, other...)
	in = append(in, sSession[9:]...)
	r := mustRun(t, "", lines(in...), streaming, Outcome{})
	if r.Response.Output != "Hello" || r.Response.Failure != nil || !r.Response.Checkpoint.Valid {
		t.Fatalf("response %+v", r.Response)
	}
	// The other thread's approval request is handed out for an answer.
	p := New(&adaptertest.RecordingSink{}, streaming)
	feedAll(t, p.Feed, lines(in...))
	if as := p.TakeApprovals(); len(as) != 1 || !as[0].OtherScope || as[0].ItemID != "c9" || as[0].ThreadID != "th-child" {
		t.Fatalf("approvals %+v", as)
	}
	for _, p := range r.Payloads {
		if strings.Contains(p.Delta, "NOT OURS") || p.Kind == driver.StreamHITLRequested {
			t.Fatalf("other thread leaked into the stream: %+v", p)
		}
	}
	n := 0
	for _, p := range r.Payloads {
		if p.Kind.IsCustom() && p.Raw["scope"] == "other" {
			n++
		}
	}
	if n != len(other) || r.Response.Metadata[MetaOther] != "6" {
		t.Fatalf("%d other-scope payloads, metadata %v", n, r.Response.Metadata)
	}
	sys := 0
	for _, it := range r.Items {
		if it.Metadata["scope"] == "other" {
			sys++
		}
	}
	// th-child with no turn (thread/started), th-child/x, th-1/old-turn.
	if sys != 3 {
		t.Fatalf("%d system items for other scopes", sys)
	}
}

func TestUnknownMethodAndItem(t *testing.T) {
	in := slices.Clone(sSession[:9])
	in = append(in,
		`{"method":"thread/goal/updated","params":{"threadId":"th-1","goal":{"text":"g"}}}`,
		`{"method":"item/started","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"sleep","id":"s1","durationMs":20}}}`,
		`{"method":"item/completed","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"sleep","id":"s1","durationMs":20}}}`,
		`{"id":7,"method":"some/new/request","params":{"threadId":"th-1"}}`,
	)
	in = append(in, sSession[9:]...)
	r := mustRun(t, "", lines(in...), streaming, Outcome{})
	var customs []string
	for _, p := range r.Payloads {
		if p.Kind.IsCustom() {
			customs = append(customs, string(p.Kind))
		}
	}
	want := []string{"appserver/configWarning", "appserver/thread/goal/updated", "appserver/sleep", "appserver/sleep"}
	if d := cmp.Diff(want, customs); d != "" {
		t.Fatalf("customs (-want +got):\n%s", d)
	}
	if r.Response.Metadata[MetaUnknown] != "3" || !r.Response.Checkpoint.Valid {
		t.Fatalf("metadata %v checkpoint %+v", r.Response.Metadata, r.Response.Checkpoint)
	}
	if !slices.Contains(itemKinds(r.Items), "system") {
		t.Fatal("no system item for the unknown item type")
	}
}

func TestMalformed(t *testing.T) {
	for _, bad := range []string{
		`[SandboxDebug] stdout noise`,
		`{"method":"item/agentMessage/delta","params":{"itemId":1}}`,
		`{"method":"turn/completed","params":{"threadId":"th-1","turn":{"id":"tu-1"}}}`,
		`{"id":true,"result":{}}`,
		`{"method":"item/started","params":{"item":{"type":"agentMessage"}}}`,
	} {
		in := slices.Clone(sSession[:9])
		in = append(in, bad)
		in = append(in, sSession[9:]...)
		r := mustRun(t, "", lines(in...), streaming, Outcome{})
		if cp := r.Response.Checkpoint; cp == nil || cp.Valid || r.Response.Metadata[MetaCheckpoint] != "malformed protocol" {
			t.Fatalf("%s: checkpoint %+v %v", bad, cp, r.Response.Metadata)
		}
		if r.Response.Output != "Hello" {
			t.Fatalf("%s: parsing did not go on", bad)
		}
	}
	// A line over the limit, through FeedError.
	sink := &adaptertest.RecordingSink{}
	p := New(sink, streaming)
	feedAll(t, p.Feed, lines(sSession[:9]...))
	if err := p.FeedError(&jsonrpc.MessageError{Line: 3, Offset: 9, Err: jsonrpc.ErrLineTooLong}); err != nil {
		t.Fatal(err)
	}
	feedAll(t, p.Feed, lines(sSession[9:]...))
	resp, err := p.Finish(Outcome{})
	if err != nil || resp.Checkpoint.Valid || resp.Metadata[MetaMalformed] != "1" {
		t.Fatalf("%v %+v", err, resp.Metadata)
	}
}

func TestErrorResponse(t *testing.T) {
	in := lines(sInit, `{"id":1,"error":{"code":-32600,"message":"Invalid request: unknown variant"}}`)
	r := mustRun(t, sStdin, in, streaming, Outcome{})
	f := r.Response.Failure
	if f == nil || f.Message != "thread/start: Invalid request: unknown variant" {
		t.Fatalf("failure %+v", f)
	}
	if r.Response.Checkpoint != nil {
		t.Fatalf("checkpoint without a thread: %+v", r.Response.Checkpoint)
	}
}

func TestRetryErrorIsNotTerminal(t *testing.T) {
	in := slices.Clone(sSession[:8])
	in = append(in,
		`{"method":"error","params":{"error":{"message":"Reconnecting... 1/1","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":null}}},"willRetry":true,"threadId":"th-1","turnId":"tu-1"}}`,
		`{"method":"item/started","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"agentMessage","id":"m2","text":""}}}`,
		`{"method":"item/completed","params":{"threadId":"th-1","turnId":"tu-1","item":{"type":"agentMessage","id":"m2","text":"Hello"}}}`,
		sDone)
	r := mustRun(t, "", lines(in...), streaming, Outcome{})
	if r.Response.Failure != nil || !r.Response.Checkpoint.Valid {
		t.Fatalf("%+v", r.Response)
	}
	// m1 got a delta and never completed: closed before the terminal.
	k := kinds(r.Payloads)
	if i, j := slices.Index(k, "text.end:m1"), slices.Index(k, "run.finished"); i < 0 || i > j {
		t.Fatalf("m1 not closed before the terminal: %v", k)
	}
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptSystem && it.Metadata["will_retry"] == "true" && it.Metadata["code"] == "responseStreamDisconnected" {
			return
		}
	}
	t.Fatal("retry notice not kept")
}

func TestBatchAndDuplicates(t *testing.T) {
	in := slices.Clone(sSession[:6])
	in = append(in, "["+sMsgStart+","+sDelta1+"]", sMsgDone, sMsgDone, sDone, sDone)
	r := mustRun(t, "", lines(in...), streaming, Outcome{})
	if r.Response.Metadata[MetaMalformed] != "2" || r.Response.Checkpoint.Valid {
		t.Fatalf("%v", r.Response.Metadata)
	}
}

func TestFinishTwice(t *testing.T) {
	p := New(&adaptertest.RecordingSink{}, streaming)
	if _, err := p.Finish(Outcome{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Finish(Outcome{}); !errors.Is(err, ErrFinished) {
		t.Fatal(err)
	}
	if err := p.Feed(jsonrpc.Frame{}); !errors.Is(err, ErrFinished) {
		t.Fatal(err)
	}
}

func TestEncoders(t *testing.T) {
	var b []byte
	var err error
	step := func(nb []byte, e error) {
		if e != nil {
			t.Fatal(e)
		}
		b, err = nb, e
	}
	step(AppendInitialize(b, jsonrpc.IntID(0), ClientInfo{Name: "agentwire", Version: "1"}, nil))
	step(AppendInitialized(b))
	step(AppendThreadStart(b, jsonrpc.IntID(1), map[string]any{"approvalPolicy": "untrusted"}))
	step(AppendThreadResume(b, jsonrpc.IntID(2), "th-1", nil))
	step(AppendTurnStart(b, jsonrpc.IntID(3), "th-1", "hi", nil))
	step(AppendTurnInterrupt(b, jsonrpc.IntID(4), "th-1", "tu-1"))
	step(AppendDecision(b, jsonrpc.IntID(0), "decline"))
	step(AppendErrorResponse(b, jsonrpc.StringIDOf("r"), -32601, "method not found"))
	_ = err
	want := `{"id":0,"method":"initialize","params":{"clientInfo":{"name":"agentwire","version":"1"}}}
{"method":"initialized"}
{"id":1,"method":"thread/start","params":{"approvalPolicy":"untrusted"}}
{"id":2,"method":"thread/resume","params":{"threadId":"th-1"}}
{"id":3,"method":"turn/start","params":{"input":[{"text":"hi","type":"text"}],"threadId":"th-1"}}
{"id":4,"method":"turn/interrupt","params":{"threadId":"th-1","turnId":"tu-1"}}
{"id":0,"result":{"decision":"decline"}}
{"id":"r","error":{"code":-32601,"message":"method not found"}}
`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
}

func TestCodec(t *testing.T) {
	st := &driver.SessionState{ResumeID: "th-1", DisplayID: "th-1", Data: map[string]string{driver.ParamCWD: "/w"}}
	p := Codec.ToParams(st)
	if d := cmp.Diff(st, Codec.FromParams(p)); d != "" {
		t.Fatal(d)
	}
	g := Codec.GuardFingerprint(p)
	if len(g) != 64 || g != Codec.GuardFingerprint(p) {
		t.Fatal(g)
	}
	p2 := Codec.ToParams(&driver.SessionState{ResumeID: "th-1", Data: map[string]string{driver.ParamCWD: ""}})
	if Codec.GuardFingerprint(p2) == g || Codec.GuardFingerprint(driver.SessionParams{}) != "" || Codec.FromParams(driver.SessionParams{}) != nil {
		t.Fatal("guard does not separate states")
	}
	if v := adaptertest.CheckResponse(driver.Response{Checkpoint: &driver.Checkpoint{State: st, Valid: true}, RawStreams: &driver.RawStreams{Terminal: &driver.TerminalPayload{Event: TerminalEvent, JSON: []byte(sDone)}}}, nil, Codec); len(v) > 0 {
		t.Fatal(v)
	}
}

func TestPendingTurnStart(t *testing.T) {
	stdin := sStdin + `{"method":"turn/start","id":3,"params":{"threadId":"th-1","input":[{"type":"text","text":"again"}]}}` + "\n"
	r := mustRun(t, stdin, lines(sSession...), streaming, Outcome{})
	if f := r.Response.Failure; f == nil || !strings.Contains(f.Message, "turn/start (id 3) got no response") || r.Response.Checkpoint.Valid {
		t.Fatalf("failure %+v", f)
	}
}

// legacyTokens is a 0.58.0 codex/event/token_count with the given thread
// total and last call (input tokens; output is a tenth).
func legacyTokens(conv string, total, last int) string {
	if total < 0 {
		return `{"method":"codex/event/token_count","params":{"id":"0","msg":{"type":"token_count","info":null,"rate_limits":{"primary":null,"secondary":null}},"conversationId":"` + conv + `"}}`
	}
	return fmt.Sprintf(`{"method":"codex/event/token_count","params":{"id":"0","msg":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d},"last_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d}}},"conversationId":%q}}`,
		total, total/10, total+total/10, last, last/10, last+last/10, conv)
}

// TestLegacyTokenCount: builds before thread/tokenUsage/updated (0.58.0)
// report usage only in codex/event/token_count; it is mapped the same way,
// never counted twice beside the v2 notification, and a turn's re-report
// of the previous call (0.58.0 repeats it when a turn begins) is not a new
// call.
func TestLegacyTokenCount(t *testing.T) {
	head := []string{sInit, sThreadResp, sThreadStd, sTurnResp, sTurnStd}
	for _, c := range []struct {
		name  string
		lines []string
		want  *driver.Usage
	}{
		{"legacy only", []string{legacyTokens("th-1", -1, 0), legacyTokens("th-1", 1000, 100), legacyTokens("th-1", 1100, 100), sMsgDone, sDone},
			&driver.Usage{InputTokens: 200, OutputTokens: 20}},
		{"re-report at turn start", []string{legacyTokens("th-1", 1000, 100), legacyTokens("th-1", 1000, 100), legacyTokens("th-1", 1100, 100), sDone},
			&driver.Usage{InputTokens: 200, OutputTokens: 20}},
		{"other conversation ignored", []string{legacyTokens("th-9", 5000, 100), legacyTokens("th-1", 1000, 100), sDone},
			&driver.Usage{InputTokens: 100, OutputTokens: 10}},
		{"v2 wins over legacy", []string{legacyTokens("th-1", 1000, 100), sUsage, legacyTokens("th-1", 1100, 100), sDone},
			&driver.Usage{InputTokens: 100, CachedInputTokens: 40, OutputTokens: 10}},
		{"info null only", []string{legacyTokens("th-1", -1, 0), sDone}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustRun(t, sStdin, lines(append(head, c.lines...)...), streaming, Outcome{})
			if d := cmp.Diff(c.want, r.Response.Usage); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
			n := parsertest.Counts(r.Payloads)["appserver/codex/event/token_count"]
			if want := strings.Count(strings.Join(c.lines, "\n"), "codex/event/token_count"); n != want {
				t.Errorf("%d token_count custom payloads, want %d (every one kept)", n, want)
			}
		})
	}
}

// TestHeldBounded: at most maxHeld custom payloads wait for run.started. A
// session whose notices outnumber that starts the run without ids at the
// bound, keeps every payload in order, and still reports the thread in
// the Response and the checkpoint.
func TestHeldBounded(t *testing.T) {
	notice := func(i int) string {
		return `{"method":"account/rateLimits/updated","params":{"n":` + fmt.Sprint(i) + `}}`
	}
	for _, n := range []int{maxHeld, maxHeld + 1, 3 * maxHeld} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			in := []string{sInit}
			for i := range n {
				in = append(in, notice(i))
			}
			in = append(in, sSession[2:]...)
			r := mustRun(t, sStdin, lines(in...), streaming, Outcome{})
			var got []string
			for _, p := range r.Payloads {
				if p.Kind == "appserver/account/rateLimits/updated" {
					got = append(got, fmt.Sprintf("%s", p.Raw["params"]))
				}
			}
			if len(got) != n {
				t.Fatalf("%d notices, want %d", len(got), n)
			}
			for i, g := range got {
				if want := fmt.Sprintf(`{"n":%d}`, i); g != want {
					t.Fatalf("notice %d: params %s, want %s", i, g, want)
				}
			}
			first := r.Payloads[0]
			if n <= maxHeld && (first.ThreadID != "th-1" || first.TurnID != "tu-1") {
				t.Errorf("run.started coordinates %+v, want th-1 and tu-1", first)
			}
			if n > maxHeld && (first.ThreadID != "" || first.TurnID != "") {
				t.Errorf("run.started coordinates %+v, want none (started at the bound)", first)
			}
			if cp := r.Response.Checkpoint; cp == nil || !cp.Valid || cp.State.ResumeID != "th-1" {
				t.Fatalf("checkpoint %+v", cp)
			}
		})
	}
}

// TestRepeatedNotification: a notification whose bytes are those of the
// frame just before it (repeatCustom's path) is handled as the same
// notification with other bytes: a stream of repeats gives what the same
// stream gives with every other line respaced (no two consecutive lines
// equal, so every line is read), whatever came between the runs (a
// thread adopted, a turn started, another thread's notifications, a
// legacy terminal the pairs count).
func TestRepeatedNotification(t *testing.T) {
	unknownT2 := `{"method":"x/new","params":{"threadId":"t2","n":1}}`
	unknown := `{"method":"x/new","params":{"threadId":"t","n":1}}`
	rate := `{"method":"account/rateLimits/updated","params":{"rateLimits":{"primary":null}}}`
	other := `{"method":"thread/status/changed","params":{"threadId":"other","status":{"type":"idle"}}}`
	task := `{"method":"codex/event/task_complete","params":{"conversationId":"t"}}`
	var in []string
	rep := func(l string, n int) {
		for range n {
			in = append(in, l)
		}
	}
	rep(unknownT2, 2)
	rep(rate, 3)
	in = append(in, `{"id":1,"result":{"thread":{"id":"t"}}}`)
	rep(unknownT2, 2)
	in = append(in, `{"method":"turn/started","params":{"threadId":"t","turn":{"id":"u","status":"inProgress"}}}`)
	rep(rate, 3)
	rep(other, 2)
	rep(unknown, 3)
	in = append(in, `{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"commandExecution","id":"c","command":"ls","status":"inProgress"}}}`)
	rep(task, 2)
	rep(rate, 2)
	in = append(in, `{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"u","status":"completed"}}}`)
	rep(rate, 2)
	respaced := slices.Clone(in)
	for i := 1; i < len(respaced); i += 2 {
		respaced[i] = "{ " + respaced[i][1:]
	}
	type outcome struct {
		payloads []driver.StreamPayload
		items    []driver.TranscriptItem
		meta     map[string]string
		unpaired []string
	}
	parse := func(ls []string) outcome {
		var o outcome
		opts := Options{Streaming: true, Unpaired: func(_ int64, line int, msg string) { o.unpaired = append(o.unpaired, fmt.Sprint(line, " ", msg)) }}
		r, v := run("", lines(ls...), "", opts, Outcome{}, nil)
		if len(v) > 0 {
			t.Fatalf("violations:\n%s", v)
		}
		o.payloads, o.items, o.meta = r.Payloads, r.Items, r.Response.Metadata
		return o
	}
	got, want := parse(in), parse(respaced)
	if d := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); d != "" {
		t.Fatalf("repeats (-respaced +repeated):\n%s", d)
	}
	if want.meta[MetaUnknown] != "5" || want.meta[MetaOther] != "4" || len(want.unpaired) != 1 {
		t.Fatalf("metadata %v unpaired %q", want.meta, want.unpaired)
	}
}

// TestCustomMemo: a custom notification whose method and params bytes are
// those of an earlier one of its method gets that one's Raw (the same
// read-only map), whatever came between and whatever its other members;
// other params get their own; the memo keeps at most maxCustomMethods
// methods, and the payloads are right past it.
func TestCustomMemo(t *testing.T) {
	rate := func(at int, primary string) string {
		return fmt.Sprintf(`{"method":"account/rateLimits/updated","params":{"rateLimits":{"primary":%s}},"emittedAtMs":%d}`, primary, at)
	}
	in := []string{sInit, sThreadResp, sTurnResp, rate(1, "null"), `{"method":"thread/status/changed","params":{"threadId":"th-1","status":{"type":"idle"}}}`,
		rate(2, "null"), rate(3, "1"), rate(4, "null")}
	for i := range maxCustomMethods + 4 {
		in = append(in, fmt.Sprintf(`{"method":"x/m%d","params":{"n":%d}}`, i, i))
	}
	in = append(in, rate(5, "null"))
	var raws []map[string]any
	sink := &adaptertest.RecordingSink{}
	p := New(sink, Options{Streaming: true})
	r := jsonrpc.NewReader(strings.NewReader(lines(in...)), jsonrpc.Options{})
	parsertest.FeedAll(t, r.Next, p.Feed)
	if len(p.customs) > maxCustomMethods {
		t.Fatalf("%d methods kept", len(p.customs))
	}
	if _, err := p.Finish(Outcome{}); err != nil {
		t.Fatal(err)
	}
	for _, pl := range sink.Payloads {
		if pl.Kind == "appserver/account/rateLimits/updated" {
			raws = append(raws, pl.Raw)
		}
	}
	same := func(a, b map[string]any) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	// The memo holds a method's last params: the fourth is new again; the
	// methods past the bound turn over the last entry, not this one.
	if len(raws) != 5 || !same(raws[0], raws[1]) || same(raws[1], raws[2]) || same(raws[2], raws[3]) || !same(raws[3], raws[4]) {
		t.Fatalf("rateLimits Raws %v", raws)
	}
	for i, raw := range raws {
		want := `{"rateLimits":{"primary":null}}`
		if i == 2 {
			want = `{"rateLimits":{"primary":1}}`
		}
		if got := string(raw["params"].(json.RawMessage)); got != want || raw["method"] != "account/rateLimits/updated" {
			t.Errorf("payload %d: Raw %v", i, raw)
		}
	}
	var n int
	for _, pl := range sink.Payloads {
		if strings.HasPrefix(string(pl.Kind), "appserver/x/m") {
			if want := fmt.Sprintf(`{"n":%d}`, n); string(pl.Raw["params"].(json.RawMessage)) != want || pl.Raw["method"] != fmt.Sprintf("x/m%d", n) {
				t.Errorf("x/m%d: Raw %v", n, pl.Raw)
			}
			n++
		}
	}
	if n != maxCustomMethods+4 {
		t.Fatalf("%d x/m payloads", n)
	}
}

// TestOpenItemsPerTurn: an item a turn leaves open is closed at that
// turn's end, once; one the next turn leaves open, at Finish (closeItems
// visits the items made since it last ran).
func TestOpenItemsPerTurn(t *testing.T) {
	turn2 := func(l string) string {
		return strings.ReplaceAll(strings.ReplaceAll(l, "tu-1", "tu-2"), `"m1"`, `"m2"`)
	}
	in := []string{sInit, sThreadResp, sTurnResp, sTurnStd, sMsgStart, sDelta1, sInterr,
		turn2(sTurnStd), turn2(sMsgStart), turn2(sDelta1)}
	r := mustRun(t, "", lines(in...), streaming, Outcome{})
	var ends []string
	for _, k := range kinds(r.Payloads) {
		if strings.HasPrefix(k, "text.end") || strings.HasPrefix(k, "step.finished") {
			ends = append(ends, k)
		}
	}
	want := []string{"text.end:m1", "step.finished:turn", "text.end:m2", "step.finished:turn"}
	if d := cmp.Diff(want, ends); d != "" {
		t.Fatalf("ends (-want +got):\n%s", d)
	}
}
