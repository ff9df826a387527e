// Package drvtest holds test helpers shared by the reference drivers' tests:
// run a driver and check what every run must satisfy (the validators, the
// raw chunks, no goroutine or child process left behind), the conformance
// options every driver passes, and the end-to-end harness against the real
// CLIs: E2E re-executes a test inside `unshare -n`, Setup makes its mock
// server and sandbox, and the Sandbox methods run the scenarios every
// driver shares (conformance, resume, cancel) and Approval the
// approve / reject one.
package drvtest

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// Result is one judged run.
type Result struct {
	Resp    driver.Response
	Err     error
	Sink    *SnapSink
	Elapsed time.Duration
	// AfterCancel is how long Run took after the cancel, when cancelled;
	// AtCancel the stdout bytes emitted when the context was cancelled.
	AfterCancel time.Duration
	AtCancel    string
	PID         int
}

// Opts are the options of Run.
type Opts struct {
	// CancelAfter cancels the run after that long; CancelWhen cancels it
	// CancelDelay after a value arrives (or the channel is closed).
	CancelAfter time.Duration
	CancelWhen  <-chan int
	CancelDelay time.Duration
	// CancelOnStdout cancels the run CancelDelay after the stdout emitted
	// so far contains it.
	CancelOnStdout string
	// CancelOnStall, with CancelOnStdout, waits after it for stdout to
	// stop growing for that long (the driver blocked) before CancelDelay.
	CancelOnStall time.Duration
	// FailAfter makes the sink fail after that many emissions.
	FailAfter int
}

