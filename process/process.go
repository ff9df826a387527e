// Package process runs a provider CLI for a driver: it starts the command in
// its own process group, writes stdin (once, or kept open for a protocol),
// reads stdout and stderr, sends every read as a driver.RunEventChunk with
// the exact bytes, hands stdout to the driver's parser in order, and on
// cancellation stops the provider gently before killing it. It guesses no
// provider semantics: no session ids, no checkpoints.
//
// # Guarantees
//
//   - Raw capture: Result.Stdout and Result.Stderr hold every byte the
//     process wrote, and the chunk events of a stream concatenate to them.
//     Bytes are captured before any observer sees them.
//   - Order: the stdout observer sees stdout in order on one goroutine
//     (up to a kill by this package, see Command.Stdout);
//     stderr is collected on another. Chunk events of one stream are emitted
//     in order.
//   - Joins: Wait returns only after the process wait, both readers and the
//     gentle stop have finished (contract §8, §11), so the snapshot is
//     complete. The one goroutine that may outlive Wait is the copy of a
//     Command.Stdin whose Read blocks (see Command.Stdin); it makes no call
//     into the sink and touches nothing of the Result.
//   - Cancellation: when ctx ends, the grace timer starts and
//     Command.Interrupt runs on its own goroutine (the provider's gentle
//     stop: a protocol interrupt, or by default SIGINT to the process
//     group); the copy of Command.Stdin stops and stdin is closed unless
//     the command keeps it for a protocol. If the process has not exited
//     when the grace (Command.Grace, default DefaultGrace) ends, or at once
//     when the gentle stop fails, the whole group is killed with SIGKILL
//     and stdin is closed, so every stdin write still blocked on a CLI
//     that does not read (the Interrupt's own included) fails with an
//     error wrapping os.ErrClosed. Between ctx ending and the kill or
//     exit each reader reads at most CancelReadLimit, so a CLI flooding
//     through its stop costs bounded memory and parsing (the rest waits in
//     the pipe and is read after the kill); after a kill the observer is
//     not called (Command.Stdout). Whatever the CLI does, Wait returns
//     within the grace plus DrainTimeout (and scheduling) after ctx ended.
//   - No process left: after the leader exits, any process left in its
//     group is killed, and on Linux so are descendants that left the group
//     (setsid, a double fork). Where a cgroup v2 directory can be created
//     below the host's own cgroup (root, or a delegated cgroup) every run
//     gets one, the CLI starts inside it, and all of it is killed; where
//     none can be, a descendant that left the group is found only while it
//     holds the run's stdout or stderr pipe, and one that also closed
//     those survives the run (outside Linux it always does). The host is
//     not made a child subreaper: it would become the parent of every
//     orphan of every child it runs, and have to reap them. Readers are
//     given DrainTimeout to reach EOF; then the pipes are closed.
//   - Errors: a sink or observer error stops the process (SIGKILL of the
//     group) and is returned by Wait; a non-zero exit is data in Result, not
//     an error.
//
// Sink calls come from the stdout and stderr goroutines and the caller's;
// wrap a sink that is not safe for concurrent use with Serialize.
package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentwire/agentwire/driver"
)

// DefaultGrace is how long a cancelled process gets to exit after its
// gentle stop before the group is killed.
const DefaultGrace = 2 * time.Second

// DrainTimeout bounds how long, after the process exited and what was left
// of the run was killed, both readers may sit in a read that brings
// nothing (a descendant this package could not find holds a pipe) before
// the pipes are closed; readers that still receive bytes, or whose
// observer is still working, are waited for. It also bounds how long Wait
// waits for a Command.Interrupt that does not return. A variable so tests
// can shrink it.
var DrainTimeout = 500 * time.Millisecond

// ReadSize is the size of each read from the pipes. A variable so tests can
// shrink it.
var ReadSize = 32 << 10

// ObserveSize is the largest piece of stdout one Command.Stdout call gets.
var ObserveSize = 4 << 10

// CancelReadLimit is how much more each reader reads once ctx ended and
// before the process exits or is killed: enough for a CLI's goodbye after
// its gentle stop. A CLI that floods through its stop then blocks on the
// full pipe; what the pipe holds is read after the kill. It bounds the
// memory and the parsing a stop costs. A variable so tests can change it.
var CancelReadLimit = 1 << 20

