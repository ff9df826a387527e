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
//   - Order: the stdout observer sees stdout in order on one goroutine;
//     stderr is collected on another. Chunk events of one stream are emitted
//     in order.
//   - Joins: Wait returns only after the stdin writer, both readers and the
//     process wait have finished (contract §8, §11), so the snapshot is
//     complete and no goroutine of this package outlives Wait.
//   - Cancellation: when ctx ends, Command.Interrupt runs (the provider's
//     gentle stop: a protocol interrupt, or by default SIGINT to the process
//     group); if the process has not exited after Command.Grace (default
//     DefaultGrace) the whole group is killed with SIGKILL. After the
//     leader exits, any process left in its group is killed too, and
//     readers are given DrainTimeout to reach EOF (a grandchild that left the
//     group may hold a pipe open); then the pipes are closed.
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
	"syscall"
	"time"

	"github.com/agentwire/agentwire/driver"
)

// DefaultGrace is how long a cancelled process gets to exit after its
// gentle stop before the group is killed.
const DefaultGrace = 2 * time.Second

// DrainTimeout bounds how long readers may keep reading after the process
// exited and its group was killed. A variable so tests can shrink it.
var DrainTimeout = 2 * time.Second

// ReadSize is the size of each read from the pipes. A variable so tests can
// shrink it.
var ReadSize = 32 << 10

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
	// closed stdin.
	Stdin io.Reader
	// KeepStdin keeps stdin open for a protocol: write through
	// Process.Stdin and close it when done (Wait closes it at the end).
	KeepStdin bool
	// Stdout observes stdout chunks in order, on the stdout goroutine,
	// after they are captured and emitted. The chunk is valid only during
	// the call. A returned error stops the process and is returned by Wait.
	Stdout func(chunk []byte) error
	// Interrupt is the gentle stop run when ctx ends. Nil means SIGINT to
	// the process group.
	Interrupt func(p *Process) error
	// Grace is how long to wait after Interrupt before SIGKILL; zero means
	// DefaultGrace.
	Grace time.Duration
}

// Result is the observed outcome of a run.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int
	// Signal names the signal that ended the process ("SIGKILL"), if any.
	Signal string
	// Cancelled and TimedOut report why ctx ended, if it did before the
	// process exited: cancellation or deadline.
	Cancelled, TimedOut bool
	// Interrupted and Killed report what this package did to stop it.
	Interrupted, Killed bool
	// PID is the process id.
	PID int
}

// Process is a started command.
type Process struct {
	cmd  *exec.Cmd
	c    Command
	sink driver.EventSink

	stdinW    *os.File
	stdinM    sync.Mutex // serializes writers
	stdinOnce sync.Once
	pipes     [2]*os.File // stdout and stderr read ends

	mu        sync.Mutex
	stdout    bytes.Buffer
	stderr    bytes.Buffer
	firstErr  error
	killed    bool
	interrupt bool

	exited  chan struct{} // closed when cmd.Wait returned
	waitErr error
	readers sync.WaitGroup
	writer  sync.WaitGroup
	done    chan struct{} // closed when the supervisor finished
	result  Result
	err     error
}

// Start launches c and returns at once. The process is supervised until
// Wait returns; Wait must be called.
func Start(ctx context.Context, c Command, sink driver.EventSink) (*Process, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

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
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

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
	if err := cmd.Start(); err != nil {
		closeAll(outR, outW, errR, errW, inR, inW)
		return nil, fmt.Errorf("process: start %s: %w", c.Path, err)
	}
	closeAll(outW, errW, inR) // the child holds its ends now

	p := &Process{cmd: cmd, c: c, sink: sink, stdinW: inW, exited: make(chan struct{}), done: make(chan struct{})}
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
		p.writer.Add(1)
		go func() {
			defer p.writer.Done()
			_, err := io.Copy(lockedWriter{p}, c.Stdin)
			p.closeStdin()
			if err != nil && !errors.Is(err, os.ErrClosed) && !errors.Is(err, syscall.EPIPE) {
				p.fail(fmt.Errorf("process: write stdin: %w", err))
			}
		}()
	case !c.KeepStdin:
		p.closeStdin()
	}
	go p.supervise(ctx)
	return p, nil
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
// Writes after the process exited, or after CloseStdin, fail with an error
// wrapping os.ErrClosed. It is safe for concurrent use.
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

// Wait waits for the process, both readers and the stdin writer, and
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
// writer.
func (p *Process) closeStdin() {
	p.stdinOnce.Do(func() { _ = p.stdinW.Close() })
}

func (p *Process) fail(err error) {
	p.mu.Lock()
	first := p.firstErr == nil
	if first {
		p.firstErr = err
	}
	p.mu.Unlock()
	if first {
		p.kill()
	}
}

func (p *Process) kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

func (p *Process) read(f *os.File, stream string, raw *bytes.Buffer, observe func([]byte) error) {
	defer p.readers.Done()
	defer f.Close()
	buf := make([]byte, ReadSize)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			p.mu.Lock()
			raw.Write(chunk)
			p.mu.Unlock()
			if p.alive() {
				if e := p.sink.Emit(driver.RunEvent{Type: driver.RunEventChunk, Stream: stream, Bytes: append([]byte(nil), chunk...)}); e != nil {
					p.fail(e)
				} else if observe != nil {
					if e := observe(chunk); e != nil {
						p.fail(e)
					}
				}
			}
		}
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
			p.mu.Lock()
			p.interrupt = true
			p.mu.Unlock()
			var err error
			if p.c.Interrupt != nil {
				err = p.c.Interrupt(p)
			} else {
				err = p.Signal(syscall.SIGINT)
			}
			grace := p.c.Grace
			if grace <= 0 {
				grace = DefaultGrace
			}
			if err != nil { // the gentle stop failed: no point waiting
				grace = 0
			}
			t := time.NewTimer(grace)
			defer t.Stop()
			graceC = t.C
		case <-graceC:
			graceC = nil
			p.kill()
		}
	}
	// The leader is gone; anything left in its group goes too, so pipes it
	// inherited reach EOF.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.closeStdin()
	p.writer.Wait()
	drained := make(chan struct{})
	go func() { p.readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(DrainTimeout):
		// A process outside the group holds a pipe: stop reading. Closing
		// our read ends makes the blocked reads return.
		p.fail(errors.New("process: output pipes still open after the process exited; stopped reading"))
		closeAll(p.pipes[0], p.pipes[1])
		<-drained
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	p.result.Stdout = bytes.Clone(p.stdout.Bytes())
	p.result.Stderr = bytes.Clone(p.stderr.Bytes())
	p.result.Killed = p.killed
	p.result.Interrupted = p.interrupt
	p.result.ExitCode, p.result.Signal = exitStatus(p.cmd.ProcessState)
	var exitErr *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exitErr) {
		p.err = fmt.Errorf("process: wait: %w", p.waitErr)
	}
	if p.firstErr != nil {
		p.err = p.firstErr
	}
}

func exitStatus(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL",
	syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGPIPE: "SIGPIPE",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
}

func signalName(s syscall.Signal) string {
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
