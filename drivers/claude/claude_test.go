package claude_test

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
	"github.com/agentwire/agentwire/drivers/claude"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
	"github.com/agentwire/agentwire/drivers/internal/fakecli"
)

func TestMain(m *testing.M) {
	fakecli.Main()
	os.Exit(m.Run())
}

var corpusDir, _ = filepath.Abs("../../corpus/claude/claude-code@2.1.328")

func fake(t testing.TB, script fakecli.Script, mod ...func(*claude.Config)) *claude.Driver {
	cfg := claude.Config{Binary: drvtest.Executable(t), Env: []string{fakecli.Env(script)}, Grace: 500 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	return claude.New(cfg)
}

func capture(t testing.TB, name string) []string {
	b, err := os.ReadFile(filepath.Join(corpusDir, name, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(b), "\n")
}

func okStream(text string) string {
	return `{"type":"system","subtype":"init","cwd":"/w","session_id":"{{ARG_AFTER:--resume|sess-1}}","tools":[],"model":"m","permissionMode":"default"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"` + text + `"}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"{{ARG_AFTER:--resume|sess-1}}","uuid":"u1"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":1,"result":"` + text + `","session_id":"{{ARG_AFTER:--resume|sess-1}}","total_cost_usd":0.001,"usage":{"input_tokens":1,"output_tokens":1}}
`
}

const partial = `{"type":"system","subtype":"init","cwd":"/w","session_id":"sess-1","tools":[],"model":"m","permissionMode":"default"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Working on it..."}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"sess-1","uuid":"u1"}
`

func TestConformanceFake(t *testing.T) {
	script := fakecli.Script{
		Steps: []fakecli.Step{{Stdout: okStream("OK")}},
		ByLastArg: map[string][]fakecli.Step{
			drvtest.ResumePrompt: {{Stdout: okStream("You said OK")}},
			drvtest.CancelPrompt: {{Stdout: partial}, {Stall: true}},
		},
	}
	drvtest.Conformance(t, func() driver.Driver { return fake(t, script) },
		adaptertest.WithLiveRun(""),
		adaptertest.WithResumeRun(drvtest.ResumePrompt),
		adaptertest.WithCancelRun(drvtest.CancelPrompt, 300*time.Millisecond, 3*time.Second),
	)
}

func TestReplay(t *testing.T) {
	for _, name := range []string{"text", "thinking", "tool-success", "unicode", "big-output", "api-error", "stream-error"} {
		t.Run(name, func(t *testing.T) {
			meta, _ := os.ReadFile(filepath.Join(corpusDir, name, "meta.json"))
			var m struct {
				ExitCode int `json:"exit_code"`
			}
			_ = json.Unmarshal(meta, &m)
			want := strings.Join(capture(t, name), "")
			r := drvtest.Run(t, fake(t, fakecli.Script{Steps: []fakecli.Step{{StdoutFile: filepath.Join(corpusDir, name, "stdout")}, {Exit: fakecli.Exit(m.ExitCode)}}}), drvtest.Request("hi"), drvtest.Opts{})
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Resp.RawStreams.Stdout != want {
				t.Errorf("raw stdout differs from the capture")
			}
			valid := r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid
			if m.ExitCode == 0 && (r.Resp.Failure != nil || !valid) {
				t.Errorf("failure %+v checkpoint %+v", r.Resp.Failure, r.Resp.Checkpoint)
			}
			if m.ExitCode != 0 && (r.Resp.Failure == nil || valid) {
				t.Errorf("failure %+v checkpoint %+v", r.Resp.Failure, r.Resp.Checkpoint)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name string
		// the run is cancelled 200ms after the partial output, when cancel
		script fakecli.Script
		cancel time.Duration
		mod    func(*claude.Config)
		check  func(t *testing.T, r drvtest.Result)
	}{
		{name: "stall", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}, {Stall: true}}}, cancel: 500 * time.Millisecond,
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Failure == nil || r.Resp.Failure.Code != driver.FailureCancelled || r.Resp.RawStreams.Stdout != partial {
					t.Errorf("failure %+v stdout %q", r.Resp.Failure, r.Resp.RawStreams.Stdout)
				}
			}},
		{name: "ignores-sigint", script: fakecli.Script{Steps: []fakecli.Step{{IgnoreSIGINT: true}, {Stdout: partial}, {Stall: true}}}, cancel: 500 * time.Millisecond,
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Signal != "SIGKILL" || r.Resp.RawStreams.Stdout != partial {
					t.Errorf("signal %q stdout %q", r.Resp.Signal, r.Resp.RawStreams.Stdout)
				}
			}},
		{name: "crash", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}, {Exit: fakecli.Exit(-1)}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Signal != "SIGKILL" || r.Resp.Failure == nil {
					t.Errorf("signal %q failure %+v", r.Resp.Signal, r.Resp.Failure)
				}
			}},
		{name: "huge-line", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}, {Huge: 100_000}, {Stdout: okStream("OK")}}},
			mod: func(c *claude.Config) { c.MaxLineSize = 4096 },
			check: func(t *testing.T, r drvtest.Result) {
				if len(r.Resp.RawStreams.Stdout) < 100_000 || r.Resp.Metadata["malformed"] == "" || r.Resp.Checkpoint.Valid {
					t.Errorf("raw %d bytes, metadata %v", len(r.Resp.RawStreams.Stdout), r.Resp.Metadata)
				}
			}},
		{name: "malformed", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: "garbage\n" + okStream("OK")}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Metadata["malformed"] == "" || r.Resp.Checkpoint.Valid {
					t.Errorf("metadata %v checkpoint %+v", r.Resp.Metadata, r.Resp.Checkpoint)
				}
			}},
		{name: "missing-terminal", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Failure == nil || (r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid) || r.Resp.RawStreams.Terminal != nil {
					t.Errorf("failure %+v checkpoint %+v", r.Resp.Failure, r.Resp.Checkpoint)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mods []func(*claude.Config)
			if c.mod != nil {
				mods = append(mods, c.mod)
			}
			r := drvtest.Run(t, fake(t, c.script, mods...), drvtest.Request("hi"), drvtest.Opts{CancelOnStdout: onStdout(c.cancel), CancelDelay: 200 * time.Millisecond})
			if c.cancel > 0 && r.AfterCancel > 3*time.Second {
				t.Errorf("Run returned %v after the cancel", r.AfterCancel)
			}
			if drvtest.Stdout(r.Sink) != r.Resp.RawStreams.Stdout {
				t.Errorf("chunks differ from raw stdout")
			}
			c.check(t, r)
		})
	}
}

