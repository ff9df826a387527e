package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/sessioncodec"
	"github.com/agentwire/agentwire/ndjson"
)

func canUseL(id, tool, input string) string {
	return `{"type":"control_request","request_id":"` + id + `","request":{"subtype":"can_use_tool","tool_name":"` + tool +
		`","input":` + input + `,"tool_use_id":"tu_` + id + `","description":"d","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"localSettings"}],"blocked_path":"/w/x"}}`
}

func TestEncoders(t *testing.T) {
	allow, err := EncodeAllow("r1", json.RawMessage(` {"command":"ls <x>"} `))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ got, want string }{
		{string(EncodeUserMessage("", "hi \"there\"")), `{"type":"user","message":{"role":"user","content":"hi \"there\""},"parent_tool_use_id":null,"session_id":""}` + "\n"},
		{string(allow), `{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","updatedInput":{"command":"ls <x>"}}}}` + "\n"},
		{string(EncodeDeny("r2", "no", false)), `{"type":"control_response","response":{"subtype":"success","request_id":"r2","response":{"behavior":"deny","message":"no"}}}` + "\n"},
		{string(EncodeDeny("r2", "stop", true)), `{"type":"control_response","response":{"subtype":"success","request_id":"r2","response":{"behavior":"deny","message":"stop","interrupt":true}}}` + "\n"},
		{string(EncodeControlError("r3", "nope")), `{"type":"control_response","response":{"subtype":"error","request_id":"r3","error":"nope"}}` + "\n"},
		{string(EncodeInterrupt("req_2")), `{"type":"control_request","request_id":"req_2","request":{"subtype":"interrupt"}}` + "\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	// The recorder's own stdin lines: our encoders reproduce them exactly.
	in, err := EncodeInitialize("req_1_agentwire", nil)
	if err != nil || string(in) != `{"type":"control_request","request_id":"req_1_agentwire","request":{"subtype":"initialize","hooks":null}}`+"\n" {
		t.Errorf("initialize %s %v", in, err)
	}
	if b, err := EncodeInitialize("r", json.RawMessage(`{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"]}]}`)); err != nil || !strings.Contains(string(b), `"hooks":{"PreToolUse"`) {
		t.Errorf("initialize with hooks %s %v", b, err)
	}
	for _, bad := range []string{``, `[1]`, `"s"`, `{"a":`} {
		if _, err := EncodeAllow("r", json.RawMessage(bad)); err == nil {
			t.Errorf("EncodeAllow accepted %q", bad)
		}
	}
	if _, err := EncodeInitialize("r", json.RawMessage(`[1]`)); err == nil {
		t.Error("EncodeInitialize accepted an array")
	}
	if _, err := EncodeUserContent("", json.RawMessage(`{"x":1}`)); err == nil {
		t.Error("EncodeUserContent accepted an object")
	}
	if b, err := EncodeUserContent("s", json.RawMessage(`[{"type":"text","text":"x"}]`)); err != nil || !strings.Contains(string(b), `"content":[{"type":"text","text":"x"}]`) {
		t.Errorf("EncodeUserContent %s %v", b, err)
	}
	// Every encoder output is one line of valid JSON.
	for _, b := range [][]byte{allow, in, EncodeInterrupt("x"), EncodeDeny("x", "\n", true), EncodeUserMessage("s", "a\nb")} {
		if bytes.Count(b, []byte("\n")) != 1 || !json.Valid(b) {
			t.Errorf("not one JSON line: %q", b)
		}
	}
}

// TestRecorderStdin: the corpus stdin answers equal what our encoders
// write for the same decisions.
func TestRecorderStdin(t *testing.T) {
	dir := filepath.Join(corpusDir, "claude-code@2.1.328", "control-allow")
	stdout, err1 := os.ReadFile(filepath.Join(dir, "stdout"))
	stdin, err2 := os.ReadFile(filepath.Join(dir, "stdin"))
	if err1 != nil || err2 != nil {
		t.Skip("corpus case control-allow not present")
	}
	var req *ControlRequest
	for _, f := range frames(stdout) {
		if cr, err := DecodeControlRequest(f.Data); err == nil {
			req = cr
		}
	}
	if req == nil || req.Permission == nil || req.Permission.ToolName != "Bash" || len(req.Permission.Suggestions) != 3 {
		t.Fatalf("decoded %+v", req)
	}
	line, err := req.Answer(driver.DecisionResponse{Result: driver.DecisionApproved})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(stdin), "\n")
	if lines[2] != string(line) {
		t.Errorf("answer differs from the recorded one:\n got %s\nwant %s", line, lines[2])
	}
	init, _ := EncodeInitialize("req_1_agentwire", nil)
	if lines[0] != string(init) {
		t.Errorf("initialize differs:\n got %s\nwant %s", init, lines[0])
	}
}

