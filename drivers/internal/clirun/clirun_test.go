package clirun

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/process"
)

type testConfig struct {
	Model string
	Args  []string
}

var testType = ConfigType[testConfig]{
	Pkg:   "fake",
	Clone: func(c testConfig) testConfig { c.Args = append([]string(nil), c.Args...); return c },
	Validate: func(c testConfig) error {
		if c.Model == "bad" {
			return errors.New("fake: bad model")
		}
		return nil
	},
}

func TestConfigType(t *testing.T) {
	own := testConfig{Model: "own"}
	for _, c := range []struct {
		name string
		cfg  any
		want string // the resolved Model, or the error
	}{
		{"nil", nil, "own"},
		{"value", testConfig{Model: "v"}, "v"},
		{"pointer", &testConfig{Model: "p"}, "p"},
		{"nil pointer", (*testConfig)(nil), "own"},
		{"foreign", 42, "fake: config of type int, want fake.Config"},
	} {
		got, err := testType.Resolve(own, c.cfg)
		if err != nil {
			if err.Error() != c.want {
				t.Errorf("%s: error %q, want %q", c.name, err, c.want)
			}
			continue
		}
		if got.Model != c.want {
			t.Errorf("%s: resolved %q, want %q", c.name, got.Model, c.want)
		}
	}
	if testType.ValidateConfig(testConfig{Model: "bad"}, nil) == nil || testType.ValidateConfig(own, testConfig{Model: "bad"}) == nil {
		t.Error("ValidateConfig accepted a bad config")
	}
	if err := testType.ValidateConfig(testConfig{Model: "bad"}, testConfig{}); err != nil {
		t.Errorf("ValidateConfig checked the captured config instead of the given one: %v", err)
	}
	if err := testType.CheckRequest(own, nil); err != nil {
		t.Errorf("nil request config: %v", err)
	}
	if err := testType.CheckRequest(testConfig{Model: "own", Args: []string{}}, &testConfig{Model: "own"}); err != nil {
		t.Errorf("equal request config (empty and nil slices): %v", err)
	}
	if err := testType.CheckRequest(own, testConfig{Model: "other"}); err == nil || !strings.Contains(err.Error(), "build a new driver") {
		t.Errorf("a different request config: %v", err)
	}
	if err := testType.CheckRequest(own, "x"); err == nil {
		t.Error("a foreign request config was accepted")
	}
}

func TestBaseValidate(t *testing.T) {
	for _, c := range []struct {
		b    Base
		want string
	}{
		{Base{Pkg: "p"}, ""},
		{Base{Pkg: "p", Binary: "a\x00b"}, "p: Binary contains NUL"},
		{Base{Pkg: "p", Env: []string{"NOEQUALS"}}, "p: Env[0]: want KEY=VALUE"},
		{Base{Pkg: "p", Grace: -1}, "p: negative Grace"},
		{Base{Pkg: "p", MaxLineSize: -1}, "p: negative MaxLineSize"},
	} {
		err := c.b.Validate()
		if (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("%+v: error %v, want %q", c.b, err, c.want)
		}
	}
}