// Command describes the process to run.
type Command struct {
	// Path and Args are the program and its arguments (Args without
	// argv[0]).
	Path string
	Args []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env is the exact environment, in order; nil means os.Environ().
	// Invocation events list the variable names only, never values.
	Env []string
	// Stdin, when non-nil, is copied to the process's stdin, which is then
	// closed. When nil and KeepStdin is false the process gets an empty,
	// closed stdin. The copy stops when ctx ends or the process exits:
	// stdin is closed then, and a Read of Stdin that is blocking at that
	// moment (a host's own os.Stdin, a pipe nobody writes) is abandoned:
	// Wait does not wait for it, and its goroutine ends, without writing,
	// when that Read returns. Close such a source to end it.
	Stdin io.Reader
	// KeepStdin keeps stdin open for a protocol: write through
	// Process.Stdin and close it when done. It stays open through the
	// gentle stop (for a protocol interrupt) and is closed when the
	// process is killed or exits.
	KeepStdin bool
	// Stdout observes stdout in order, on the stdout goroutine, in pieces
	// of at most ObserveSize bytes of each chunk after the chunk is
	// captured and emitted. A piece is valid only during the call. A
	// returned error stops the process and is returned by Wait. Once this
	// package has killed the process (the grace ran out, the gentle stop
	// failed, an error) Stdout is not called again: what the pipes still
	// hold is captured and emitted as chunks but not observed, so a parser
	// working through a flood does not hold the stop up by more than one
	// piece.
	Stdout func(chunk []byte) error
	// Interrupt is the gentle stop run, on its own goroutine, when ctx
	// ends. Nil means SIGINT to the process group. An error kills the
	// group at once. It may block on stdin writes (they fail when the
	// grace ends) but on nothing else: Wait waits for it at most
	// DrainTimeout after the process exited.
	Interrupt func(p *Process) error
	// Grace is how long to wait after ctx ended before SIGKILL; zero means
	// DefaultGrace. It runs from the moment ctx ended, not from when
	// Interrupt returned.
	Grace time.Duration
}

// KillReason says why this package killed a process.
type KillReason string

// The reasons for a kill.
const (
	// KillGrace: ctx ended and the process had not exited when the grace
	// ran out.
	KillGrace KillReason = "grace"
	// KillInterruptFailed: ctx ended and the gentle stop returned an error.
	KillInterruptFailed KillReason = "interrupt_failed"
	// KillError: a sink, observer or I/O error stopped the run.
	KillError KillReason = "error"
)

// Result is the observed outcome of a run.
//
// Who ended the process: Signal is the signal that ended the leader. With
// Killed and Signal "SIGKILL" this package killed it (KillReason says
// why); with Interrupted and Signal "SIGINT" and the default Interrupt, it
// was this package's gentle stop; any other signal, or a SIGKILL without
// Killed, came from outside.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int
	// Signal names the signal that ended the process ("SIGKILL"), if any.
	Signal string
	// Cancelled and TimedOut report why ctx ended, if it did before the
	// process exited: cancellation or deadline.
	Cancelled, TimedOut bool
	// Interrupted reports that ctx ended while the process ran and the
	// gentle stop (Command.Interrupt) was started; InterruptError is its
	// error, if it failed.
	Interrupted    bool
	InterruptError error
	// Killed reports that this package sent SIGKILL to the process group
	// while the leader was running, and KillReason why.
	Killed     bool
	KillReason KillReason
	// KilledDescendants reports that processes of the run were still alive
	// after the leader exited (in its group, or escaped from it and found)
	// and this package killed them. It says nothing of how the leader
	// ended.
	KilledDescendants bool
	// PID is the process id.
	PID int
}

// Process is a started command.
type Process struct {
	cmd  *exec.Cmd
	c    Command
	sink driver.EventSink
	cg   *cgroup // nil where no cgroup could be created

	stdinW    *os.File
	stdinM    sync.Mutex // serializes writers
	stdinOnce sync.Once
	copier    *stdinCopy  // nil without Command.Stdin
	pipes     [2]*os.File // stdout and stderr read ends

	mu         sync.Mutex
	stdout     bytes.Buffer
	stderr     bytes.Buffer
	firstErr   error
	killed     bool
	killReason KillReason
	finished   bool // the result is taken: no more kills or errors

	exited   chan struct{} // closed when cmd.Wait returned
	waitErr  error
	readers  sync.WaitGroup
	progress atomic.Uint64 // reads returned
	// unobserved is set by the kill: the observer is not called after it
	unobserved atomic.Bool
	cancelled  atomic.Bool   // ctx ended: CancelReadLimit applies
	released   chan struct{} // closed at the kill or exit: read without limit
	releaseOne sync.Once
	busy       atomic.Int32  // readers between a Read and the next
	done       chan struct{} // closed when the supervisor finished
	result     Result
	err        error
}