func TestControlRequests(t *testing.T) {
	t.Run("resolve", func(t *testing.T) {
		sink := &adaptertest.RecordingSink{}
		opts := Options{Streaming: true, ControlProtocol: true}
		p := New(sink, opts)
		fs := frames(stream(initL(), asstL("", "m1", toolB("tu_r1", "Bash", `{"command":"ls"}`)),
			canUseL("r1", "Bash", `{"command":"ls"}`), canUseL("r2", "Write", `{"file_path":"/x"}`),
			`{"type":"control_cancel_request","request_id":"r2"}`,
			`{"type":"control_request","request_id":"r3","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{},"tool_use_id":null}}`,
			`{"type":"control_request","request_id":"r4","request":{"subtype":"mcp_message","server_name":"s","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}}`,
			`{"type":"control_request","request_id":"r5","request":{"subtype":"teleport"}}`,
		))
		for _, f := range fs {
			if err := p.Feed(f); err != nil {
				t.Fatal(err)
			}
		}
		pend := p.PendingRequests()
		if len(pend) != 4 || pend[0].RequestID != "r1" || pend[1].Hook == nil || pend[2].MCP == nil || pend[3].Subtype != "teleport" {
			t.Fatalf("pending %+v", pend)
		}
		dr := pend[0].DecisionRequest()
		if dr.Kind != driver.HumanDecisionPermission || dr.Source != "claude.can_use_tool" || dr.ToolCallID != "tu_r1" ||
			dr.Prompt != "Allow Claude to use Bash? (d)" || dr.Payload["request_id"] != "r1" || dr.Payload["blocked_path"] != "/w/x" || dr.RequestID != "" {
			t.Errorf("decision request %+v", dr)
		}
		line, err := p.Resolve("r1", driver.DecisionResponse{Result: driver.DecisionApproved, Answer: map[string]any{"command": "ls -l"}})
		if err != nil || string(line) != `{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","updatedInput":{"command":"ls -l"}}}}`+"\n" {
			t.Fatalf("Resolve: %s %v", line, err)
		}
		if _, err := p.Resolve("r1", driver.DecisionResponse{}); !errors.Is(err, ErrUnknownRequest) {
			t.Errorf("second Resolve: %v", err)
		}
		if _, err := p.Resolve("r2", driver.DecisionResponse{}); !errors.Is(err, ErrUnknownRequest) {
			t.Errorf("Resolve of a cancelled request: %v", err)
		}
		line, _ = p.Resolve("r3", driver.DecisionResponse{Result: driver.DecisionApproved})
		if !strings.Contains(string(line), `"subtype":"error","request_id":"r3"`) {
			t.Errorf("hook callback answer %s", line)
		}
		for _, f := range frames(stream(okL("x"))) {
			_ = p.Feed(f)
		}
		resp, err := p.Finish(Outcome{})
		if v := sink.Check(true, p.Capability(), resp, err, Codec); len(v) > 0 {
			t.Fatal(v)
		}
		var hitl []string
		for _, pl := range sink.Payloads {
			switch pl.Kind {
			case driver.StreamHITLRequested:
				hitl = append(hitl, "req:"+pl.HITLRequested.RequestID)
			case driver.StreamHITLResolved:
				hitl = append(hitl, "res:"+pl.HITLResolved.RequestID+":"+string(pl.HITLResolved.Result))
			}
		}
		want := "req:r1 req:r2 res:r2:aborted res:r1:approved" // hook and MCP callbacks are not human decisions
		if strings.Join(hitl, " ") != want {
			t.Errorf("hitl payloads\n got %s\nwant %s", strings.Join(hitl, " "), want)
		}
		if !resp.Checkpoint.Valid {
			t.Errorf("control traffic does not poison the checkpoint: %v", resp.Metadata)
		}
	})
	t.Run("kinds", func(t *testing.T) {
		r := do(t, Options{ControlProtocol: true}, Outcome{}, initL(),
			canUseL("q", "AskUserQuestion", `{"questions":[{"question":"Which DB?","header":"DB","options":[{"label":"pg","description":"Postgres"},{"label":"sqlite"}]}]}`),
			canUseL("p", "ExitPlanMode", `{"plan":"1. do it"}`), okL("x"))
		q, pl := r.Items[1], r.Items[2]
		if q.Kind != driver.TranscriptQuestion || q.Text != "Which DB?" || len(q.Data["choices"].([]driver.DecisionChoice)) != 2 {
			t.Errorf("question item %+v", q)
		}
		if pl.Kind != driver.TranscriptSystem || pl.Text != "1. do it" {
			t.Errorf("plan item %+v", pl)
		}
		var kinds []driver.HumanDecisionKind
		for _, p := range r.Payloads {
			if p.HITLRequested != nil {
				kinds = append(kinds, p.HITLRequested.Kind)
			}
		}
		if len(kinds) != 2 || kinds[0] != driver.HumanDecisionQuestion || kinds[1] != driver.HumanDecisionPlanReview {
			t.Errorf("kinds %v", kinds)
		}
	})
	t.Run("deny answers", func(t *testing.T) {
		cr, err := DecodeControlRequest([]byte(canUseL("d", "Bash", `{}`)))
		if err != nil {
			t.Fatal(err)
		}
		for res, want := range map[driver.DecisionResult]string{
			driver.DecisionRejected: `"behavior":"deny","message":"The user denied this tool call."}`,
			driver.DecisionTimedOut: `"behavior":"deny","message":"The user denied this tool call."}`,
			driver.DecisionAborted:  `"behavior":"deny","message":"The user denied this tool call.","interrupt":true}`,
		} {
			b, _ := cr.Answer(driver.DecisionResponse{Result: res})
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: %s", res, b)
			}
		}
		noInput, _ := DecodeControlRequest([]byte(`{"type":"control_request","request_id":"n","request":{"subtype":"can_use_tool","tool_name":"X"}}`))
		if b, err := noInput.Answer(driver.DecisionResponse{Result: driver.DecisionApproved}); err != nil || !strings.Contains(string(b), `"updatedInput":{}`) {
			t.Errorf("allow without input: %s %v", b, err)
		}
		if _, err := DecodeControlRequest([]byte(okL("x"))); !errors.Is(err, ErrNotControlRequest) {
			t.Errorf("not a control request: %v", err)
		}
		if _, err := DecodeControlRequest([]byte(`{"type":"control_request","request":{"subtype":"can_use_tool"}}`)); err == nil {
			t.Error("a request without id decoded")
		}
	})
	t.Run("without the control protocol", func(t *testing.T) {
		r := do(t, Options{}, Outcome{}, initL(), canUseL("r1", "Bash", `{}`), okL("x"))
		wantKinds(t, kinds(r), "run.started", "claude/control_request", "run.finished")
	})
	t.Run("malformed control lines", func(t *testing.T) {
		r := do(t, Options{ControlProtocol: true}, Outcome{}, initL(), `{"type":"control_request","request_id":"x","request":[1]}`,
			`{"type":"control_response"}`, okL("x"))
		if valid(r) || r.Response.Metadata[MetaMalformed] != "2" {
			t.Errorf("metadata %v", r.Response.Metadata)
		}
	})
	t.Run("FeedInput", func(t *testing.T) {
		sink := &adaptertest.RecordingSink{}
		p := New(sink, Options{Streaming: true, ControlProtocol: true})
		for _, f := range frames(stream(initL(), canUseL("a", "Bash", `{}`), canUseL("b", "Bash", `{}`), canUseL("c", "Bash", `{}`))) {
			_ = p.Feed(f)
		}
		host := stream(string(EncodeUserMessage("", "x")), strings.TrimSpace(string(EncodeDeny("a", "no", false))),
			strings.TrimSpace(string(EncodeControlError("b", "x"))), `not json`, `{"type":"control_response","response":{"subtype":"success","request_id":"zz"}}`)
		for _, f := range frames(host) {
			if err := p.FeedInput(f); err != nil {
				t.Fatal(err)
			}
		}
		if pend := p.PendingRequests(); len(pend) != 1 || pend[0].RequestID != "c" {
			t.Errorf("pending %+v", pend)
		}
		var res []driver.DecisionResult
		for _, pl := range sink.Payloads {
			if pl.HITLResolved != nil {
				res = append(res, pl.HITLResolved.Result)
			}
		}
		if len(res) != 2 || res[0] != driver.DecisionRejected || res[1] != driver.DecisionAborted {
			t.Errorf("resolutions %v", res)
		}
		resp, err := p.Finish(Outcome{})
		if err != nil {
			t.Fatal(err)
		}
		if v := sink.Check(true, p.Capability(), resp, err, Codec); len(v) > 0 {
			t.Fatal(v)
		}
		if err := p.FeedInput(frames(host)[0]); !errors.Is(err, ErrFinished) {
			t.Errorf("FeedInput after Finish: %v", err)
		}
		if _, err := p.Resolve("c", driver.DecisionResponse{}); !errors.Is(err, ErrFinished) {
			t.Errorf("Resolve after Finish: %v", err)
		}
	})
}