func TestBaseResume(t *testing.T) {
	st := &driver.SessionState{ResumeID: "t-1"}
	dash := &driver.SessionState{ResumeID: "-t"}
	for _, c := range []struct {
		name    string
		argv    bool
		session *driver.SessionContext
		want    *driver.SessionState
		err     string
	}{
		{name: "no session"},
		{name: "start new", session: &driver.SessionContext{Mode: driver.SessionStartNew, State: st}},
		{name: "stateless", session: &driver.SessionContext{Mode: driver.SessionStateless, State: st}},
		{name: "fork", session: &driver.SessionContext{Mode: driver.SessionFork, State: st}, err: "p: fork is not supported by this driver"},
		{name: "continue only without state", session: &driver.SessionContext{Mode: driver.SessionContinueOnly}, err: "p: continue_only without a session state to resume"},
		{name: "continue only without id", session: &driver.SessionContext{Mode: driver.SessionContinueOnly, State: &driver.SessionState{}}, err: "p: continue_only"},
		{name: "continue or start without state", session: &driver.SessionContext{Mode: driver.SessionContinueOrStart}},
		{name: "continue", session: &driver.SessionContext{Mode: driver.SessionContinueOnly, State: st}, want: st},
		{name: "continue or start", session: &driver.SessionContext{Mode: driver.SessionContinueOrStart, State: st}, want: st},
		{name: "dash id over protocol", session: &driver.SessionContext{Mode: driver.SessionContinueOnly, State: dash}, want: dash},
		{name: "dash id on argv", argv: true, session: &driver.SessionContext{Mode: driver.SessionContinueOnly, State: dash}, err: `p: resume id "-t" starts with '-'`},
	} {
		got, err := Base{Pkg: "p", ResumeArg: c.argv}.Resume(driver.Request{Session: c.session})
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func TestBaseCommand(t *testing.T) {
	req := driver.Request{Workspace: driver.WorkspaceLease{CWD: "/w"},
		Session: &driver.SessionContext{Mode: driver.SessionContinueOnly, State: &driver.SessionState{ResumeID: "t-1"}}}
	b := Base{Pkg: "p", DefaultBinary: "cli", HomeVar: "CLI_HOME", Home: "/h", Env: []string{"A=1", "CLI_HOME=/env"},
		IsolateEnv: true, DefaultGrace: 2 * time.Second}
	cmd, st, err := b.Command(req)
	if err != nil {
		t.Fatal(err)
	}
	want := process.Command{Path: "cli", Dir: "/w", Grace: 2 * time.Second, Env: []string{"A=1", "CLI_HOME=/env"}}
	if d := cmp.Diff(want, cmd); d != "" {
		t.Errorf("command (-want +got):\n%s", d)
	}
	if st == nil || st.ResumeID != "t-1" {
		t.Errorf("resumed state %+v", st)
	}
	b.Binary, b.Grace, b.Env = "/bin/cli", time.Second, nil
	cmd, _, _ = b.Command(driver.Request{})
	if cmd.Path != "/bin/cli" || cmd.Grace != time.Second || strings.Join(cmd.Env, " ") != "CLI_HOME=/h" {
		t.Errorf("command %+v", cmd)
	}
	if _, _, err := b.Command(driver.Request{OutputSchema: &driver.OutputSchema{}}); err == nil {
		t.Error("an output schema was accepted")
	}
	if _, _, err := b.Command(driver.Request{Session: &driver.SessionContext{Mode: driver.SessionFork}}); err == nil {
		t.Error("fork was accepted")
	}
}

func TestModel(t *testing.T) {
	b := Base{Pkg: "p"}
	if m, err := b.ArgModel("c", driver.Request{}); m != "c" || err != nil {
		t.Errorf("configured model: %q, %v", m, err)
	}
	if m, err := b.ArgModel("c", driver.Request{ModelOverride: "o"}); m != "o" || err != nil {
		t.Errorf("override: %q, %v", m, err)
	}
	if _, err := b.ArgModel("c", driver.Request{ModelOverride: "-o"}); err == nil {
		t.Error("a model that reads as a flag was accepted")
	}
	if Model("-c", driver.Request{}) != "-c" {
		t.Error("Model rejected what does not go on the command line")
	}
	if !PromptOnStdin("") || !PromptOnStdin("-x") || PromptOnStdin("x -y") {
		t.Error("PromptOnStdin")
	}
}

func TestSessionData(t *testing.T) {
	got := SessionData(driver.Request{Workspace: driver.WorkspaceLease{ID: "ws", CWD: "/w"},
		ProfilePayload: driver.ProfilePayload{Fingerprint: "p", SessionCompatibilityFingerprint: "ps"}})
	want := map[string]string{driver.ParamCWD: "/w", driver.ParamWorkspaceID: "ws", driver.ParamProfileFingerprint: "ps"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := SessionData(driver.Request{}); len(got) != 0 {
		t.Errorf("empty request: %v", got)
	}
}

func TestDecide(t *testing.T) {
	type plainSink struct{ driver.EventSink }
	if got := Decide(t.Context(), plainSink{}, driver.DecisionRequest{}); !cmp.Equal(got, NoDecision()) || got.Result != driver.DecisionRejected {
		t.Errorf("no decision-capable sink: %+v", got)
	}
	s := &adaptertest.RecordingSink{Answers: []driver.DecisionResponse{{Result: driver.DecisionApproved}}}
	if got := Decide(t.Context(), s, driver.DecisionRequest{RequestID: "r"}); got.Result != driver.DecisionApproved || got.RequestID != "r" {
		t.Errorf("answered: %+v", got)
	}
	if got := Decide(t.Context(), s, driver.DecisionRequest{}); got.Result != driver.DecisionAborted || !strings.HasPrefix(got.Text, "decision aborted: ") {
		t.Errorf("failed request: %+v", got)
	}
}

// finisher records the outcome it was finished with.
type finisher struct {
	out  driver.Outcome
	term *driver.TerminalPayload
	err  error
}

func (f *finisher) finish(o driver.Outcome) (driver.Response, error) {
	f.out = o
	resp := driver.Response{ExitCode: o.ExitCode}
	if f.term != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: f.term}
	}
	return resp, f.err
}

func TestExecStartFailure(t *testing.T) {
	f := &finisher{}
	resp, err := Run{Stdout: func([]byte) error { return nil }, Finish: f.finish}.Exec(t.Context(),
		process.Command{Path: "/nonexistent/agentwire-cli"}, &adaptertest.RecordingSink{})
	if err == nil || f.out.ExitCode != -1 || !errors.Is(f.out.Err, err) {
		t.Errorf("err %v, finished with %+v", err, f.out)
	}
	if resp.RawStreams == nil || *resp.RawStreams != (driver.RawStreams{}) {
		t.Errorf("raw streams %+v", resp.RawStreams)
	}
}

func TestExec(t *testing.T) {
	term := &driver.TerminalPayload{Event: "done"}
	errStarted, errFlush, errFinish := errors.New("started"), errors.New("flush"), errors.New("finish")
	for _, c := range []struct {
		name                   string
		started, flush, finish error
		want                   error
		terminalFunc, withDone bool
	}{
		{name: "clean"},
		{name: "finish error", finish: errFinish, want: errFinish},
		{name: "flush error first", flush: errFlush, finish: errFinish, want: errFlush},
		{name: "started error first", started: errStarted, flush: errFlush, want: errStarted},
		{name: "terminal func", terminalFunc: true},
		{name: "done", withDone: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout strings.Builder
			var order []string
			f := &finisher{term: term, err: c.finish}
			r := Run{
				Stdout: func(b []byte) error {
					if len(order) == 0 || order[len(order)-1] != "stdout" {
						order = append(order, "stdout")
					}
					stdout.Write(b)
					return nil
				},
				Started: func(p *process.Process) error {
					order = append(order, "started")
					return c.started
				},
				Flush:  func() error { order = append(order, "flush"); return c.flush },
				Finish: f.finish,
			}
			other := &driver.TerminalPayload{Event: "other"}
			if c.terminalFunc {
				r.Terminal = func() *driver.TerminalPayload { return other }
			}
			if c.withDone {
				r.Done = func(resp *driver.Response) { resp.Metadata = map[string]string{"done": resp.RawStreams.Stdout} }
			}
			resp, err := r.Exec(context.Background(), process.Command{Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2"}}, &adaptertest.RecordingSink{})
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("err %v, want %v", err, c.want)
			}
			wantOut := c.started // the outcome carries the run's error, not Finish's
			if wantOut == nil {
				wantOut = c.flush
			}
			if f.out.ExitCode != 0 || f.out.Err != wantOut {
				t.Errorf("finished with %+v, want error %v", f.out, wantOut)
			}
			if d := cmp.Diff([]string{"started", "stdout", "flush"}, order); d != "" {
				t.Errorf("order (-want +got):\n%s", d)
			}
			wantTerm := term
			if c.terminalFunc {
				wantTerm = other
			}
			if rs := resp.RawStreams; rs == nil || rs.Stdout != "out\n" || rs.Stderr != "err\n" || rs.Terminal != wantTerm || stdout.String() != "out\n" {
				t.Errorf("raw streams %+v, observed stdout %q", rs, stdout.String())
			}
			if c.withDone && resp.Metadata["done"] != "out\n" {
				t.Errorf("Done did not run after RawStreams were filled: %v", resp.Metadata)
			}
		})
	}
}