// interactiveScript replays control-allow: it answers initialize, reads the
// user message, asks can_use_tool, reads the answer, finishes the turn and
// exits at stdin EOF.
func interactiveScript(t *testing.T, stdinOut string) fakecli.Script {
	lines := capture(t, "control-allow")
	initResp := strings.Replace(lines[0], "req_1_agentwire", "agentwire_init_1", 1)
	return fakecli.Script{StdinOut: stdinOut, Steps: []fakecli.Step{
		{ReadLine: true}, {Stdout: initResp},
		{ReadLine: true}, {Stdout: lines[1] + lines[2] + lines[3]},
		{ReadLine: true}, {Stdout: lines[4] + lines[5] + lines[6]},
		{ReadStdin: true},
	}}
}

func TestInteractiveAllowDeny(t *testing.T) {
	for _, tc := range []struct {
		decision driver.DecisionResult
		want     string
	}{{driver.DecisionApproved, `"behavior":"allow"`}, {driver.DecisionRejected, `"behavior":"deny"`}} {
		t.Run(string(tc.decision), func(t *testing.T) {
			stdin := filepath.Join(t.TempDir(), "stdin")
			d := fake(t, interactiveScript(t, stdin), func(c *claude.Config) { c.Interactive = true })
			if !d.StreamCapability().HITL || !d.Descriptor().RunPolicyCaps.Permission.Ask {
				t.Error("interactive driver does not declare HITL and Ask")
			}
			sink := drvtest.NewSnapSink()
			sink.Answers = []driver.DecisionResponse{{Result: tc.decision}}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			resp, err := d.Run(ctx, drvtest.Request("Run touch agentwire-allowed.txt && echo created."), sink)
			if err != nil || resp.Failure != nil {
				t.Fatalf("err=%v failure=%+v", err, resp.Failure)
			}
			if vs := sink.Check(true, d.StreamCapability(), resp, err, d.SessionCodec()); len(vs) > 0 {
				t.Errorf("violations:\n%s", vs)
			}
			if len(sink.Decisions) != 1 || sink.Decisions[0].Kind != driver.HumanDecisionPermission {
				t.Fatalf("decisions %+v", sink.Decisions)
			}
			in, _ := os.ReadFile(stdin)
			got := strings.SplitAfter(string(in), "\n")
			if len(got) < 3 || !strings.Contains(got[0], `"subtype":"initialize"`) || !strings.Contains(got[1], `"type":"user"`) ||
				!strings.Contains(got[1], "agentwire-allowed") || !strings.Contains(got[2], tc.want) {
				t.Errorf("stdin:\n%s", in)
			}
			hitl := 0
			for _, p := range sink.Payloads {
				if p.Kind == driver.StreamHITLRequested || p.Kind == driver.StreamHITLResolved {
					hitl++
				}
			}
			if hitl != 2 {
				t.Errorf("%d hitl payloads, want 2", hitl)
			}
		})
	}
}