func TestCodec(t *testing.T) {
	if Codec.Name() != "claude/v1" {
		t.Errorf("name %q", Codec.Name())
	}
	if !Codec.ToParams(nil).IsZero() || Codec.FromParams(driver.SessionParams{}) != nil {
		t.Error("nil and zero mapping")
	}
	st := &driver.SessionState{ResumeID: "s", DisplayID: "d", Data: map[string]string{"cwd": "/a", "other": "x"}}
	p := Codec.ToParams(st)
	back := Codec.FromParams(p)
	if back.ResumeID != "s" || back.DisplayID != "d" || back.Data["other"] != "x" || !sessioncodec.Accepts(Codec, st) {
		t.Errorf("round trip %+v", back)
	}
	if !sessioncodec.Accepts(Codec, &driver.SessionState{ResumeID: "s"}) || sessioncodec.Accepts(Codec, &driver.SessionState{}) || sessioncodec.Accepts(Codec, nil) {
		t.Error("sessioncodec.Accepts")
	}
	g := func(vals map[string]string) string {
		return Codec.GuardFingerprint(driver.SessionParams{ResumeID: "s", Values: vals})
	}
	base := g(map[string]string{"cwd": "/a"})
	if len(base) != 64 || base != g(map[string]string{"cwd": "/a", "unrelated": "z"}) {
		t.Errorf("guard %q ignores only non-guard keys", base)
	}
	distinct := map[string]bool{base: true}
	for _, v := range []map[string]string{nil, {"cwd": ""}, {"cwd": "/b"}, {"cwd": "/a", "workspace_id": "w"},
		{"cwd": "/a", "profile_fingerprint": "p"}, {"workspace_id": "/a"}, {"cwd": "/a\x00workspace_id=1:w"}} {
		if distinct[g(v)] {
			t.Errorf("guard collision for %v", v)
		}
		distinct[g(v)] = true
	}
	if Codec.GuardFingerprint(driver.SessionParams{Values: map[string]string{"cwd": "/a"}}) != "" {
		t.Error("guard of params without a resume id")
	}
	if v := adaptertest.CheckResponse(driver.Response{Checkpoint: &driver.Checkpoint{State: st, Valid: true},
		RawStreams: &driver.RawStreams{Terminal: &driver.TerminalPayload{Event: "result", JSON: json.RawMessage(`{}`)}}}, nil, Codec); len(v) > 0 {
		t.Error(v)
	}
}