// Start launches c and returns at once. The process is supervised until
// Wait returns; Wait must be called.
func Start(ctx context.Context, c Command, sink driver.EventSink) (*Process, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW, errR, errW)
		return nil, err
	}
	names := make([]string, 0, len(c.Env))
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if i := bytes.IndexByte([]byte(kv), '='); i > 0 {
			names = append(names, kv[:i])
		}
	}
	if err := sink.Emit(driver.RunEvent{Type: driver.RunEventInvocation, Text: c.Path,
		Data: map[string]any{"args": append([]string(nil), c.Args...), "cwd": c.Dir, "env": names}}); err != nil {
		closeAll(outR, outW, errR, errW, inR, inW)
		return nil, err
	}
	cmd, cg, err := start(c, inR, outW, errW)
	if err != nil {
		closeAll(outR, outW, errR, errW, inR, inW)
		return nil, fmt.Errorf("process: start %s: %w", c.Path, err)
	}
	closeAll(outW, errW, inR) // the child holds its ends now

	p := &Process{cmd: cmd, c: c, sink: sink, cg: cg, stdinW: inW, exited: make(chan struct{}), done: make(chan struct{}), released: make(chan struct{})}
	p.result.PID = cmd.Process.Pid
	p.pipes = [2]*os.File{outR, errR}
	if err := sink.Emit(driver.RunEvent{Type: driver.RunEventSpawn, Data: map[string]any{"pid": cmd.Process.Pid, "started_at": time.Now().UTC().Format(time.RFC3339Nano)}}); err != nil {
		p.fail(err)
	}

	p.readers.Add(2)
	go p.read(outR, driver.StreamStdout, &p.stdout, c.Stdout)
	go p.read(errR, driver.StreamStderr, &p.stderr, nil)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	switch {
	case c.Stdin != nil:
		p.copier = &stdinCopy{done: make(chan struct{})}
		go p.copyStdin(c.Stdin)
	case !c.KeepStdin:
		p.closeStdin()
	}
	go p.supervise(ctx)
	return p, nil
}

// start starts the command in its own process group, inside a new cgroup
// where one can be created.
func start(c Command, stdin, stdout, stderr *os.File) (*exec.Cmd, *cgroup, error) {
	cmd := func() *exec.Cmd {
		cmd := exec.Command(c.Path, c.Args...)
		cmd.Dir, cmd.Env = c.Dir, c.Env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	cg := newCgroup()
	if cg == nil {
		out := cmd()
		return out, nil, out.Start()
	}
	in := cmd()
	cg.attach(in.SysProcAttr)
	err := in.Start()
	cg.started()
	if err == nil {
		return in, cg, nil
	}
	cg.remove(0)
	if in.Err != nil { // the lookup failed: no cgroup would help
		return nil, nil, err
	}
	// Did the kernel refuse the cgroup (no clone3, a cgroup that cannot
	// take processes), or the exec fail? Started without one, the first;
	// then stop making cgroups.
	out := cmd()
	if out.Start() != nil {
		return nil, nil, err
	}
	useCgroups.Store(false)
	return out, nil, nil
}

// Run starts c and waits for it.
func Run(ctx context.Context, c Command, sink driver.EventSink) (Result, error) {
	p, err := Start(ctx, c, sink)
	if err != nil {
		return Result{}, err
	}
	return p.Wait()
}

// Stdin returns the process's stdin for protocol writes (Command.KeepStdin).
// Writes after the process exited or was killed, or after CloseStdin, fail
// with an error wrapping os.ErrClosed, and so does a write blocked on a
// full pipe at that moment. It is safe for concurrent use.
func (p *Process) Stdin() io.Writer { return lockedWriter{p} }

// CloseStdin closes stdin; it is idempotent.
func (p *Process) CloseStdin() error {
	p.closeStdin()
	return nil
}

// Signal sends sig to the whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait waits for the process, both readers and the gentle stop, and
// returns the result. The error is the first launch, I/O, sink or observer
// error; a non-zero exit is not an error.
func (p *Process) Wait() (Result, error) {
	<-p.done
	return p.result, p.err
}

type lockedWriter struct{ p *Process }

// Write writes one whole message at a time: concurrent writers do not
// interleave. After CloseStdin the error wraps os.ErrClosed.
func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.stdinM.Lock()
	defer w.p.stdinM.Unlock()
	return w.p.stdinW.Write(b)
}