func TestInteractiveCancelInterrupts(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	lines := capture(t, "control-allow")
	initResp := strings.Replace(lines[0], "req_1_agentwire", "agentwire_init_1", 1)
	// Reads init and the prompt, writes a partial turn, then waits for the
	// interrupt request and answers it with a cancelled result.
	script := fakecli.Script{StdinOut: stdin, Steps: []fakecli.Step{
		{ReadLine: true}, {Stdout: initResp}, {ReadLine: true}, {Stdout: partial},
		{ReadLine: true},
		{Stdout: `{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":1,"num_turns":1,"session_id":"sess-1","terminal_reason":"aborted_streaming","errors":["interrupted"]}` + "\n"},
		{ReadStdin: true},
	}}
	d := fake(t, script, func(c *claude.Config) { c.Interactive, c.Grace = true, 2*time.Second })
	r := drvtest.Run(t, d, drvtest.Request("Write a long essay."), drvtest.Opts{CancelOnStdout: "Working on it", CancelDelay: 100 * time.Millisecond})
	if r.AfterCancel > 3*time.Second {
		t.Errorf("Run returned %v after the cancel", r.AfterCancel)
	}
	in, _ := os.ReadFile(stdin)
	if !strings.Contains(string(in), `"subtype":"interrupt"`) {
		t.Errorf("no interrupt request on stdin:\n%s", in)
	}
	if r.Resp.Signal != "" || r.Resp.Failure == nil || r.Resp.Failure.Code != driver.FailureCancelled {
		t.Errorf("signal %q failure %+v (the interrupt should end the CLI gently)", r.Resp.Signal, r.Resp.Failure)
	}
}

func TestArgv(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	d := fake(t, fakecli.Script{ArgsOut: args, Steps: []fakecli.Step{{Stdout: okStream("OK")}}}, func(c *claude.Config) {
		c.Model = "m-1"
		c.PartialMessages = true
		c.ExtraArgs = []string{"--permission-mode", "default"}
		c.ConfigDir = "/nonexistent/claude"
	})
	req := drvtest.Request("hello")
	req.Session = &driver.SessionContext{State: &driver.SessionState{ResumeID: "sess-9"}}
	cmd, err := d.Command(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(cmd.Env, "\n"), "CLAUDE_CONFIG_DIR=/nonexistent/claude") {
		t.Error("env lacks CLAUDE_CONFIG_DIR")
	}
	r := drvtest.Run(t, d, req, drvtest.Opts{})
	b, _ := os.ReadFile(args)
	want := `["-p","--output-format","stream-json","--verbose","--include-partial-messages","--model","m-1","--resume","sess-9","--permission-mode","default","hello"]`
	if string(b) != want {
		t.Errorf("argv\n got %s\nwant %s", b, want)
	}
	if cp := r.Resp.Checkpoint; cp == nil || !cp.Valid || cp.State.ResumeID != "sess-9" {
		t.Errorf("checkpoint %+v", cp)
	}
	if c := d.StreamCapability(); !c.TokenLevel || !c.ToolCallArgs || c.HITL {
		t.Errorf("capability %+v", c)
	}
}

func onStdout(cancel time.Duration) string {
	if cancel > 0 {
		return "Working on it"
	}
	return ""
}