// TestTruncation cuts every corpus stream at every line boundary and in
// the middle of every line: the validators hold, a checkpoint is valid only
// when the cut keeps the whole success result, and a cut line is malformed.
func TestTruncation(t *testing.T) {
	for _, c := range allCases(t) {
		if len(c.stdout) > 64<<10 {
			continue
		}
		full := replay(t, c, chunkers[0])
		ends := []int{0}
		for i, b := range c.stdout {
			if b == '\n' {
				ends = append(ends, i+1)
			}
		}
		for k, end := range ends {
			cut := c
			cut.stdout = c.stdout[:end]
			r := replay(t, cut, chunkers[0])
			check(t, cut, r)
			earned(t, cut, r)
			if valid(r) && (!valid(full) || !bytes.Contains(cut.stdout, full.Response.RawStreams.Terminal.JSON)) {
				t.Errorf("%s cut at line %d: valid checkpoint", c.name, k)
			}
			if k+1 < len(ends) {
				mid := (end + ends[k+1]) / 2
				cut.stdout = c.stdout[:mid]
				r := replay(t, cut, chunkers[0])
				check(t, cut, r)
				if valid(r) {
					t.Errorf("%s cut inside line %d: valid checkpoint", c.name, k+1)
				}
			}
		}
	}
}