// closeStdin closes stdin once. It does not take stdinM: a writer blocked
// on a full pipe holds it, and closing the file is what unblocks that
// writer (the pipe is non-blocking under the runtime poller).
func (p *Process) closeStdin() {
	p.stdinOnce.Do(func() { _ = p.stdinW.Close() })
}

// stdinCopy is the state of the Command.Stdin copy.
type stdinCopy struct {
	mu      sync.Mutex
	reading bool // inside Stdin.Read
	stopped bool // stdin is closed: read no more
	done    chan struct{}
}

// copyStdin copies Command.Stdin to stdin, then closes stdin.
func (p *Process) copyStdin(src io.Reader) {
	c := p.copier
	defer close(c.done)
	defer p.closeStdin()
	buf := make([]byte, 32<<10)
	for {
		c.mu.Lock()
		if c.stopped {
			c.mu.Unlock()
			return
		}
		c.reading = true
		c.mu.Unlock()
		n, rerr := src.Read(buf)
		c.mu.Lock()
		c.reading = false
		stopped := c.stopped
		c.mu.Unlock()
		if stopped {
			return
		}
		if n > 0 {
			if _, err := (lockedWriter{p}).Write(buf[:n]); err != nil {
				if !errors.Is(err, os.ErrClosed) && !errors.Is(err, syscall.EPIPE) {
					p.fail(fmt.Errorf("process: write stdin: %w", err))
				}
				return
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				p.fail(fmt.Errorf("process: read Command.Stdin: %w", rerr))
			}
			return
		}
	}
}

// stopCopy closes stdin and stops the Command.Stdin copy: it waits for it
// unless it is inside Read, which it abandons (the copy returns when that
// Read does, without writing).
func (p *Process) stopCopy() {
	p.closeStdin()
	c := p.copier
	if c == nil {
		return
	}
	c.mu.Lock()
	c.stopped = true
	abandoned := c.reading
	c.mu.Unlock()
	if !abandoned {
		<-c.done // it sees stopped next, or its write fails on the closed pipe
	}
}

func (p *Process) fail(err error) {
	p.mu.Lock()
	first := p.firstErr == nil && !p.finished
	if first {
		p.firstErr = err
	}
	p.mu.Unlock()
	if first {
		p.kill(KillError)
	}
}

// kill SIGKILLs the group (and the cgroup), stops the observer and closes
// stdin, so every blocked stdin write fails.
func (p *Process) kill(why KillReason) {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	select {
	case <-p.exited:
	default:
		if !p.killed {
			p.killed, p.killReason = true, why
		}
	}
	p.mu.Unlock()
	p.unobserved.Store(true)
	p.release()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if p.cg != nil {
		p.cg.kill()
	}
	p.closeStdin()
}

func (p *Process) read(f *os.File, stream string, raw *bytes.Buffer, observe func([]byte) error) {
	defer p.readers.Done()
	buf := make([]byte, ReadSize)
	afterCancel := 0
	for {
		if p.cancelled.Load() && afterCancel >= CancelReadLimit {
			<-p.released
		}
		n, err := f.Read(buf)
		if p.cancelled.Load() {
			afterCancel += n
		}
		p.progress.Add(1)
		p.busy.Add(1)
		if n > 0 {
			chunk := buf[:n]
			p.mu.Lock()
			raw.Write(chunk)
			p.mu.Unlock()
			if p.alive() {
				if e := p.sink.Emit(driver.RunEvent{Type: driver.RunEventChunk, Stream: stream, Bytes: append([]byte(nil), chunk...)}); e != nil {
					p.fail(e)
				} else if observe != nil {
					for len(chunk) > 0 && !p.unobserved.Load() {
						piece := chunk[:min(len(chunk), ObserveSize)]
						chunk = chunk[len(piece):]
						if e := observe(piece); e != nil {
							p.fail(e)
						}
					}
				}
			}
		}
		p.busy.Add(-1)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.fail(fmt.Errorf("process: read %s: %w", stream, err))
			}
			return
		}
	}
}

// alive reports whether sink and observer calls should still be made: not
// after a sink or observer error.
func (p *Process) alive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.firstErr == nil
}

