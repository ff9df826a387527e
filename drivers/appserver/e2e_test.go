package appserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/corpus/mock"
	"github.com/agentwire/agentwire/corpus/record"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/appserver"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

// The end-to-end tests run the pinned real `codex app-server` against the
// recorder's mock Responses server inside a network namespace with only
// loopback.

func codexBin() string {
	return filepath.Join(drvtest.Cache(), "codex@"+record.CodexVersion, "node_modules/.bin/codex")
}

func text(s ...string) mock.Reply {
	return mock.Reply{Items: []mock.Item{{Type: "text", Deltas: s}}, Usage: &mock.Usage{InputTokens: 100, OutputTokens: 10}}
}

var stall = mock.Reply{Items: []mock.Item{{Type: "text", Deltas: []string{"Working on it", "..."}}}, Stall: true}

// codexConfig is the recorder's config.toml: the app-server reads the
// model provider from CODEX_HOME.
func codexConfig(url string) string {
	return `model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "` + url + `/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 1
stream_max_retries = 1
stream_idle_timeout_ms = 60000
`
}

func e2eEnv(t *testing.T, opt mock.Options, mod ...func(*appserver.Config)) (*appserver.Driver, *mock.Server, string) {
	t.Helper()
	if err := record.SetupNamespace(); err != nil {
		t.Fatal(err)
	}
	opt.API = mock.Responses
	srv, err := mock.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	scratch, err := os.MkdirTemp("/var/tmp", "agentwire-drivers-appserver-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	for _, d := range []string{"home", "work", "tmp", "config"} {
		if err := os.MkdirAll(filepath.Join(scratch, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(scratch, "config", "config.toml"), []byte(codexConfig(srv.URL())), 0o644); err != nil {
		t.Fatal(err)
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	if node, err := exec.LookPath("node"); err == nil {
		path = filepath.Dir(node) + ":" + path
	}
	cfg := appserver.Config{
		Binary:     codexBin(),
		CodexHome:  filepath.Join(scratch, "config"),
		IsolateEnv: true,
		Env: []string{"PATH=" + path, "HOME=" + filepath.Join(scratch, "home"), "TMPDIR=" + filepath.Join(scratch, "tmp"),
			"LANG=C.UTF-8", "MOCK_API_KEY=sk-mock-key"},
	}
	for _, m := range mod {
		m(&cfg)
	}
	return appserver.New(cfg), srv, filepath.Join(scratch, "work")
}

func e2eRequest(prompt, cwd string) driver.Request {
	return driver.Request{RunID: "e2e", Prompt: prompt, Streaming: true,
		Workspace:      driver.WorkspaceLease{ID: "ws-e2e", CWD: cwd},
		ProfilePayload: driver.ProfilePayload{Fingerprint: "p", SessionCompatibilityFingerprint: "ps"}}
}

func TestE2EConformance(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	d, _, work := e2eEnv(t, mock.Options{Replies: []mock.Reply{text("OK"), text("You said ", "OK."), stall}})
	adaptertest.TestDriver(t, func() driver.Driver { return appserver.New(d.Config()) },
		adaptertest.WithLiveRun(""),
		adaptertest.WithRequest(func(r *driver.Request) { r.Workspace = driver.WorkspaceLease{ID: "ws-e2e", CWD: work} }),
		adaptertest.WithResumeRun("What did you say?"),
		adaptertest.WithCancelRun("Write a long essay.", 8*time.Second, 3*time.Second),
		adaptertest.WithSessionKeys(driver.ParamCWD),
		adaptertest.WithGuardKeys(driver.ParamCWD),
		adaptertest.ExpectRejectForeignConfig(),
	)
}

func TestE2EResume(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	d, srv, work := e2eEnv(t, mock.Options{Replies: []mock.Reply{text("Noted: the code word ", "is PAPAYA-42."), text("The code word ", "was PAPAYA-42.")}})
	r1 := drvtest.Run(t, d, e2eRequest("Remember this code word: PAPAYA-42.", work), drvtest.Opts{})
	if r1.Err != nil || r1.Resp.Failure != nil || r1.Resp.Checkpoint == nil || !r1.Resp.Checkpoint.Valid {
		t.Fatalf("run 1: err=%v failure=%+v checkpoint=%+v\nstderr:\n%s", r1.Err, r1.Resp.Failure, r1.Resp.Checkpoint, r1.Resp.RawStreams.Stderr)
	}
	n1 := len(srv.Requests())
	req := e2eRequest("What was the code word?", work)
	req.Session = &driver.SessionContext{Mode: driver.SessionContinueOnly, State: r1.Resp.Checkpoint.State}
	r2 := drvtest.Run(t, d, req, drvtest.Opts{})
	if r2.Err != nil || r2.Resp.Failure != nil || r2.Resp.Checkpoint == nil || !r2.Resp.Checkpoint.Valid {
		t.Fatalf("run 2: err=%v failure=%+v checkpoint=%+v\nstderr:\n%s", r2.Err, r2.Resp.Failure, r2.Resp.Checkpoint, r2.Resp.RawStreams.Stderr)
	}
	if got, want := r2.Resp.Checkpoint.State.ResumeID, r1.Resp.Checkpoint.State.ResumeID; got != want {
		t.Errorf("run 2 thread %q, want run 1's %q", got, want)
	}
	proof := false
	for _, r := range srv.Requests()[n1:] {
		if r.Reply >= -1 && strings.Contains(string(r.Body), "Remember this code word: PAPAYA-42.") && strings.Contains(string(r.Body), "is PAPAYA-42.") {
			proof = true
		}
	}
	if !proof {
		t.Errorf("run 2's model request does not carry run 1's conversation")
	}
	if r2.Resp.Output != "The code word was PAPAYA-42." {
		t.Errorf("run 2 output %q", r2.Resp.Output)
	}
}

func TestE2ECancel(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	written := make(chan int, 8)
	d, _, work := e2eEnv(t, mock.Options{Replies: []mock.Reply{stall}, OnWritten: func(seq, reply int) {
		if reply >= -1 {
			written <- seq
		}
	}})
	r := drvtest.Run(t, d, e2eRequest("Write a long essay.", work), drvtest.Opts{CancelWhen: written, CancelDelay: 1500 * time.Millisecond})
	t.Logf("Run returned %v after the cancel; exit %d signal %q failure %+v", r.AfterCancel, r.Resp.ExitCode, r.Resp.Signal, r.Resp.Failure)
	if r.AfterCancel == 0 {
		t.Fatalf("the run ended before the cancel: failure %+v\nstderr:\n%s", r.Resp.Failure, r.Resp.RawStreams.Stderr)
	}
	if r.AfterCancel > 3*time.Second {
		t.Errorf("Run returned %v after the cancel, bound 3s", r.AfterCancel)
	}
	if r.Resp.Failure == nil || r.Resp.Failure.Code != driver.FailureCancelled {
		t.Errorf("failure %+v", r.Resp.Failure)
	}
	if r.Resp.Checkpoint != nil && r.Resp.Checkpoint.Valid {
		t.Errorf("a cancelled run left a valid checkpoint")
	}
	if !strings.Contains(r.Resp.RawStreams.Stdout, `"method":"turn/started"`) {
		t.Errorf("stdout before the cancel missing")
	}
	if !strings.Contains(r.Resp.RawStreams.Stdout, `"interrupted"`) {
		t.Logf("no interrupted turn/completed: the group was killed (signal %q)", r.Resp.Signal)
	}
}

func TestE2EApproval(t *testing.T) {
	if !drvtest.E2E(t, codexBin()) {
		return
	}
	for _, dec := range []driver.DecisionResult{driver.DecisionApproved, driver.DecisionRejected} {
		t.Run(string(dec), func(t *testing.T) {
			tool := mock.Reply{Items: []mock.Item{{Type: "tool_call", Name: "exec_command", Input: json.RawMessage(`{"cmd":"touch agentwire-approved.txt && echo created"}`)}}}
			d, _, work := e2eEnv(t, mock.Options{Replies: []mock.Reply{tool, text("Done.")}}, func(c *appserver.Config) {
				c.ApprovalPolicy, c.Sandbox = "untrusted", "workspace-write"
			})
			sink := drvtest.NewSnapSink()
			sink.Answers = []driver.DecisionResponse{{Result: dec}}
			resp, err := d.Run(t.Context(), e2eRequest("Create agentwire-approved.txt.", work), sink)
			if err != nil || resp.Failure != nil {
				t.Fatalf("err=%v failure=%+v\nstderr:\n%s", err, resp.Failure, resp.RawStreams.Stderr)
			}
			if vs := sink.Check(true, d.StreamCapability(), resp, err, d.SessionCodec()); len(vs) > 0 {
				t.Errorf("violations:\n%s", vs)
			}
			if len(sink.Decisions) != 1 {
				t.Fatalf("%d decisions, want 1", len(sink.Decisions))
			}
			_, statErr := os.Stat(filepath.Join(work, "agentwire-approved.txt"))
			if (statErr == nil) != (dec == driver.DecisionApproved) {
				t.Errorf("decision %s: file exists = %v", dec, statErr == nil)
			}
		})
	}
}
