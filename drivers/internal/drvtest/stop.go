package drvtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentwire/agentwire/driver"
)

// StopGrace is the grace the stop cases run drivers with.
const StopGrace = 200 * time.Millisecond

// A StopCase is a CLI that makes stopping hard, played by a script of
// process/testdata/stop (the same scripts process.Run is tested with),
// run through a driver.
type StopCase struct {
	Name   string
	Script string
	// Env is added to the script's environment (FLOOD_HEAD, FLOOD_LINE,
	// FLOOD_COUNT of flood-unread.sh).
	Env []string
	// Prompt is the request's prompt; "hi" when empty.
	Prompt string
	// Cancel cancels the run once "ready" is on stdout (and, with Stall,
	// stdout then stopped growing for that long: the driver is blocked);
	// otherwise the run ends on its own.
	Cancel bool
	Stall  time.Duration
}

// StopCases are the cases every reference driver is stopped in: a CLI
// that ignores SIGINT and SIGTERM and never reads stdin, floods stdout,
// closes stdout and runs on, leaves a grandchild in its group holding
// stdout, leaves a grandchild in a new session holding stdout or none of
// the run's pipes, and one that exits at once.
func StopCases() []StopCase {
	return []StopCase{
		{Name: "ignore-signals", Script: "ignore-signals.sh", Cancel: true},
		{Name: "write-forever", Script: "write-forever.sh", Cancel: true},
		{Name: "close-stdout-run-on", Script: "close-stdout.sh", Cancel: true},
		{Name: "grandchild-in-group", Script: "grandchild-group.sh", Cancel: true},
		{Name: "setsid-grandchild", Script: "setsid-grandchild.sh"},
		{Name: "setsid-daemon", Script: "setsid-daemon.sh"},
	}
}

// StopScript is the absolute path of a script of process/testdata/stop.
func StopScript(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "process", "testdata", "stop", name)
}

// StopDriver builds the driver under test for a script and its
// environment, with grace StopGrace.
type StopDriver func(binary string, env []string) driver.Driver

// RunStop runs sc through the driver mk builds and checks what a stop
// must give whatever the CLI does: Run returns within StopGrace plus a
// second of the cancel (a case that ends on its own: without an error,
// within 5 s of the start), the checks of Run hold (validators,
// goroutines, the group), no process of the run is alive by pid (the
// leader and every "child N" the script printed, in or out of the group),
// and the open fds are back to their baseline. It returns the latency.
//
// The machine is shared: a latency over the bound is measured once more,
// and only a second one over it fails, so one scheduling stall of a loaded
// machine does not.
func RunStop(t testing.TB, mk StopDriver, sc StopCase) time.Duration {
	t.Helper()
	bound := StopGrace + time.Second
	if !sc.Cancel {
		bound = 5 * time.Second // from the start: spawn and script included
	}
	d := runStop(t, mk, sc)
	if d > bound {
		t.Logf("%s: Run returned %v after the cancel; measuring once more", sc.Name, d)
		if d = runStop(t, mk, sc); d > bound {
			t.Errorf("%s: Run returned %v after the cancel, want at most %v", sc.Name, d, bound)
		}
	}
	return d
}

func runStop(t testing.TB, mk StopDriver, sc StopCase) time.Duration {
	t.Helper()
	fds := openFDs()
	prompt := sc.Prompt
	if prompt == "" {
		prompt = "hi"
	}
	o := Opts{}
	if sc.Cancel {
		o.CancelOnStdout, o.CancelOnStall = "ready", sc.Stall
	}
	r := Run(t, mk(StopScript(sc.Script), sc.Env), Request(prompt), o)
	d := r.Elapsed
	if !sc.Cancel && r.Err != nil { // the drain-timeout error, if a descendant kept a pipe
		t.Errorf("%s: %v", sc.Name, r.Err)
	}
	if sc.Cancel {
		if r.AfterCancel == 0 {
			t.Fatalf("%s: never cancelled: %v", sc.Name, r.Err)
		}
		d = r.AfterCancel
	}
	pids := []int{r.PID}
	if r.Resp.RawStreams != nil {
		out := r.Resp.RawStreams.Stdout
		for _, l := range strings.Split(out[:min(len(out), 4096)], "\n") {
			var pid int
			if _, err := fmt.Sscanf(l, "child %d", &pid); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if strings.Contains(sc.Script, "child") || strings.Contains(sc.Script, "setsid") {
		if len(pids) < 2 {
			t.Errorf("%s: the script printed no child pid", sc.Name)
		}
	}
	for _, pid := range pids {
		if Alive(pid, 2*time.Second) {
			t.Errorf("%s: process %d is alive after Run", sc.Name, pid)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	n := openFDs()
	for n > fds && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		n = openFDs()
	}
	if n > fds {
		t.Errorf("%s: %d fds more than before Run", sc.Name, n-fds)
	}
	return d
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// Alive waits up to wait for pid to be gone and reports whether it is
// still running. A zombie (killed, not yet reaped by an init that does not
// reap) is gone.
func Alive(pid int, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		if !aliveNow(pid) {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func aliveNow(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// EnvSoak enables the soak tests (make drivers-soak sets it).
const EnvSoak = "AGENTWIRE_SOAK"

// Soak runs 200 cycles of the cases (in turn) through the driver mk
// builds and checks that goroutines, open fds and child processes are
// back to their baseline after them. It skips unless EnvSoak is 1.
func Soak(t *testing.T, mk StopDriver, cases []StopCase) {
	if os.Getenv(EnvSoak) != "1" {
		t.Skip("soak test off: set " + EnvSoak + "=1 (make drivers-soak)")
	}
	RunStop(t, mk, cases[0]) // warm up the runtime's lazily opened fds
	goroutines, fds, children := runtime.NumGoroutine(), openFDs(), len(childPIDs())
	for i := range 200 {
		RunStop(t, mk, cases[i%len(cases)])
		if t.Failed() {
			t.Fatalf("cycle %d (%s) failed", i, cases[i%len(cases)].Name)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && (runtime.NumGoroutine() > goroutines || openFDs() > fds || len(childPIDs()) > children) {
		time.Sleep(20 * time.Millisecond)
	}
	if g, f, c := runtime.NumGoroutine(), openFDs(), childPIDs(); g > goroutines || f > fds || len(c) > children {
		t.Errorf("after 200 cycles: goroutines %d (was %d), fds %d (was %d), children %v (were %d)", g, goroutines, f, fds, c, children)
	}
}

// childPIDs are the live processes whose parent is this one.
func childPIDs() []int {
	self := os.Getpid()
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 2 && f[0] != "Z" && f[1] == fmt.Sprint(self) {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			out = append(out, pid)
		}
	}
	return out
}

// BenchmarkStop reports the latency of RunStop per case (p50 and p99 in
// milliseconds over b.N runs).
func BenchmarkStop(b *testing.B, mk StopDriver, cases []StopCase) {
	for _, sc := range cases {
		b.Run(sc.Name, func(b *testing.B) {
			var ds []time.Duration
			for b.Loop() {
				ds = append(ds, RunStop(b, mk, sc))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
