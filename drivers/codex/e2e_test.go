package codex_test

import (
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
	"github.com/agentwire/agentwire/drivers/codex"
	"github.com/agentwire/agentwire/drivers/internal/drvtest"
)

// The end-to-end tests run the pinned real codex CLI against the recorder's
// mock Responses server inside a network namespace with only loopback.

func codexBin() string {
	return filepath.Join(drvtest.Cache(), "codex@"+record.CodexVersion, "node_modules/.bin/codex")
}

func text(s ...string) mock.Reply {
	return mock.Reply{Items: []mock.Item{{Type: "text", Deltas: s}}, Usage: &mock.Usage{InputTokens: 100, OutputTokens: 10}}
}

// e2eEnv starts a mock with replies and returns a driver configured like
// the recorder runs codex, and the working directory.
func e2eEnv(t *testing.T, opt mock.Options) (*codex.Driver, *mock.Server, string) {
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
	// Not under /tmp (codex refuses helper binaries under a temporary
	// directory) and not in a git work tree.
	scratch, err := os.MkdirTemp("/var/tmp", "agentwire-drivers-codex-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	for _, d := range []string{"home", "work", "tmp", "config"} {
		if err := os.MkdirAll(filepath.Join(scratch, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	if node, err := exec.LookPath("node"); err == nil {
		path = filepath.Dir(node) + ":" + path
	}
	cfg := codex.Config{
		Binary: codexBin(),
		ConfigOverrides: []string{
			`model_provider="mock"`,
			`model_providers.mock.name="mock"`,
			`model_providers.mock.base_url="` + srv.URL() + `/v1"`,
			`model_providers.mock.wire_api="responses"`,
			`model_providers.mock.env_key="MOCK_API_KEY"`,
			`model_providers.mock.request_max_retries=1`,
			`model_providers.mock.stream_max_retries=1`,
		},
		SkipGitRepoCheck: true,
		CodexHome:        filepath.Join(scratch, "config"),
		IsolateEnv:       true,
		Env: []string{"PATH=" + path, "HOME=" + filepath.Join(scratch, "home"), "TMPDIR=" + filepath.Join(scratch, "tmp"),
			"LANG=C.UTF-8", "MOCK_API_KEY=sk-mock-key"},
	}
	return codex.New(cfg), srv, filepath.Join(scratch, "work")
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
	d, _, work := e2eEnv(t, mock.Options{Replies: []mock.Reply{text("OK"), text("You said ", "OK."), {Items: []mock.Item{{Type: "text", Deltas: []string{"Working", "..."}}}, Stall: true}}})
	adaptertest.TestDriver(t, func() driver.Driver { return codex.New(d.Config()) },
		adaptertest.WithLiveRun(""),
		adaptertest.WithRequest(func(r *driver.Request) { r.Workspace = driver.WorkspaceLease{ID: "ws-e2e", CWD: work} }),
		adaptertest.WithResumeRun("What did you say?"),
		adaptertest.WithCancelRun("Write a long essay.", 6*time.Second, 3*time.Second),
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
	d, _, work := e2eEnv(t, mock.Options{
		Replies:   []mock.Reply{{Items: []mock.Item{{Type: "text", Deltas: []string{"Working on it", "..."}}}, Stall: true}},
		OnWritten: func(seq, reply int) { written <- seq },
	})
	r := drvtest.Run(t, d, e2eRequest("Write a long essay.", work), drvtest.Opts{CancelWhen: written, CancelDelay: 1500 * time.Millisecond})
	t.Logf("Run returned %v after the cancel; exit %d signal %q", r.AfterCancel, r.Resp.ExitCode, r.Resp.Signal)
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
	if !strings.Contains(r.Resp.RawStreams.Stdout, `"thread.started"`) {
		t.Errorf("stdout before the cancel missing: %q", r.Resp.RawStreams.Stdout)
	}
	if drvtest.Stdout(r.Sink) != r.Resp.RawStreams.Stdout {
		t.Errorf("chunks differ from the raw stdout")
	}
}
