package drvtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
