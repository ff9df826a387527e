package record

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentwire/agentwire/provider"
)

// signals are the signals a scenario may send.
var signals = map[string]syscall.Signal{
	"SIGINT":  syscall.SIGINT,
	"SIGTERM": syscall.SIGTERM,
	"SIGKILL": syscall.SIGKILL,
	"SIGHUP":  syscall.SIGHUP,
}

func signalName(s syscall.Signal) string {
	for k, v := range signals {
		if v == s {
			return k
		}
	}
	return s.String()
}

// proc is one running CLI: its stdin (recorded), stdout lines and stderr.
type proc struct {
	cmd *exec.Cmd

	mu          sync.Mutex
	stdin       io.WriteCloser
	stdinLog    bytes.Buffer
	stdinUsed   bool
	stdinClosed bool
	finished    bool          // the driver ended the session
	finishC     chan struct{} // closed by finish

	stdout bytes.Buffer // written by the stdout reader only
	stderr bytes.Buffer // written by the stderr reader only
}

// send writes one line (a newline is appended) to the CLI's stdin.
func (p *proc) send(line []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdinClosed {
		return errors.New("stdin already closed")
	}
	p.stdinUsed = true
	b := append(append([]byte(nil), line...), '\n')
	p.stdinLog.Write(b)
	_, err := p.stdin.Write(b)
	return err
}

// closeStdin closes the CLI's stdin once.
func (p *proc) closeStdin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stdinClosed {
		p.stdinClosed = true
		_ = p.stdin.Close()
	}
}

// signal sends sig to the CLI's process group, as a terminal would.
func (p *proc) signal(sig syscall.Signal) error {
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// runResult is what one CLI invocation produced.
type runResult struct {
	Stdout, Stderr, Stdin []byte
	StdinUsed             bool
	ExitCode              int
	Signal                string // signal that ended the process, if any
	SentSignal            string // signal the recorder sent, if any
	Interrupted           bool   // the recorder sent a protocol interrupt
	TimedOut              bool
	Killed                string // how the recorder ended a process that would not exit
	Duration              time.Duration
}

// runSpec is everything needed to start one invocation.
type runSpec struct {
	Argv    []string
	Env     []string
	Dir     string
	Timeout time.Duration
	// Requests receives one value per model request of this run, when the
	// mock has written its reply.
	Requests <-chan int
	Signal   *Trigger
	Intr     *Trigger
	// ExitGrace is how long to wait for exit after stdin is closed and
	// stdout reached EOF, before SIGTERM.
	ExitGrace time.Duration
}

// driver speaks the CLI's stdin protocol.
type driver interface {
	// start is called once the process runs.
	start(p *proc) error
	// line is called with each complete stdout line (without newline).
	line(p *proc, l []byte) error
	// interrupt sends the protocol interrupt.
	interrupt(p *proc) error
	// session is the session/thread id seen so far.
	session() string
}

// execute runs one invocation to completion under driver d.
func execute(ctx context.Context, spec runSpec, d driver) (*runResult, error) {
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	p := &proc{cmd: cmd, stdin: stdin, finishC: make(chan struct{})}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return nil, err
	}
	outW.Close()
	errW.Close()
	pgid := cmd.Process.Pid
	defer func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }() // leftovers of our own group

	lines := make(chan []byte, 64)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		defer close(lines)
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				p.stdout.Write(l)
				if l[len(l)-1] == '\n' {
					lines <- bytes.TrimSuffix(l, []byte("\n"))
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer readers.Done()
		_, _ = io.Copy(&p.stderr, errR)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	res := &runResult{}
	if err := d.start(p); err != nil {
		res.Killed = "driver start: " + err.Error()
		_ = p.signal(syscall.SIGKILL)
	}
	timeout := time.NewTimer(spec.Timeout)
	defer timeout.Stop()
	fire := make(chan string, 4)
	var timers []*time.Timer
	defer func() {
		for _, t := range timers {
			t.Stop()
		}
	}()
	nreq := 0
	reqs := spec.Requests
	var waitErr error
	done := false
	var graceC <-chan time.Time
	finishC := p.finishC
	for !done {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			if err := d.line(p, l); err != nil && res.Killed == "" {
				res.Killed = "driver: " + err.Error()
			}
		case <-finishC:
			finishC = nil
			graceC = time.After(spec.ExitGrace)
		case <-reqs:
			nreq++
			for kind, t := range map[string]*Trigger{"signal": spec.Signal, "interrupt": spec.Intr} {
				if t != nil && t.OnRequest == nreq {
					kind := kind
					timers = append(timers, time.AfterFunc(time.Duration(t.DelayMS)*time.Millisecond, func() { fire <- kind }))
				}
			}
		case kind := <-fire:
			switch kind {
			case "signal":
				sig := signals[spec.Signal.Name]
				res.SentSignal = signalName(sig)
				_ = p.signal(sig)
			case "interrupt":
				res.Interrupted = true
				if err := d.interrupt(p); err != nil && res.Killed == "" {
					res.Killed = "interrupt: " + err.Error()
				}
			}
		case <-graceC:
			if res.Killed == "" {
				res.Killed = provider.SessionOverNote
				_ = p.signal(syscall.SIGTERM)
				graceC = time.After(5 * time.Second)
			} else {
				res.Killed += "; SIGKILL"
				_ = p.signal(syscall.SIGKILL)
				graceC = nil
			}
		case <-timeout.C:
			res.TimedOut = true
			_ = p.signal(syscall.SIGKILL)
		case <-ctx.Done():
			_ = p.signal(syscall.SIGKILL)
			waitErr = <-exited
			done = true
		case waitErr = <-exited:
			done = true
		}
	}
	// The process is gone; its children may still hold the pipes.
	p.closeStdin()
	var rest [][]byte
	drained := make(chan struct{})
	if lines != nil {
		go func() {
			for l := range lines {
				rest = append(rest, l)
			}
			close(drained)
		}()
	} else {
		close(drained)
	}
	rd := make(chan struct{})
	go func() { readers.Wait(); close(rd) }()
	select {
	case <-rd:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		outR.Close()
		errR.Close()
		<-rd
	}
	<-drained
	for _, l := range rest { // lines read after exit
		_ = d.line(p, l)
	}
	outR.Close()
	errR.Close()
	res.Duration = time.Since(start)
	res.Stdout = p.stdout.Bytes()
	res.Stderr = p.stderr.Bytes()
	p.mu.Lock()
	res.Stdin = p.stdinLog.Bytes()
	res.StdinUsed = p.stdinUsed
	p.mu.Unlock()
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = signalName(ws.Signal())
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return res, fmt.Errorf("wait: %w", waitErr)
	}
	return res, nil
}

// finish closes stdin and marks the session over: the CLI is expected to
// exit within the run's ExitGrace.
func (p *proc) finish() {
	p.closeStdin()
	p.mu.Lock()
	if !p.finished {
		p.finished = true
		close(p.finishC)
	}
	p.mu.Unlock()
}

// finishAfter calls finish after d, so that notifications the CLI sends
// right after its terminal event are still captured before stdin closes.
func (p *proc) finishAfter(d time.Duration) {
	time.AfterFunc(d, p.finish)
}
