package appserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/appserver"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
	"github.com/agentwire/agentwire/drivers/internal/fakecli"
)

func TestMain(m *testing.M) {
	fakecli.Main()
	os.Exit(m.Run())
}

var corpusDir, _ = filepath.Abs("../../corpus/appserver/codex@0.169.0")

func fake(t testing.TB, script fakecli.Script, mod ...func(*appserver.Config)) *appserver.Driver {
	cfg := appserver.Config{Binary: drvtest.Executable(t), Env: []string{fakecli.Env(script)}, Grace: 500 * time.Millisecond}
	for _, m := range mod {
		m(&cfg)
	}
	return appserver.New(cfg)
}

func lines(t testing.TB, name string) []string {
	b, err := os.ReadFile(filepath.Join(corpusDir, name, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.SplitAfter(string(b), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func upTo(ls []string, from int, prefix string) (string, int) {
	var b strings.Builder
	for i := from; i < len(ls); i++ {
		b.WriteString(ls[i])
		if strings.HasPrefix(ls[i], prefix) {
			return b.String(), i + 1
		}
	}
	return b.String(), len(ls)
}

// session replays capture name as a server: each part of stdout is written
// after the client line that causes it. cut, when set, stops the replay
// at the first line containing it (and stalls).
func session(t testing.TB, name, stdinOut string, tail ...fakecli.Step) fakecli.Script {
	ls := lines(t, name)
	p1, i := upTo(ls, 0, `{"id":0,`)
	p2, i := upTo(ls, i, `{"id":1,`)
	steps := []fakecli.Step{{ReadLine: true}, {Stdout: p1}, {ReadLine: true}, {ReadLine: true}, {Stdout: p2}, {ReadLine: true}}
	rest := strings.Join(ls[i:], "")
	if k := strings.Index(rest, `"method":"item/commandExecution/requestApproval"`); k >= 0 {
		k = strings.LastIndex(rest[:k], "\n") + 1
		e := k + strings.Index(rest[k:], "\n") + 1
		steps = append(steps, fakecli.Step{Stdout: rest[:e]}, fakecli.Step{ReadLine: true})
		rest = rest[e:]
	}
	if len(tail) > 0 {
		k := strings.Index(rest, `"method":"item/agentMessage/delta"`)
		k = strings.Index(rest[k:], "\n") + k + 1
		steps = append(steps, fakecli.Step{Stdout: rest[:k]})
		return fakecli.Script{StdinOut: stdinOut, Steps: append(steps, tail...)}
	}
	steps = append(steps, fakecli.Step{Stdout: rest}, fakecli.Step{ReadStdin: true})
	return fakecli.Script{StdinOut: stdinOut, Steps: steps}
}

func TestConformanceFake(t *testing.T) {
	script := session(t, "text", "")
	drvtest.Conformance(t, func() driver.Driver { return fake(t, script) },
		adaptertest.WithLiveRun("Say hello in one sentence."),
		adaptertest.WithLiveExpectedOutput("Hello, world! This answer arrives in seven deltas."),
		adaptertest.WithResumeRun("Again."),
	)
}

func TestReplay(t *testing.T) {
	for _, name := range []string{"text", "reasoning", "unicode", "tool-success"} {
		t.Run(name, func(t *testing.T) {
			stdin := filepath.Join(t.TempDir(), "stdin")
			r := drvtest.Run(t, fake(t, session(t, name, stdin)), drvtest.Request("hi"), drvtest.Opts{})
			if r.Err != nil || r.Resp.Failure != nil {
				t.Fatalf("err=%v failure=%+v", r.Err, r.Resp.Failure)
			}
			if cp := r.Resp.Checkpoint; cp == nil || !cp.Valid {
				t.Errorf("checkpoint %+v metadata %v", cp, r.Resp.Metadata)
			}
			if r.Resp.RawStreams.Stdout != strings.Join(lines(t, name), "") {
				t.Errorf("raw stdout differs from the capture")
			}
			in, _ := os.ReadFile(stdin)
			for _, m := range []string{`"method":"initialize"`, `"method":"initialized"`, `"method":"thread/start"`, `"method":"turn/start"`} {
				if !strings.Contains(string(in), m) {
					t.Errorf("stdin lacks %s:\n%s", m, in)
				}
			}
		})
	}
}

func TestApproval(t *testing.T) {
	for _, tc := range []struct {
		res  driver.DecisionResult
		name string
		want string
	}{{driver.DecisionApproved, "approval-accept", `"decision":"accept"`}, {driver.DecisionRejected, "approval-decline", `"decision":"decline"`}} {
		t.Run(tc.name, func(t *testing.T) {
			stdin := filepath.Join(t.TempDir(), "stdin")
			d := fake(t, session(t, tc.name, stdin))
			sink := drvtest.NewSnapSink()
			sink.Answers = []driver.DecisionResponse{{Result: tc.res}}
			resp, err := d.Run(t.Context(), drvtest.Request("hi"), sink)
			if err != nil || resp.Failure != nil {
				t.Fatalf("err=%v failure=%+v", err, resp.Failure)
			}
			if vs := sink.Check(true, d.StreamCapability(), resp, err, d.SessionCodec()); len(vs) > 0 {
				t.Errorf("violations:\n%s", vs)
			}
			if len(sink.Decisions) != 1 {
				t.Fatalf("decisions %+v", sink.Decisions)
			}
			in, _ := os.ReadFile(stdin)
			if !strings.Contains(string(in), tc.want) {
				t.Errorf("stdin lacks %s:\n%s", tc.want, in)
			}
		})
	}
}

func TestCancelInterrupt(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin")
	ls := lines(t, "interrupt")
	var end string
	for _, l := range ls {
		if strings.Contains(l, `"method":"turn/completed"`) {
			end = l
		}
	}
	// Writes the turn up to a delta, then waits for turn/interrupt and ends
	// the turn as interrupted.
	script := session(t, "interrupt", stdin, fakecli.Step{ReadLine: true}, fakecli.Step{Stdout: `{"id":3,"result":{}}` + "\n" + end}, fakecli.Step{ReadStdin: true})
	r := drvtest.Run(t, fake(t, script, func(c *appserver.Config) { c.Grace = 2 * time.Second }), drvtest.Request("hi"),
		drvtest.Opts{CancelOnStdout: `"method":"item/agentMessage/delta"`, CancelDelay: 100 * time.Millisecond})
	if r.AfterCancel > 3*time.Second {
		t.Errorf("Run returned %v after the cancel", r.AfterCancel)
	}
	in, _ := os.ReadFile(stdin)
	if !strings.Contains(string(in), `"method":"turn/interrupt"`) {
		t.Errorf("no turn/interrupt on stdin:\n%s", in)
	}
	if r.Resp.Signal != "" || r.Resp.Failure == nil || r.Resp.Failure.Code != driver.FailureCancelled {
		t.Errorf("signal %q failure %+v", r.Resp.Signal, r.Resp.Failure)
	}
	if r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid {
		t.Error("valid checkpoint after a cancel")
	}
}

func TestFaults(t *testing.T) {
	stallTail := []fakecli.Step{{Stall: true}}
	cases := []struct {
		name   string
		script fakecli.Script
		cancel bool
		check  func(t *testing.T, r drvtest.Result)
	}{
		{name: "stall-ignores-interrupt", script: session(t, "text", "", stallTail...), cancel: true,
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Signal != "SIGKILL" || r.Resp.Failure == nil || r.Resp.Failure.Code != driver.FailureCancelled {
					t.Errorf("signal %q failure %+v", r.Resp.Signal, r.Resp.Failure)
				}
			}},
		{name: "ignores-sigint", script: func() fakecli.Script {
			s := session(t, "text", "", stallTail...)
			s.Steps = append([]fakecli.Step{{IgnoreSIGINT: true}}, s.Steps...)
			return s
		}(), cancel: true,
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Signal != "SIGKILL" {
					t.Errorf("signal %q", r.Resp.Signal)
				}
			}},
		{name: "crash", script: session(t, "text", "", fakecli.Step{Exit: fakecli.Exit(-1)}),
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Signal != "SIGKILL" || r.Resp.Failure == nil {
					t.Errorf("signal %q failure %+v", r.Resp.Signal, r.Resp.Failure)
				}
			}},
		{name: "missing-terminal", script: session(t, "text", "", fakecli.Step{Exit: fakecli.Exit(0)}),
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Failure == nil || (r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid) {
					t.Errorf("failure %+v checkpoint %+v", r.Resp.Failure, r.Resp.Checkpoint)
				}
			}},
		{name: "malformed-and-huge", script: func() fakecli.Script {
			s := session(t, "text", "")
			s.Steps = append([]fakecli.Step{{Stdout: "not json\n"}, {Huge: 100_000}}, s.Steps...)
			return s
		}(),
			check: func(t *testing.T, r drvtest.Result) {
				if r.Resp.Metadata["malformed"] == "" || (r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid) || len(r.Resp.RawStreams.Stdout) < 100_000 {
					t.Errorf("metadata %v checkpoint %+v", r.Resp.Metadata, r.Resp.Checkpoint)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := drvtest.Opts{}
			if c.cancel {
				o = drvtest.Opts{CancelOnStdout: `"method":"item/agentMessage/delta"`, CancelDelay: 100 * time.Millisecond}
			}
			r := drvtest.Run(t, fake(t, c.script, func(cfg *appserver.Config) { cfg.MaxLineSize = 8192 }), drvtest.Request("hi"), o)
			if c.cancel && (r.AfterCancel == 0 || r.AfterCancel > 3*time.Second) {
				t.Errorf("Run returned %v after the cancel", r.AfterCancel)
			}
			if drvtest.Stdout(r.Sink) != r.Resp.RawStreams.Stdout {
				t.Errorf("chunks differ from raw stdout")
			}
			c.check(t, r)
		})
	}
}
