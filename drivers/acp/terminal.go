package acp

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/agentwire/agentwire/process"
)

// The terminal/* methods, served when Config.Terminal is set.
const (
	mTerminalCreate  = "terminal/create"
	mTerminalOutput  = "terminal/output"
	mTerminalWait    = "terminal/wait_for_exit"
	mTerminalKill    = "terminal/kill"
	mTerminalRelease = "terminal/release"
)

// terminals runs the commands an agent starts with terminal/create, each
// in its own process group, with stdin empty and stdout and stderr
// retained together up to a byte limit. Every command is killed (the whole
// group) when it is released, when the run is cancelled and when the run
// ends; close waits for them.
type terminals struct {
	dir   string     // the session cwd, the default working directory
	ws    *workspace // confines a requested cwd
	env   []string   // the agent's environment, the base of each command's
	limit int        // the largest output retained

	mu     sync.Mutex
	next   int
	m      map[string]*terminal
	closed bool
	wg     sync.WaitGroup // command waiters and wait_for_exit answers
}

type terminal struct {
	cmd  *exec.Cmd
	out  *tail
	done chan struct{} // closed when the command has exited
	exit exitStatus    // valid once done is closed
}

// exitStatus is the ACP TerminalExitStatus.
type exitStatus struct {
	ExitCode *int    `json:"exitCode"`
	Signal   *string `json:"signal"`
}

