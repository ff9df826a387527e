package acp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/acp"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
	"github.com/agentwire/agentwire/drivers/internal/fakecli"
	"github.com/agentwire/agentwire/jsonrpc"
	pacp "github.com/agentwire/agentwire/parsers/acp"
)

func TestMain(m *testing.M) {
	fakecli.Main()
	os.Exit(m.Run())
}

// The fake agent's lines: an agent that speaks ACP as the real ones do
// (shapes from Gemini CLI, Copilot CLI and Qwen Code in ACP mode).
const (
	sessionID  = "sess-1"
	initOK     = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"fake-agent","version":"1"},"authMethods":[],"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false}}}}` + "\n"
	initNoLoad = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false}}}` + "\n"
	sessionOK  = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"` + sessionID + `"}}` + "\n"
	chunks     = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sessionID + `","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello, "}}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sessionID + `","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"world."}}}}` + "\n"
	endTurn   = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}` + "\n"
	cancelled = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}` + "\n"
)

// agentRequest is a request line of the fake agent.
func agentRequest(id, method string, params any) string {
	b, err := jsonrpc.AppendRequest(nil, true, jsonrpc.StringIDOf(id), method, params)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// turn is the script of an agent that answers the handshake and the
// prompt: init is its initialize result, mid what it does between the
// prompt and its answer, end the answer.
func turn(stdinOut, init string, mid []fakecli.Step, end string) fakecli.Script {
	steps := []fakecli.Step{{ReadLine: true}, {Stdout: init}, {ReadLine: true}, {Stdout: sessionOK}, {ReadLine: true}, {Stdout: chunks}}
	steps = append(steps, mid...)
	if end != "" {
		steps = append(steps, fakecli.Step{Stdout: end})
	}
	return fakecli.Script{StdinOut: stdinOut, Steps: append(steps, fakecli.Step{ReadStdin: true})}
}

func fake(t testing.TB, script fakecli.Script, mod ...func(*acp.Config)) *acp.Driver {
	cfg := acp.Config{Command: drvtest.Executable(t), Args: []string{"--acp"}, Env: []string{fakecli.Env(script)}, Grace: 500 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	return acp.New(cfg)
}

// clientLines are the JSON-RPC messages the driver wrote, decoded.
func clientLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("client line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func byMethod(ls []map[string]any, method string) map[string]any {
	for _, l := range ls {
		if l["method"] == method {
			return l
		}
	}
	return nil
}

// answerTo is the driver's answer to the agent request id.
func answerTo(ls []map[string]any, id string) map[string]any {
	for _, l := range ls {
		if l["id"] == id && l["method"] == nil {
			return l
		}
	}
	return nil
}

func path(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func TestHandshake(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	work := t.TempDir()
	req := drvtest.Request("Say hello.")
	req.Workspace.CWD = work
	r := drvtest.Run(t, fake(t, turn(stdin, initOK, nil, endTurn)), req, drvtest.Opts{})
	if r.Err != nil {
		t.Fatalf("err=%v", r.Err)
	}
	ls := clientLines(t, stdin)
	var methods []string
	for _, l := range ls {
		methods = append(methods, l["method"].(string))
	}
	if got := strings.Join(methods, " "); got != "initialize session/new session/prompt" {
		t.Errorf("client methods %q", got)
	}
	init := ls[0]
	if init["jsonrpc"] != "2.0" || init["id"] != float64(0) || path(init, "params", "protocolVersion") != float64(1) {
		t.Errorf("initialize %v", init)
	}
	if path(init, "params", "clientCapabilities", "fs", "readTextFile") != true ||
		path(init, "params", "clientCapabilities", "fs", "writeTextFile") != true ||
		path(init, "params", "clientCapabilities", "terminal") != false {
		t.Errorf("client capabilities %v", path(init, "params", "clientCapabilities"))
	}
	if n := ls[1]; path(n, "params", "cwd") != work || path(n, "params", "mcpServers") == nil {
		t.Errorf("session/new %v", n)
	}
	p := ls[2]
	if path(p, "params", "sessionId") != sessionID {
		t.Errorf("session/prompt %v", p)
	}
	if blocks, _ := path(p, "params", "prompt").([]any); len(blocks) != 1 || path(blocks[0].(map[string]any), "text") != "Say hello." {
		t.Errorf("prompt blocks %v", path(p, "params", "prompt"))
	}
	if term := r.Resp.RawStreams.Terminal; term == nil || term.Event != "session/prompt" || !strings.Contains(string(term.JSON), "end_turn") {
		t.Errorf("terminal %+v", term)
	}
}

func TestNoFS(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	read := agentRequest("r1", "fs/read_text_file", map[string]any{"sessionId": sessionID, "path": filepath.Join(os.TempDir(), "x")})
	d := fake(t, turn(stdin, initOK, []fakecli.Step{{Stdout: read}, {ReadLine: true}}, endTurn), func(c *acp.Config) { c.NoFS = true })
	drvtest.Run(t, d, drvtest.Request("hi"), drvtest.Opts{})
	ls := clientLines(t, stdin)
	if path(ls[0], "params", "clientCapabilities", "fs", "readTextFile") != false {
		t.Errorf("NoFS advertised fs: %v", ls[0])
	}
	if a := answerTo(ls, "r1"); path(a, "error", "code") != float64(-32601) {
		t.Errorf("fs/read_text_file with NoFS answered %v", a)
	}
}

func TestResume(t *testing.T) {
	for _, c := range []struct {
		name, init string
		wantLoad   bool
	}{{"load", initOK, true}, {"no loadSession", initNoLoad, false}} {
		t.Run(c.name, func(t *testing.T) {
			stdin := filepath.Join(t.TempDir(), "stdin")
			req := drvtest.Request("Again.")
			req.Session = &driver.SessionContext{Mode: driver.SessionContinueOnly, State: &driver.SessionState{ResumeID: sessionID}}
			r := drvtest.Run(t, fake(t, turn(stdin, c.init, nil, endTurn)), req, drvtest.Opts{})
			ls := clientLines(t, stdin)
			load := byMethod(ls, "session/load")
			if !c.wantLoad {
				if load != nil || byMethod(ls, "session/prompt") != nil || byMethod(ls, "session/new") != nil {
					t.Errorf("without loadSession the driver went on: %v", ls)
				}
				if r.Err == nil || !strings.Contains(r.Err.Error(), "loadSession") {
					t.Errorf("err %v", r.Err)
				}
				return
			}
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if load == nil || path(load, "params", "sessionId") != sessionID || path(load, "params", "cwd") != os.TempDir() {
				t.Errorf("session/load %v", load)
			}
			if byMethod(ls, "session/new") != nil {
				t.Error("session/new on resume")
			}
			if p := byMethod(ls, "session/prompt"); path(p, "params", "sessionId") != sessionID {
				t.Errorf("prompt %v", p)
			}
		})
	}
}

func TestFSRequests(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	top := t.TempDir()
	work := filepath.Join(top, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "in.txt"), []byte("l1\nl2\nl3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(top, "secret"), filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	reqs := []string{
		agentRequest("r1", "fs/read_text_file", map[string]any{"sessionId": sessionID, "path": filepath.Join(work, "in.txt"), "line": 2, "limit": 1}),
		agentRequest("r2", "fs/write_text_file", map[string]any{"sessionId": sessionID, "path": filepath.Join(work, "out", "new.txt"), "content": "héllo\n"}),
		agentRequest("r3", "fs/read_text_file", map[string]any{"sessionId": sessionID, "path": filepath.Join(work, "..", "secret")}),
		agentRequest("r4", "fs/read_text_file", map[string]any{"sessionId": sessionID, "path": filepath.Join(work, "link")}),
		agentRequest("r5", "fs/write_text_file", map[string]any{"sessionId": sessionID, "path": filepath.Join(work, "link"), "content": "pwned"}),
		agentRequest("r6", "fs/read_text_file", map[string]any{"sessionId": "other", "path": filepath.Join(work, "in.txt")}),
		agentRequest("r7", "terminal/create", map[string]any{"sessionId": sessionID, "command": "true"}),
		agentRequest("r8", "craft/drainMidTurnQueue", map[string]any{"sessionId": sessionID}),
		agentRequest("r9", "fs/write_text_file", map[string]any{"sessionId": sessionID, "path": filepath.Join(work, "x")}),
	}
	var mid []fakecli.Step
	for _, q := range reqs {
		mid = append(mid, fakecli.Step{Stdout: q}, fakecli.Step{ReadLine: true})
	}
	req := drvtest.Request("Edit files.")
	req.Workspace.CWD = work
	r := drvtest.Run(t, fake(t, turn(stdin, initOK, mid, endTurn)), req, drvtest.Opts{})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	ls := clientLines(t, stdin)
	if a := answerTo(ls, "r1"); path(a, "result", "content") != "l2\n" {
		t.Errorf("read answered %v", a)
	}
	if a := answerTo(ls, "r2"); a == nil || a["error"] != nil {
		t.Errorf("write answered %v", a)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "out", "new.txt")); string(b) != "héllo\n" {
		t.Errorf("written file %q", b)
	}
	for id, code := range map[string]float64{"r3": -32602, "r4": -32602, "r5": -32602, "r6": -32602, "r7": -32601, "r8": -32601, "r9": -32602} {
		if a := answerTo(ls, id); path(a, "error", "code") != code {
			t.Errorf("%s answered %v, want error %v", id, a, code)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(top, "secret")); string(b) != "secret" {
		t.Errorf("the file outside the workspace was written: %q", b)
	}
}

func TestPermission(t *testing.T) {
	perm := agentRequest("p1", "session/request_permission", map[string]any{
		"sessionId": sessionID,
		"toolCall":  map[string]any{"toolCallId": "call-1", "title": "Run touch x", "kind": "execute"},
		"options": []map[string]any{
			{"optionId": "proceed_always", "name": "Always allow", "kind": "allow_always"},
			{"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
			{"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
		},
	})
	for _, c := range []struct {
		name    string
		answers []driver.DecisionResponse
		plain   bool // a sink that cannot decide
		want    string
	}{
		{name: "approved", answers: []driver.DecisionResponse{{Result: driver.DecisionApproved}}, want: "proceed_once"},
		{name: "rejected", answers: []driver.DecisionResponse{{Result: driver.DecisionRejected}}, want: "cancel"},
		{name: "sink error", want: "cancel"},
		{name: "no decision sink", plain: true, want: "cancel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdin := filepath.Join(t.TempDir(), "stdin")
			d := fake(t, turn(stdin, initOK, []fakecli.Step{{Stdout: perm}, {ReadLine: true}}, endTurn))
			sink := drvtest.NewSnapSink()
			sink.Answers = c.answers
			var s driver.EventSink = sink
			if c.plain {
				s = plainSink{sink}
			}
			_, err := d.Run(t.Context(), drvtest.Request("Touch x."), s)
			if err != nil {
				t.Fatal(err)
			}
			if !c.plain {
				if len(sink.Decisions) != 1 {
					t.Fatalf("decisions %+v", sink.Decisions)
				}
				dr := sink.Decisions[0]
				if dr.Kind != driver.HumanDecisionPermission || dr.ToolCallID != "call-1" || dr.Prompt != "Run touch x" || len(dr.Choices) != 3 || dr.Choices[1].Key != "proceed_once" {
					t.Errorf("decision request %+v", dr)
				}
			}
			a := answerTo(clientLines(t, stdin), "p1")
			if path(a, "result", "outcome", "outcome") != "selected" || path(a, "result", "outcome", "optionId") != c.want {
				t.Errorf("answered %v, want option %s", a, c.want)
			}
		})
	}
}

// plainSink hides the decision capability of a sink.
type plainSink struct{ s *drvtest.SnapSink }

func (p plainSink) Emit(ev driver.RunEvent) error            { return p.s.Emit(ev) }
func (p plainSink) EmitStream(pl driver.StreamPayload) error { return p.s.EmitStream(pl) }

func TestCancel(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	// Streams, then waits for session/cancel and ends the turn cancelled.
	script := turn(stdin, initOK, []fakecli.Step{{ReadLine: true}, {Stdout: cancelled}}, "")
	r := drvtest.Run(t, fake(t, script, func(c *acp.Config) { c.Grace = 3 * time.Second }), drvtest.Request("Write a long essay."),
		drvtest.Opts{CancelOnStdout: `"world."`, CancelDelay: 100 * time.Millisecond})
	if r.AfterCancel == 0 || r.AfterCancel > 2*time.Second {
		t.Errorf("Run returned %v after the cancel (grace 3s: the agent's own exit must end it)", r.AfterCancel)
	}
	if r.Resp.Signal != "" {
		t.Errorf("signal %q: the gentle stop was not session/cancel", r.Resp.Signal)
	}
	ls := clientLines(t, stdin)
	if c := byMethod(ls, "session/cancel"); c == nil || c["id"] != nil || path(c, "params", "sessionId") != sessionID {
		t.Errorf("session/cancel %v in %v", c, ls)
	}
}

func TestCancelPendingPermission(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	perm := agentRequest("p1", "session/request_permission", map[string]any{
		"sessionId": sessionID, "toolCall": map[string]any{"toolCallId": "c1"},
		"options": []map[string]any{{"optionId": "ok", "name": "Allow", "kind": "allow_once"}, {"optionId": "no", "name": "Reject", "kind": "reject_once"}},
	})
	script := turn(stdin, initOK, []fakecli.Step{{Stdout: perm}, {ReadLine: true}, {ReadLine: true}, {Stdout: cancelled}}, "")
	d := fake(t, script, func(c *acp.Config) { c.Grace = 3 * time.Second })
	sink := drvtest.NewSnapSink()
	held := make(chan struct{})
	sink.Decide = func(ctx context.Context, _ driver.DecisionRequest) (driver.DecisionResponse, error) {
		close(held)
		<-ctx.Done() // the host never answers before the cancel
		return driver.DecisionResponse{}, ctx.Err()
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-held; cancel() }()
	resp, _ := d.Run(ctx, drvtest.Request("Touch x."), sink)
	ls := clientLines(t, stdin)
	if a := answerTo(ls, "p1"); path(a, "result", "outcome", "outcome") != "cancelled" {
		t.Errorf("pending permission answered %v", a)
	}
	if byMethod(ls, "session/cancel") == nil {
		t.Errorf("no session/cancel: %v", ls)
	}
	if resp.Signal != "" {
		t.Errorf("signal %q", resp.Signal)
	}
}

func TestCancelBeforePrompt(t *testing.T) {
	// An agent that never answers initialize: nothing to cancel, the
	// group is killed at once.
	script := fakecli.Script{Steps: []fakecli.Step{{ReadLine: true}, {Stdout: "{\"jsonrpc\":\"2.0\",\"method\":\"ready\"}\n"}, {Stall: true}}}
	r := drvtest.Run(t, fake(t, script, func(c *acp.Config) { c.Grace = 5 * time.Second }), drvtest.Request("hi"),
		drvtest.Opts{CancelOnStdout: `"ready"`})
	if r.AfterCancel > time.Second || r.Resp.Signal != "SIGKILL" {
		t.Errorf("returned %v after the cancel, signal %q", r.AfterCancel, r.Resp.Signal)
	}
}

func TestExitWait(t *testing.T) {
	// An agent that runs on after its stdin closed (Qwen Code).
	script := turn("", initOK, nil, endTurn)
	script.Steps = append(script.Steps, fakecli.Step{Stall: true})
	start := time.Now()
	r := drvtest.Run(t, fake(t, script, func(c *acp.Config) { c.ExitWait = 200 * time.Millisecond }), drvtest.Request("hi"), drvtest.Opts{})
	if r.Resp.Signal != "SIGTERM" || time.Since(start) > 5*time.Second {
		t.Errorf("signal %q after %v", r.Resp.Signal, time.Since(start))
	}
}

func TestConfig(t *testing.T) {
	if err := acp.New(acp.Config{}).ValidateConfig(nil); err == nil {
		t.Error("a config without Command was accepted")
	}
	for _, c := range []acp.Config{
		{Command: "a", Args: []string{"x\x00"}},
		{Command: "a", MaxFileSize: -1},
		{Command: "a", ExitWait: -1},
		{Command: "a", Env: []string{"NOEQ"}},
	} {
		if err := acp.New(c).ValidateConfig(nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	d := acp.New(acp.Config{Command: "agent", Args: []string{"--acp"}})
	cmd, err := d.Command(driver.Request{Workspace: driver.WorkspaceLease{CWD: "/w"}})
	if err != nil || cmd.Path != "agent" || strings.Join(cmd.Args, " ") != "--acp" || !cmd.KeepStdin || cmd.Dir != "/w" {
		t.Errorf("command %+v, %v", cmd, err)
	}
	if _, err := d.Command(driver.Request{ModelOverride: "m"}); err == nil {
		t.Error("a model override was accepted")
	}
}

func TestTerminal(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	work := t.TempDir()
	tp := func(id string) map[string]any { return map[string]any{"sessionId": sessionID, "terminalId": id} }
	reqs := []string{
		agentRequest("t1", "terminal/create", map[string]any{"sessionId": sessionID, "command": "/bin/sh",
			"args": []string{"-c", "pwd; echo $GREETING; echo err >&2; exit 3"}, "env": []map[string]string{{"name": "GREETING", "value": "hé"}}}),
		agentRequest("t2", "terminal/wait_for_exit", tp("term-1")),
		agentRequest("t3", "terminal/output", tp("term-1")),
		agentRequest("t4", "terminal/release", tp("term-1")),
		agentRequest("t5", "terminal/output", tp("term-1")),
		agentRequest("t6", "terminal/create", map[string]any{"sessionId": sessionID, "command": "/bin/sh", "cwd": "/"}),
		agentRequest("t7", "terminal/create", map[string]any{"sessionId": sessionID, "command": "/bin/sh",
			"args": []string{"-c", "printf 0123456789; sleep 60"}, "outputByteLimit": 4}),
		agentRequest("t8", "terminal/kill", tp("term-2")),
		agentRequest("t9", "terminal/wait_for_exit", tp("term-2")),
		agentRequest("t10", "terminal/output", tp("term-2")),
		// Left running: the end of the run kills it.
		agentRequest("t11", "terminal/create", map[string]any{"sessionId": sessionID, "command": "/bin/sh", "args": []string{"-c", "sleep 60"}}),
	}
	var mid []fakecli.Step
	for i, q := range reqs {
		mid = append(mid, fakecli.Step{Stdout: q}, fakecli.Step{ReadLine: true})
		if i == 6 {
			mid = append(mid, fakecli.Step{SleepMS: 300}) // t7 prints before t8 kills it
		}
	}
	req := drvtest.Request("Run it.")
	req.Workspace.CWD = work
	d := fake(t, turn(stdin, initOK, mid, endTurn), func(c *acp.Config) { c.Terminal = true })
	r := drvtest.Run(t, d, req, drvtest.Opts{})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Elapsed > 10*time.Second {
		t.Errorf("Run took %v: a command left running held it", r.Elapsed)
	}
	ls := clientLines(t, stdin)
	if path(ls[0], "params", "clientCapabilities", "terminal") != true {
		t.Errorf("terminal not advertised: %v", ls[0])
	}
	if a := answerTo(ls, "t1"); path(a, "result", "terminalId") != "term-1" {
		t.Errorf("create answered %v", a)
	}
	if a := answerTo(ls, "t2"); path(a, "result", "exitCode") != float64(3) || path(a, "result", "signal") != nil {
		t.Errorf("wait_for_exit answered %v", a)
	}
	if a := answerTo(ls, "t3"); path(a, "result", "output") != work+"\nhé\nerr\n" || path(a, "result", "truncated") != false ||
		path(a, "result", "exitStatus", "exitCode") != float64(3) {
		t.Errorf("output answered %v", a)
	}
	if a := answerTo(ls, "t4"); a == nil || a["error"] != nil {
		t.Errorf("release answered %v", a)
	}
	for _, id := range []string{"t5", "t6"} {
		if a := answerTo(ls, id); a["error"] == nil {
			t.Errorf("%s answered %v, want an error", id, a)
		}
	}
	if a := answerTo(ls, "t9"); path(a, "result", "signal") != "SIGKILL" {
		t.Errorf("wait_for_exit after kill answered %v", a)
	}
	if a := answerTo(ls, "t10"); path(a, "result", "output") != "6789" || path(a, "result", "truncated") != true {
		t.Errorf("bounded output answered %v", a)
	}
	if a := answerTo(ls, "t11"); path(a, "result", "terminalId") != "term-3" {
		t.Errorf("create answered %v", a)
	}
}

func TestConformanceFake(t *testing.T) {
	script := turn("", initOK, nil, endTurn)
	drvtest.Conformance(t, func() driver.Driver { return fake(t, script) },
		adaptertest.WithLiveRun("Say hello."),
		adaptertest.WithLiveExpectedOutput("Hello, world."),
		adaptertest.WithResumeRun("Again."),
	)
}

// TestResumeHistoryAfterLoad: an agent that streams the loaded session's
// history after its session/load answer (Gemini CLI) — the driver prompts
// once that stream paused, and the history is not the run's output.
func TestResumeHistoryAfterLoad(t *testing.T) {
	history := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sessionID + `","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"First."}}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sessionID + `","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Old answer."}}}}` + "\n"
	script := fakecli.Script{Steps: []fakecli.Step{{ReadLine: true}, {Stdout: initOK}, {ReadLine: true},
		{Stdout: `{"jsonrpc":"2.0","id":1,"result":{"modes":null}}` + "\n"}, {SleepMS: 200}, {Stdout: history},
		{ReadLine: true}, {Stdout: chunks + endTurn}, {ReadStdin: true}}}
	req := drvtest.Request("Again.")
	req.Session = &driver.SessionContext{Mode: driver.SessionContinueOnly, State: &driver.SessionState{ResumeID: sessionID}}
	r := drvtest.Run(t, fake(t, script), req, drvtest.Opts{})
	if r.Err != nil || r.Resp.Failure != nil {
		t.Fatalf("err %v failure %+v", r.Err, r.Resp.Failure)
	}
	if r.Resp.Output != "Hello, world." || r.Resp.Metadata[pacp.MetaReplayed] != "2" || r.Resp.Checkpoint == nil || !r.Resp.Checkpoint.Valid {
		t.Errorf("output %q metadata %v checkpoint %+v", r.Resp.Output, r.Resp.Metadata, r.Resp.Checkpoint)
	}
}