func (p *Process) supervise(ctx context.Context) {
	defer close(p.done)
	var graceC <-chan time.Time
	var intrC chan error // the gentle stop's outcome, while it runs
	ctxDone := ctx.Done()
	for waiting := true; waiting; {
		select {
		case <-p.exited:
			waiting = false
		case <-ctxDone:
			ctxDone = nil
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				p.result.TimedOut = true
			} else {
				p.result.Cancelled = true
			}
			p.result.Interrupted = true
			p.cancelled.Store(true)
			grace := p.c.Grace
			if grace <= 0 {
				grace = DefaultGrace
			}
			t := time.NewTimer(grace) // from now, whatever Interrupt does
			defer t.Stop()
			graceC = t.C
			if !p.c.KeepStdin {
				p.stopCopy()
			}
			intrC = make(chan error, 1)
			go func() { intrC <- p.interrupt() }()
		case err := <-intrC:
			intrC = nil
			if err != nil { // the gentle stop failed: no point waiting
				p.result.InterruptError = err
				graceC = nil
				p.kill(KillInterruptFailed)
			}
		case <-graceC:
			graceC = nil
			p.kill(KillGrace)
		}
	}
	p.release()
	// The leader is gone; anything left of the run goes too, so pipes it
	// inherited reach EOF and stdin writers return.
	// With a cgroup it alone says whether anything was left: a group
	// whose members were killed and not yet reaped (zombies) still takes a
	// signal.
	//
	// The cgroup is asked first: the process group's SIGKILL before it
	// killed the descendants, their new parent reaped them, and the
	// cgroup was then found empty, so a run that had left a descendant
	// reported none (TestGrandchildInGroupIsKilled failed so under load).
	var left bool
	if p.cg != nil {
		left = p.cg.kill()
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	} else {
		left = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) == nil
	}
	p.stopCopy()
	deadline := time.NewTimer(DrainTimeout)
	defer deadline.Stop()
	if intrC != nil {
		select {
		case err := <-intrC:
			if err != nil {
				p.result.InterruptError = err
			}
		case <-deadline.C:
			p.fail(errors.New("process: Command.Interrupt did not return after the process exited"))
			deadline.Reset(DrainTimeout)
		}
	}
	drained := make(chan struct{})
	go func() { p.readers.Wait(); close(drained) }()
	tick := time.NewTicker(max(DrainTimeout/5, time.Millisecond))
	defer tick.Stop()
	idleSince, seen := time.Now(), p.progress.Load()
	for draining := true; draining; {
		select {
		case <-drained:
			draining = false
		case now := <-tick.C:
			if n := p.progress.Load(); n != seen || p.busy.Load() > 0 {
				seen, idleSince = n, now // still reading, or still observing
				continue
			}
			// Without a cgroup a descendant that left the group can still
			// hold a pipe: find it by the pipe and kill it.
			if p.cg == nil && findPipeHolders(p.pipes[0], p.pipes[1]) {
				left = true
			}
			if now.Sub(idleSince) >= DrainTimeout {
				// Something this package cannot find holds a pipe and
				// writes nothing: stop reading. Closing our read ends
				// makes the blocked reads return.
				p.fail(errors.New("process: output pipes still open after the process exited; stopped reading"))
				closeAll(p.pipes[0], p.pipes[1])
				<-drained
				draining = false
			}
		}
	}
	closeAll(p.pipes[0], p.pipes[1])
	if p.cg != nil && p.cg.remove(DrainTimeout) {
		left = true
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished = true
	p.result.Stdout = p.stdout.Bytes() // the readers are done: no copy needed
	p.result.Stderr = p.stderr.Bytes()
	p.result.Killed, p.result.KillReason = p.killed, p.killReason
	p.result.KilledDescendants = left
	p.result.ExitCode, p.result.Signal = exitStatus(p.cmd.ProcessState)
	var exitErr *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exitErr) {
		p.err = fmt.Errorf("process: wait: %w", p.waitErr)
	}
	if p.firstErr != nil {
		p.err = p.firstErr
	}
}

// release lifts CancelReadLimit.
func (p *Process) release() { p.releaseOne.Do(func() { close(p.released) }) }

// interrupt runs the gentle stop.
func (p *Process) interrupt() error {
	if p.c.Interrupt != nil {
		return p.c.Interrupt(p)
	}
	return p.Signal(syscall.SIGINT)
}

func exitStatus(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, SignalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL",
	syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGPIPE: "SIGPIPE",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
}

// SignalName is the name Result.Signal gives a signal: "SIGKILL", or
// "SIG<n>" for one without a name here.
func SignalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return "SIG" + strconv.Itoa(int(s))
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