// tail keeps the last limit bytes written, cut at a character boundary.
type tail struct {
	mu        sync.Mutex
	b         []byte
	limit     int
	truncated bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.limit {
		cut := len(t.b) - t.limit
		for cut < len(t.b) && !utf8.RuneStart(t.b[cut]) {
			cut++
		}
		t.b = append(t.b[:0], t.b[cut:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *tail) snapshot() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b), t.truncated
}

type createParams struct {
	SessionID       string   `json:"sessionId"`
	Command         string   `json:"command"`
	Args            []string `json:"args"`
	Env             []envVar `json:"env"`
	CWD             *string  `json:"cwd"`
	OutputByteLimit *int64   `json:"outputByteLimit"`
}

type envVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type terminalParams struct {
	SessionID  string `json:"sessionId"`
	TerminalID string `json:"terminalId"`
}

// create starts a command and returns its terminal id. A cwd outside the
// workspace is refused like a file path.
func (ts *terminals) create(p createParams) (any, *rpcError) {
	if p.Command == "" {
		return nil, refuse(codeInvalidParams, "%s without a command", mTerminalCreate)
	}
	dir := ts.dir
	if p.CWD != nil && *p.CWD != "" {
		if _, e := ts.ws.rel(*p.CWD); e != nil {
			return nil, e
		}
		dir = *p.CWD
	}
	limit := ts.limit
	if p.OutputByteLimit != nil && *p.OutputByteLimit >= 0 && *p.OutputByteLimit < int64(limit) {
		limit = int(*p.OutputByteLimit)
	}
	cmd := exec.Command(p.Command, p.Args...)
	cmd.Dir = dir
	cmd.Env = append([]string(nil), ts.env...)
	for _, e := range p.Env {
		if e.Name == "" || containsNUL(e.Name) || containsNUL(e.Value) {
			return nil, refuse(codeInvalidParams, "invalid environment variable %q", e.Name)
		}
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	t := &terminal{cmd: cmd, out: &tail{limit: limit}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = t.out, t.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return nil, refuse(codeInternal, "the run is over")
	}
	if err := cmd.Start(); err != nil {
		return nil, refuse(codeInternal, "%s: %v", mTerminalCreate, err)
	}
	ts.next++
	id := "term-" + strconv.Itoa(ts.next)
	if ts.m == nil {
		ts.m = map[string]*terminal{}
	}
	ts.m[id] = t
	ts.wg.Add(1)
	go func() {
		defer ts.wg.Done()
		_ = cmd.Wait() // the status is in ProcessState
		ps := cmd.ProcessState
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := process.SignalName(ws.Signal())
			t.exit.Signal = &sig
		} else {
			code := ps.ExitCode()
			t.exit.ExitCode = &code
		}
		close(t.done)
	}()
	return map[string]string{"terminalId": id}, nil
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

func (ts *terminals) get(id string) (*terminal, *rpcError) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.m[id]
	if !ok {
		return nil, refuse(codeResourceNotFound, "unknown terminal %q", id)
	}
	return t, nil
}

// output is terminal/output: the retained output, whether it was cut, and
// the exit status once the command has exited.
func (ts *terminals) output(id string) (any, *rpcError) {
	t, e := ts.get(id)
	if e != nil {
		return nil, e
	}
	out, truncated := t.out.snapshot()
	r := map[string]any{"output": out, "truncated": truncated}
	select {
	case <-t.done:
		r["exitStatus"] = t.exit
	default:
	}
	return r, nil
}

// wait is terminal/wait_for_exit: answer runs (on its own goroutine, which
// close waits for) once the command has exited; it is killed when the run
// ends first.
func (ts *terminals) wait(id string, answer func(any, *rpcError)) *rpcError {
	t, e := ts.get(id)
	if e != nil {
		return e
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return refuse(codeInternal, "the run is over")
	}
	ts.wg.Add(1)
	go func() {
		defer ts.wg.Done()
		<-t.done
		answer(t.exit, nil)
	}()
	return nil
}

// kill is terminal/kill: the command's process group gets SIGKILL; the
// terminal stays until released.
func (ts *terminals) kill(id string) (any, *rpcError) {
	t, e := ts.get(id)
	if e != nil {
		return nil, e
	}
	t.stop()
	return map[string]any{}, nil
}

// release is terminal/release: the command is killed if it still runs
// and the terminal id is forgotten.
func (ts *terminals) release(id string) (any, *rpcError) {
	t, e := ts.get(id)
	if e != nil {
		return nil, e
	}
	t.stop()
	ts.mu.Lock()
	delete(ts.m, id)
	ts.mu.Unlock()
	return map[string]any{}, nil
}

func (t *terminal) stop() {
	select {
	case <-t.done:
	default:
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killAll kills every command still running (the run was cancelled).
func (ts *terminals) killAll() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, t := range ts.m {
		t.stop()
	}
}

// close kills every command, refuses new ones, and waits for the waiters
// and the pending wait_for_exit answers.
func (ts *terminals) close() {
	ts.mu.Lock()
	ts.closed = true
	ts.mu.Unlock()
	ts.killAll()
	ts.wg.Wait()
}

// serveTerminal answers one terminal/* request. wait_for_exit is answered
// later, through async.
func (s *session) serveTerminal(method string, raw []byte, async func(any, *rpcError)) (result any, rerr *rpcError, later bool) {
	if method == mTerminalCreate {
		var p createParams
		if rerr = params(raw, &p); rerr == nil {
			rerr = s.checkSession(p.SessionID)
		}
		if rerr != nil {
			return nil, rerr, false
		}
		result, rerr = s.terms.create(p)
		return result, rerr, false
	}
	var p terminalParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, refuse(codeInvalidParams, "params: %v", err), false
	}
	if rerr = s.checkSession(p.SessionID); rerr != nil {
		return nil, rerr, false
	}
	switch method {
	case mTerminalOutput:
		result, rerr = s.terms.output(p.TerminalID)
	case mTerminalWait:
		if rerr = s.terms.wait(p.TerminalID, async); rerr == nil {
			return nil, nil, true
		}
	case mTerminalKill:
		result, rerr = s.terms.kill(p.TerminalID)
	case mTerminalRelease:
		result, rerr = s.terms.release(p.TerminalID)
	default:
		rerr = refuse(codeMethodNotFound, "%s is not served by this client", method)
	}
	return result, rerr, false
}