// Run runs d with req and checks the validators, that the stdout chunks
// concatenate to the raw stdout, that no goroutine outlives Run and that the
// child's process group is gone.
func Run(t testing.TB, d driver.Driver, req driver.Request, o Opts) Result {
	t.Helper()
	sink := NewSnapSink()
	sink.FailAfter = o.FailAfter
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var cancelledAt atomic.Int64
	var atCancel atomic.Value
	doCancel := func() {
		atCancel.Store(sink.Stdout())
		cancelledAt.Store(time.Now().UnixNano())
		cancel()
	}
	stop := make(chan struct{})
	var helper sync.WaitGroup
	if o.CancelAfter > 0 {
		timer := time.AfterFunc(o.CancelAfter, doCancel)
		defer timer.Stop()
	}
	if o.CancelOnStdout != "" {
		ch := make(chan int, 1)
		o.CancelWhen = ch
		helper.Add(1)
		go func() {
			defer helper.Done()
			for !strings.Contains(sink.Stdout(), o.CancelOnStdout) {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
			for n, since := sink.StdoutLen(), time.Now(); o.CancelOnStall > 0 && time.Since(since) < o.CancelOnStall; {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				if m := sink.StdoutLen(); m != n {
					n, since = m, time.Now()
				}
			}
			ch <- 1
		}()
	}
	if o.CancelWhen != nil {
		helper.Add(1)
		go func() {
			defer helper.Done()
			select {
			case <-o.CancelWhen:
			case <-stop:
				return
			}
			select {
			case <-time.After(o.CancelDelay):
				doCancel()
			case <-stop:
			}
		}()
	}
	start := time.Now()
	resp, err := d.Run(ctx, req, sink)
	end := time.Now()
	close(stop)
	helper.Wait()
	r := Result{Resp: resp, Err: err, Sink: sink, Elapsed: end.Sub(start)}
	if at := cancelledAt.Load(); at != 0 {
		r.AfterCancel = end.Sub(time.Unix(0, at))
		r.AtCancel, _ = atCancel.Load().(string)
	}
	capability, codec := contract(d)
	if vs := sink.Check(req.Streaming, capability, resp, err, codec); len(vs) > 0 {
		if !errors.Is(err, adaptertest.ErrSinkFailed) {
			t.Errorf("violations:\n%s", vs)
		}
	}
	for _, ev := range sink.Events {
		if ev.Type == driver.RunEventSpawn {
			if pid, ok := ev.Data["pid"].(int); ok {
				r.PID = pid
			}
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%d goroutines left after Run:\n%s", n-before, buf)
	}
	if resp.RawStreams != nil && !strings.HasPrefix(resp.RawStreams.Stdout, r.AtCancel) {
		t.Errorf("the raw stdout lost bytes emitted before the cancel")
	}
	if r.PID > 0 {
		if live := GroupAlive(r.PID, 2*time.Second); len(live) > 0 {
			t.Errorf("process group %d still has running processes after Run: %v", r.PID, live)
		}
	}
	return r
}

// The prompts of the scenarios every reference driver runs; fake CLI
// scripts key their replies on them.
const (
	// ResumePrompt is the prompt of adaptertest's resume run.
	ResumePrompt = "What did you say?"
	// CancelPrompt is the prompt of the runs that are cancelled while
	// the model stalls.
	CancelPrompt = "Write a long essay."
)

// Conformance runs adaptertest.TestDriver on drivers from factory with
// what every reference driver declares (driver.ParamCWD as a session and
// guard key, a foreign config rejected) and opts (the live, resume and
// cancel runs).
func Conformance(t *testing.T, factory func() driver.Driver, opts ...adaptertest.Option) {
	t.Helper()
	adaptertest.TestDriver(t, factory, append([]adaptertest.Option{
		adaptertest.WithSessionKeys(driver.ParamCWD),
		adaptertest.WithGuardKeys(driver.ParamCWD),
		adaptertest.ExpectRejectForeignConfig(),
	}, opts...)...)
}

// Request is the request of a fake CLI run of prompt: streaming, in
// os.TempDir(), with a workspace and profile for the resume guard.
func Request(prompt string) driver.Request {
	return request("r1", prompt, driver.WorkspaceLease{ID: "ws", CWD: os.TempDir()})
}

func request(runID, prompt string, ws driver.WorkspaceLease) driver.Request {
	return driver.Request{RunID: runID, Prompt: prompt, Streaming: true, Workspace: ws,
		ProfilePayload: driver.ProfilePayload{Fingerprint: "p", SessionCompatibilityFingerprint: "ps"}}
}

// contract returns what d declares of its stream and session contract (the
// zero capability and a nil codec where it declares nothing).
func contract(d driver.Driver) (driver.StreamCapability, driver.SessionCodec) {
	var capability driver.StreamCapability
	if ss, ok := d.(driver.StreamSupport); ok {
		capability = ss.StreamCapability()
	}
	var codec driver.SessionCodec
	if cp, ok := d.(driver.SessionCodecProvider); ok {
		codec = cp.SessionCodec()
	}
	return capability, codec
}

// Stdout concatenates the stdout chunk events recorded by sink.
func Stdout(sink *SnapSink) string {
	var b strings.Builder
	for _, ev := range sink.Events {
		if ev.Type == driver.RunEventChunk && ev.Stream == driver.StreamStdout {
			b.Write(ev.Bytes)
		}
	}
	return b.String()
}

// Executable is the running test binary, used as a fake CLI.
func Executable(t testing.TB) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// GroupAlive waits up to wait for the process group pgid to have no
// running member and returns the members still running (pid: command).
// Zombies, killed processes that init has not reaped yet, do not count.
func GroupAlive(pgid int, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return nil
		}
		var live []string
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			// pid (comm) state ppid pgrp ...
			i := strings.LastIndexByte(string(b), ')')
			if i < 0 {
				continue
			}
			f := strings.Fields(string(b[i+1:]))
			if len(f) < 3 || f[0] == "Z" || f[2] != strconv.Itoa(pgid) {
				continue
			}
			live = append(live, e.Name()+": "+string(b[:i+1]))
		}
		if len(live) == 0 || time.Now().After(deadline) {
			return live
		}
		time.Sleep(20 * time.Millisecond)
	}
}