// TestBigLines: a 1 MB tool result parses whole under every chunking; a
// line over the reader's limit is a framing error that poisons the
// checkpoint and parsing goes on.
func TestBigLines(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	r := do(t, Options{PartialMessages: true}, Outcome{}, initL(), asstL("", "m1", toolB("t1", "Read", `{"file_path":"/big"}`)),
		userResultL("", "t1", big, false), asstL("", "m2", textB("read it")), okL("read it"))
	if it := r.Items[2]; it.Kind != driver.TranscriptToolResult || it.Text != big {
		t.Fatalf("tool result item of %d bytes", len(it.Text))
	}
	var res string
	for _, p := range r.Payloads {
		if p.Kind == driver.StreamToolCallResult {
			res, _ = p.Result["content"].(string)
		}
	}
	if res != big || !valid(r) {
		t.Fatalf("tool_call.result of %d bytes, valid %v", len(res), valid(r))
	}

	in := stream(initL(), userResultL("", "t1", big, false), okL("x"))
	sink := &adaptertest.RecordingSink{}
	p := New(sink, Options{Streaming: true})
	rd := ndjson.NewReader(bytes.NewReader(in), ndjson.Options{MaxLineSize: 64 << 10})
	var lineErrs int
	for {
		f, err := rd.Next()
		if err != nil {
			var le *ndjson.LineError
			if !errors.As(err, &le) {
				break
			}
			lineErrs++
			if err := p.FeedError(err); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := p.Feed(f); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := p.Finish(Outcome{})
	if v := sink.Check(true, p.Capability(), resp, err, Codec); len(v) > 0 {
		t.Fatal(v)
	}
	if lineErrs != 1 || resp.Checkpoint.Valid || resp.Output != "x" || !strings.Contains(resp.Metadata[MetaProblem], "line too long") {
		t.Fatalf("line errors %d, response %+v", lineErrs, resp)
	}
	if err := p.FeedError(errors.New("x")); !errors.Is(err, ErrFinished) {
		t.Errorf("FeedError after Finish: %v", err)
	}
}

// TestPrettyMessages feeds the public pretty-printed single messages
// (real 2.1.3/2.1.4 values) as one compact line each.
func TestPrettyMessages(t *testing.T) {
	load := func(name string) string {
		b, err := os.ReadFile(filepath.Join(publicDir, name))
		if err != nil {
			t.Skip("public captures not present")
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		return c.String()
	}
	initLine := load("gleam-system-init-2.1.3.pretty.json")
	user := load("gleam-user-tool-result.pretty.json")
	result := load("gleam-result-success.pretty.json")
	r := do(t, Options{}, Outcome{}, initLine, user, result)
	wantKinds(t, itemKinds(r), "init", "tool_result", "result")
	if it := r.Items[0]; it.Model != "claude-opus-4-5-20251101" || it.Metadata["claude_code_version"] != "2.1.3" || it.SessionID != "40e7b02d-c0f9-4876-9010-f514d4eb0603" {
		t.Errorf("init %+v", it)
	}
	if it := r.Items[1]; it.ToolUseID != "toolu_01BeipFBP3sUY3EAwVg3qQnE" || !strings.HasPrefix(it.Text, "total 1976") || it.IsError {
		t.Errorf("tool result %+v", it)
	}
	res := r.Items[2]
	if res.Text != "Here are the files in the current directory." || *res.CostUSD != 0.24722425 ||
		*res.Usage != (driver.Usage{InputTokens: 18 + 25067 + 17254, OutputTokens: 424, CachedInputTokens: 17254, CacheWriteInputTokens: 25067}) {
		t.Errorf("result %+v usage %+v", res, res.Usage)
	}
	if mu := res.Data["model_usage"].(map[string]ModelUsage)["claude-opus-4-5-20251101"]; mu.OutputTokens != 765 || mu.ContextWindow != 200000 {
		t.Errorf("model usage %+v", mu)
	}
	if !valid(r) || r.Response.Output != res.Text || string(r.Response.RawStreams.Terminal.JSON) != result {
		t.Errorf("response %+v", r.Response)
	}
}
