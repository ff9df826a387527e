package codex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/codex"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
	"github.com/agentwire/agentwire/drivers/internal/fakecli"
)

func TestMain(m *testing.M) {
	fakecli.Main()
	os.Exit(m.Run())
}

var corpusDir, _ = filepath.Abs("../../corpus/codex/codex@0.169.0")

// fake returns a driver whose CLI is this test binary running script.
func fake(t testing.TB, script fakecli.Script, mod ...func(*codex.Config)) *codex.Driver {
	cfg := codex.Config{Binary: drvtest.Executable(t), Env: []string{fakecli.Env(script)}, Grace: 500 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	return codex.New(cfg)
}

func replay(name string, extra ...fakecli.Step) fakecli.Script {
	return fakecli.Script{Steps: append([]fakecli.Step{{StdoutFile: filepath.Join(corpusDir, name, "stdout")}}, extra...)}
}

func okStream(text string) string {
	return `{"type":"thread.started","thread_id":"{{ARG_AFTER:resume|fake-thread-1}}"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"` + text + `"}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}
`
}

const partial = `{"type":"thread.started","thread_id":"fake-thread-1"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Working on it..."}}
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

func TestReplaySuccess(t *testing.T) {
	for _, name := range []string{"text", "tool-success", "reasoning", "unicode", "big-output"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(corpusDir, name, "stdout"))
			if err != nil {
				t.Fatal(err)
			}
			r := drvtest.Run(t, fake(t, replay(name, fakecli.Step{Stderr: "Reading additional input from stdin...\n"})), drvtest.Request("hi"), drvtest.Opts{})
			if r.Err != nil || r.Resp.Failure != nil {
				t.Fatalf("err=%v failure=%+v", r.Err, r.Resp.Failure)
			}
			if r.Resp.RawStreams.Stdout != string(want) || drvtest.Stdout(r.Sink) != string(want) {
				t.Errorf("raw stdout differs from the capture")
			}
			if r.Resp.RawStreams.Stderr != "Reading additional input from stdin...\n" {
				t.Errorf("stderr %q", r.Resp.RawStreams.Stderr)
			}
			if cp := r.Resp.Checkpoint; cp == nil || !cp.Valid || cp.State.Data[driver.ParamCWD] != os.TempDir() {
				t.Errorf("checkpoint %+v", cp)
			}
			if r.Resp.RawStreams.Terminal == nil || r.Resp.RawStreams.Terminal.Event != "turn.completed" {
				t.Errorf("terminal %+v", r.Resp.RawStreams.Terminal)
			}
		})
	}
}

func TestReplayFailures(t *testing.T) {
	for _, name := range []string{"api-error", "stream-error", "disconnect"} {
		t.Run(name, func(t *testing.T) {
			meta, _ := os.ReadFile(filepath.Join(corpusDir, name, "meta.json"))
			var m struct {
				ExitCode int `json:"exit_code"`
			}
			_ = json.Unmarshal(meta, &m)
			r := drvtest.Run(t, fake(t, replay(name, fakecli.Step{Exit: fakecli.Exit(m.ExitCode)})), drvtest.Request("hi"), drvtest.Opts{})
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Resp.ExitCode != m.ExitCode {
				t.Errorf("exit %d, want %d", r.Resp.ExitCode, m.ExitCode)
			}
			if m.ExitCode != 0 && (r.Resp.Failure == nil || r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid) {
				t.Errorf("failure %+v checkpoint %+v", r.Resp.Failure, r.Resp.Checkpoint)
			}
		})
	}
}

func TestArgvAndEnv(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	stdin := filepath.Join(dir, "stdin")
	d := fake(t, fakecli.Script{ArgsOut: args, StdinOut: stdin, Steps: []fakecli.Step{{ReadStdin: true}, {Stdout: okStream("OK")}}},
		func(c *codex.Config) {
			c.Model = "m-1"
			c.ConfigOverrides = []string{`model_provider="mock"`}
			c.ExtraArgs = []string{"--sandbox", "read-only"}
			c.SkipGitRepoCheck = true
			c.CodexHome = "/nonexistent/codex-home"
		})
	req := drvtest.Request("-dash prompt")
	req.ModelOverride = "m-2"
	req.Session = &driver.SessionContext{Mode: driver.SessionContinueOnly, State: &driver.SessionState{ResumeID: "thread-9"}}
	cmd, err := d.Command(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(cmd.Env, "\n"), "CODEX_HOME=/nonexistent/codex-home") {
		t.Errorf("env lacks CODEX_HOME")
	}
	r := drvtest.Run(t, d, req, drvtest.Opts{})
	if r.Err != nil || r.Resp.Failure != nil {
		t.Fatalf("err=%v failure=%+v", r.Err, r.Resp.Failure)
	}
	b, _ := os.ReadFile(args)
	want := `["exec","--json","--skip-git-repo-check","-m","m-2","-c","model_provider=\"mock\"","--sandbox","read-only","resume","thread-9","-"]`
	if string(b) != want {
		t.Errorf("argv\n got %s\nwant %s", b, want)
	}
	if in, _ := os.ReadFile(stdin); string(in) != "-dash prompt" {
		t.Errorf("stdin %q", in)
	}
	if cp := r.Resp.Checkpoint; cp == nil || !cp.Valid || cp.State.ResumeID != "thread-9" {
		t.Errorf("checkpoint %+v", cp)
	}
	// A resumed run whose thread is another one has no valid checkpoint.
	d2 := fake(t, fakecli.Script{Steps: []fakecli.Step{{Stdout: strings.ReplaceAll(okStream("OK"), "{{ARG_AFTER:resume|fake-thread-1}}", "other")}}})
	r = drvtest.Run(t, d2, req, drvtest.Opts{})
	if cp := r.Resp.Checkpoint; cp != nil && cp.Valid {
		t.Errorf("checkpoint valid for another thread: %+v", cp)
	}
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name string
		// the run is cancelled 200ms after the partial output, when cancel
		script fakecli.Script
		mod    func(*codex.Config)
		cancel time.Duration
		check  func(t *testing.T, r drvtest.Result)
	}{
		{name: "stall", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}, {Stall: true}}}, cancel: 500 * time.Millisecond,
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Failure == nil || r.Resp.Failure.Code != driver.FailureCancelled {
					t.Errorf("failure %+v", r.Resp.Failure)
				}
				if r.Resp.RawStreams.Stdout != partial {
					t.Errorf("stdout %q", r.Resp.RawStreams.Stdout)
				}
				if r.Resp.Output != "Working on it..." {
					t.Errorf("output %q", r.Resp.Output)
				}
			}},
		{name: "ignores-sigint", script: fakecli.Script{Steps: []fakecli.Step{{IgnoreSIGINT: true}, {Stdout: partial}, {Stall: true}}}, cancel: 500 * time.Millisecond,
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Signal != "SIGKILL" {
					t.Errorf("signal %q, want SIGKILL", r.Resp.Signal)
				}
				if r.Resp.RawStreams.Stdout != partial {
					t.Errorf("stdout %q", r.Resp.RawStreams.Stdout)
				}
			}},
		{name: "crash", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}, {Exit: fakecli.Exit(-1)}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Signal != "SIGKILL" || r.Resp.Failure == nil {
					t.Errorf("signal %q failure %+v", r.Resp.Signal, r.Resp.Failure)
				}
			}},
		{name: "exit-2", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: okStream("OK")}, {Exit: fakecli.Exit(2)}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.ExitCode != 2 || r.Resp.Failure == nil {
					t.Errorf("exit %d failure %+v", r.Resp.ExitCode, r.Resp.Failure)
				}
			}},
		{name: "huge-line", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}, {Huge: 200_000}, {Stdout: okStream("OK")[len(partial)-0:]}}},
			mod: func(c *codex.Config) { c.MaxLineSize = 4096 },
			check: func(t *testing.T, r drvtest.Result) {
				if len(r.Resp.RawStreams.Stdout) < 200_000 {
					t.Errorf("raw stdout lost the huge line: %d bytes", len(r.Resp.RawStreams.Stdout))
				}
				if r.Resp.Metadata["malformed"] == "" {
					t.Errorf("huge line not reported: %v", r.Resp.Metadata)
				}
			}},
		{name: "malformed", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: "not json\n" + okStream("OK")}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Metadata["malformed"] == "" || (r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid) {
					t.Errorf("metadata %v checkpoint %+v", r.Resp.Metadata, r.Resp.Checkpoint)
				}
			}},
		{name: "missing-terminal", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Failure == nil || (r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid) || r.Resp.RawStreams.Terminal != nil {
					t.Errorf("failure %+v checkpoint %+v", r.Resp.Failure, r.Resp.Checkpoint)
				}
			}},
		{name: "unterminated-last-line", script: fakecli.Script{Steps: []fakecli.Step{{Stdout: strings.TrimSuffix(okStream("OK"), "\n")}}},
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.RawStreams.Terminal == nil {
					t.Errorf("the unterminated terminal line was not parsed")
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mods []func(*codex.Config)
			if c.mod != nil {
				mods = append(mods, c.mod)
			}
			r := drvtest.Run(t, fake(t, c.script, mods...), drvtest.Request("hi"), drvtest.Opts{CancelOnStdout: onStdout(c.cancel), CancelDelay: 200 * time.Millisecond})
			if c.cancel > 0 && r.AfterCancel > 3*time.Second {
				t.Errorf("Run returned %v after the cancel", r.AfterCancel)
			}
			if r.Resp.RawStreams == nil {
				t.Fatal("no raw streams")
			}
			if got := drvtest.Stdout(r.Sink); got != r.Resp.RawStreams.Stdout {
				t.Errorf("chunks (%d bytes) differ from raw stdout (%d bytes)", len(got), len(r.Resp.RawStreams.Stdout))
			}
			c.check(t, r)
		})
	}
}

func TestSinkError(t *testing.T) {
	r := drvtest.Run(t, fake(t, fakecli.Script{Steps: []fakecli.Step{{Stdout: partial}, {Stall: true}}}), drvtest.Request("hi"), drvtest.Opts{FailAfter: 3})
	if r.Err == nil {
		t.Fatal("no error from a failing sink")
	}
	if r.Elapsed > 10*time.Second {
		t.Errorf("Run took %v", r.Elapsed)
	}
}

func TestValidateConfig(t *testing.T) {
	d := codex.New(codex.Config{Env: []string{"NOEQUALS"}})
	if d.ValidateConfig(nil) == nil {
		t.Error("bad Env accepted")
	}
	if codex.New(codex.Config{}).ValidateConfig(nil) != nil {
		t.Error("zero config rejected")
	}
	if codex.New(codex.Config{}).ValidateConfig(42) == nil {
		t.Error("foreign config accepted")
	}
	a, _ := codex.New(codex.Config{Model: "a"}).SessionConfigFingerprint()
	b, _ := codex.New(codex.Config{Model: "b"}).SessionConfigFingerprint()
	if a == b || a == "" {
		t.Error("fingerprint does not cover Model")
	}
	r := codex.New(codex.Config{})
	req := drvtest.Request("x")
	req.Config = codex.Config{Model: "other"}
	if _, err := r.Run(t.Context(), req, &adaptertest.RecordingSink{}); err == nil {
		t.Error("a different request config was accepted")
	}
}

func onStdout(cancel time.Duration) string {
	if cancel > 0 {
		return "Working on it"
	}
	return ""
}
