package drvtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// EnvE2E enables the end-to-end tests against the real CLIs (make
// drivers-e2e sets it).
const EnvE2E = "AGENTWIRE_E2E"

// EnvNetns marks a test binary re-executed inside its private network
// namespace.
const EnvNetns = "AGENTWIRE_DRIVERS_NETNS"

// EnvCache overrides the directory the pinned CLIs are installed in.
const EnvCache = "AGENTWIRE_CLI_CACHE"

// Cache returns the CLI cache directory: $AGENTWIRE_CLI_CACHE, else
// <module root>/.cache/npm (the tests run two levels below the root).
func Cache() string {
	if c := os.Getenv(EnvCache); c != "" {
		return c
	}
	p, _ := filepath.Abs("../../.cache/npm")
	return p
}

// E2E gates an end-to-end test. Outside the namespace it skips plainly
// when the tests are not enabled, a CLI binary is missing or unshare is not
// permitted; otherwise it re-executes the test binary for just this test
// inside `unshare -n` (only loopback), reports its output and returns
// false. Inside the namespace it returns true: the caller brings loopback
// up and runs the test.
func E2E(t *testing.T, bins ...string) bool {
	t.Helper()
	if os.Getenv(EnvNetns) == "1" {
		return true
	}
	if os.Getenv(EnvE2E) != "1" {
		t.Skip("end-to-end tests against the real CLIs are off: set " + EnvE2E + "=1 (make drivers-e2e)")
	}
	for _, b := range bins {
		if st, err := os.Stat(b); err != nil || st.IsDir() {
			t.Skipf("CLI not installed: %s (run make cli-install)", b)
		}
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not available: cannot isolate the CLIs from the network")
	}
	if out, err := exec.Command(unshare, "-n", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -n not permitted here (%v: %s): cannot isolate the CLIs from the network", err, bytes.TrimSpace(out))
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "--", self, "-test.run=^" + t.Name() + "$", "-test.count=1"}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(unshare, args...)
	cmd.Env = append(os.Environ(), EnvNetns+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("inside unshare -n:\n%s", out.String())
	if err != nil {
		t.Fatalf("%s in the network namespace failed: %v", t.Name(), err)
	}
	if strings.Contains(out.String(), "--- SKIP: "+t.Name()) {
		t.Skip("skipped inside the namespace (see log)")
	}
	return false
}

// SnapSink is a RecordingSink that can report, while the run goes on, the
// stdout bytes emitted so far.
type SnapSink struct {
	*adaptertest.RecordingSink
	mu     sync.Mutex
	stdout bytes.Buffer
}

// NewSnapSink returns an empty SnapSink.
func NewSnapSink() *SnapSink { return &SnapSink{RecordingSink: &adaptertest.RecordingSink{}} }

// Emit records ev.
func (s *SnapSink) Emit(ev driver.RunEvent) error {
	err := s.RecordingSink.Emit(ev)
	if err == nil && ev.Type == driver.RunEventChunk && ev.Stream == driver.StreamStdout {
		s.mu.Lock()
		s.stdout.Write(ev.Bytes)
		s.mu.Unlock()
	}
	return err
}

// Stdout returns the stdout bytes emitted so far.
func (s *SnapSink) Stdout() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdout.String()
}

// StdoutLen is the length of Stdout.
func (s *SnapSink) StdoutLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdout.Len()
}

// Mock is the mock model server of an end-to-end test as Setup uses it:
// corpus/mock.Server, named by its methods because no package under
// drivers/ may import corpus/ (internal/layering).
type Mock interface {
	Start() error
	Close() error
	URL() string
}

// Sandbox is the setting of one end-to-end test, made by Setup.
type Sandbox struct {
	// URL is the started mock server's base URL.
	URL string
	// Work is the runs' working directory; Home, Tmp and Config are the
	// CLI's HOME, TMPDIR and state directory (CODEX_HOME,
	// CLAUDE_CONFIG_DIR). All are empty directories under one scratch
	// directory that is removed when the test ends.
	Work, Home, Tmp, Config string
	// Env is the base environment of an isolated CLI: PATH (the
	// directory of node first), HOME, TMPDIR and LANG=C.UTF-8.
	Env []string
}

// Setup prepares an end-to-end test inside the network namespace (see
// E2E): netns brings loopback up (corpus/record.SetupNamespace), srv is
// started and closed when the test ends, and the scratch directory is
// made under /var/tmp, named after name: not under /tmp (codex refuses
// helper binaries under a temporary directory) and not in a git work tree
// (the CLIs read the repository around their working directory).
func Setup(t *testing.T, name string, netns func() error, srv Mock) Sandbox {
	t.Helper()
	if err := netns(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	scratch, err := os.MkdirTemp("/var/tmp", "agentwire-drivers-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	sb := Sandbox{URL: srv.URL(), Work: filepath.Join(scratch, "work"), Home: filepath.Join(scratch, "home"),
		Tmp: filepath.Join(scratch, "tmp"), Config: filepath.Join(scratch, "config")}
	for _, d := range []string{sb.Work, sb.Home, sb.Tmp, sb.Config} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	if node, err := exec.LookPath("node"); err == nil {
		path = filepath.Dir(node) + ":" + path
	}
	sb.Env = []string{"PATH=" + path, "HOME=" + sb.Home, "TMPDIR=" + sb.Tmp, "LANG=C.UTF-8"}
	return sb
}

// Request is the request of an end-to-end run of prompt in the working
// directory, streaming, with a workspace and profile for the resume guard.
func (sb Sandbox) Request(prompt string) driver.Request {
	return request("e2e", prompt, sb.workspace())
}

func (sb Sandbox) workspace() driver.WorkspaceLease {
	return driver.WorkspaceLease{ID: "ws-e2e", CWD: sb.Work}
}

// Conformance is Conformance against the real CLI: the live run, the
// resume run (ResumePrompt) and the cancel run (CancelPrompt, cancelled
// after cancelAfter, within 3 s) in the working directory. The mock's
// script answers them in turn, then stalls.
func (sb Sandbox) Conformance(t *testing.T, factory func() driver.Driver, cancelAfter time.Duration) {
	t.Helper()
	Conformance(t, factory,
		adaptertest.WithLiveRun(""),
		adaptertest.WithRequest(func(r *driver.Request) { r.Workspace = sb.workspace() }),
		adaptertest.WithResumeRun(ResumePrompt),
		adaptertest.WithCancelRun(CancelPrompt, cancelAfter, 3*time.Second),
	)
}

// The resume scenario: the first run is told a code word, the second,
// resuming it, is asked for it. The mock's script must answer
// ResumeReplies[0] then [1].
const (
	resumeFirst  = "Remember this code word: PAPAYA-42."
	resumeSecond = "What was the code word?"
)

// ResumeReplies are the texts (as deltas) of the mock's replies in the
// resume scenario of Resume.
var ResumeReplies = [2][]string{{"Noted: the code word ", "is PAPAYA-42."}, {"The code word ", "was PAPAYA-42."}}

// Conversation lists the bodies of the model requests a mock server has
// answered so far as part of its scripted conversation, in order.
type Conversation func() []string

// ConversationOf makes the Conversation of a mock server: list returns its
// requests so far (corpus/mock.Server.Requests) and body the body of one
// and whether it is part of the conversation (not a side or auxiliary
// request).
func ConversationOf[R any](list func() []R, body func(R) ([]byte, bool)) Conversation {
	return func() []string {
		var out []string
		for _, r := range list() {
			if b, ok := body(r); ok {
				out = append(out, string(b))
			}
		}
		return out
	}
}

// Resume runs the resume scenario with d: a first run, then a second that
// continues the first's checkpoint. It fails the test unless both succeed
// with a valid checkpoint, a model request of the second run carries the
// first run's conversation and the second's output is the code word
// reply. It returns both runs.
func (sb Sandbox) Resume(t *testing.T, d driver.Driver, conv Conversation) (r1, r2 Result) {
	t.Helper()
	r1 = Run(t, d, sb.Request(resumeFirst), Opts{})
	if r1.Err != nil || r1.Resp.Failure != nil || r1.Resp.Checkpoint == nil || !r1.Resp.Checkpoint.Valid {
		t.Fatalf("run 1: err=%v failure=%+v checkpoint=%+v\nstderr:\n%s", r1.Err, r1.Resp.Failure, r1.Resp.Checkpoint, stderr(r1.Resp))
	}
	n1 := len(conv())
	req := sb.Request(resumeSecond)
	req.Session = &driver.SessionContext{Mode: driver.SessionContinueOnly, State: r1.Resp.Checkpoint.State}
	r2 = Run(t, d, req, Opts{})
	if r2.Err != nil || r2.Resp.Failure != nil || r2.Resp.Checkpoint == nil || !r2.Resp.Checkpoint.Valid {
		t.Fatalf("run 2: err=%v failure=%+v checkpoint=%+v\nstderr:\n%s", r2.Err, r2.Resp.Failure, r2.Resp.Checkpoint, stderr(r2.Resp))
	}
	proof := false
	for _, b := range conv()[n1:] {
		if strings.Contains(b, resumeFirst) && strings.Contains(b, ResumeReplies[0][1]) {
			proof = true
		}
	}
	if !proof {
		t.Errorf("run 2's model request does not carry run 1's conversation")
	}
	if want := strings.Join(ResumeReplies[1], ""); r2.Resp.Output != want {
		t.Errorf("run 2 output %q, want %q", r2.Resp.Output, want)
	}
	return r1, r2
}

// Cancel runs CancelPrompt with d and cancels it 1.5 s after written
// delivers (the mock wrote its stalling reply). It fails the test unless
// Run returned within 3 s of the cancel with a cancelled Failure and no
// valid checkpoint, and the raw stdout holds what came before the cancel
// (it contains marker) and equals the chunks. It returns the run.
func (sb Sandbox) Cancel(t *testing.T, d driver.Driver, written <-chan int, marker string) Result {
	t.Helper()
	r := Run(t, d, sb.Request(CancelPrompt), Opts{CancelWhen: written, CancelDelay: 1500 * time.Millisecond})
	t.Logf("Run returned %v after the cancel; exit %d signal %q failure %+v", r.AfterCancel, r.Resp.ExitCode, r.Resp.Signal, r.Resp.Failure)
	if r.AfterCancel == 0 {
		t.Fatalf("the run ended before the cancel: failure %+v\nstderr:\n%s", r.Resp.Failure, stderr(r.Resp))
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
	if r.Resp.RawStreams == nil {
		t.Fatal("no raw streams")
	}
	if !strings.Contains(r.Resp.RawStreams.Stdout, marker) {
		t.Errorf("stdout before the cancel missing (no %s): %q", marker, r.Resp.RawStreams.Stdout)
	}
	if Stdout(r.Sink) != r.Resp.RawStreams.Stdout {
		t.Errorf("chunks differ from the raw stdout")
	}
	return r
}

// Approval runs prompt twice, on a fresh driver and sandbox from setup
// each time, with a sink that approves, then one that rejects, the tool
// call the mock's script asks for. It fails the test unless the run
// conforms, asks exactly one decision, and file (in the working
// directory) exists exactly when the call was approved.
func Approval(t *testing.T, prompt, file string, setup func(t *testing.T) (driver.Driver, Sandbox)) {
	t.Helper()
	for _, dec := range []driver.DecisionResult{driver.DecisionApproved, driver.DecisionRejected} {
		t.Run(string(dec), func(t *testing.T) {
			d, sb := setup(t)
			sink := NewSnapSink()
			sink.Answers = []driver.DecisionResponse{{Result: dec}}
			resp, err := d.Run(t.Context(), sb.Request(prompt), sink)
			if err != nil || resp.Failure != nil {
				t.Fatalf("err=%v failure=%+v\nstderr:\n%s", err, resp.Failure, stderr(resp))
			}
			capability, codec := contract(d)
			if vs := sink.Check(true, capability, resp, err, codec); len(vs) > 0 {
				t.Errorf("violations:\n%s", vs)
			}
			if len(sink.Decisions) != 1 {
				t.Fatalf("%d decisions, want 1", len(sink.Decisions))
			}
			_, statErr := os.Stat(filepath.Join(sb.Work, file))
			if (statErr == nil) != (dec == driver.DecisionApproved) {
				t.Errorf("decision %s: file exists = %v", dec, statErr == nil)
			}
		})
	}
}

// stderr is the raw stderr of resp, if any.
func stderr(resp driver.Response) string {
	if resp.RawStreams == nil {
		return ""
	}
	return resp.RawStreams.Stderr
}
