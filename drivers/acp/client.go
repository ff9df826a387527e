package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/internal/clirun"
	"github.com/agentwire/agentwire/jsonrpc"
	pacp "github.com/agentwire/agentwire/parsers/acp"
	"github.com/agentwire/agentwire/process"
)

// The ACP methods the driver serves.
const (
	mRequestPermission = "session/request_permission"
	mReadTextFile      = "fs/read_text_file"
	mWriteTextFile     = "fs/write_text_file"
)

// The driver's request ids: one of each per run.
const (
	idInitialize = 0
	idSession    = 1 // session/new or session/load
	idPrompt     = 2
)

// session is the client side of one run. Feed runs on the stdout
// goroutine and is the only writer of the protocol state; interrupt runs
// on the supervisor's, and the answers to terminal/wait_for_exit on their
// own: they only read the session state and queue the lines they wrote
// for the parser.
type session struct {
	ctx    context.Context
	p      *pacp.Parser
	sink   driver.EventSink
	runID  string
	prompt string
	cwd    string
	resume string // the session to load, "" for a new one
	ws     *workspace
	terms  *terminals // nil unless Config.Terminal
	fs     bool       // fs/* are advertised and served
	exit   time.Duration

	proc *process.Process

	mu        sync.Mutex
	queued    [][]byte // client lines written off the stdout goroutine
	sessionID string   // set once the session is open
	prompted  bool     // session/prompt was written
	done      bool     // the session is over: stdin closed
	err       error    // why the driver gave up on the session, if it did
	exitTimer *time.Timer

	// The prompt of a loaded session waits for the replay to pause
	// (promptAfterReplay): activity is signalled by Feed, quit closed by
	// stop, async the goroutine.
	activity chan struct{}
	quit     chan struct{}
	async    sync.WaitGroup
}

// send writes a client line and feeds it to the parser (on the stdout
// goroutine, or in Started before the observer runs).
func (s *session) send(b []byte, err error) error {
	if err != nil {
		return err
	}
	if err := clirun.WriteStdin(s.proc, b); err != nil {
		return err
	}
	return s.feedClient(b)
}

func (s *session) feedClient(b []byte) error {
	f, err := jsonrpc.ClassifyBytes(trimLF(b), jsonrpc.Options{})
	if err != nil {
		return nil // our own lines always classify
	}
	return s.p.FeedClient(f)
}

func trimLF(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// writeLater writes a client line off the stdout goroutine and queues it
// for the parser, which sees it before the next agent line. It is queued
// before it is written: the agent's answer to it can arrive, and be fed,
// before the write returns, and the parser must see the client line
// first. A line whose write then fails was still fed: the agent got it
// partly or not at all, and the run is ending (the outcome says why).
func (s *session) writeLater(w func() error, b []byte) error {
	s.mu.Lock()
	s.queued = append(s.queued, b)
	s.mu.Unlock()
	return w()
}

func (s *session) drainQueued() error {
	s.mu.Lock()
	q := s.queued
	s.queued = nil
	s.mu.Unlock()
	for _, b := range q {
		if err := s.feedClient(b); err != nil {
			return err
		}
	}
	return nil
}

// start writes initialize, advertising exactly what the driver serves.
func (s *session) start() error {
	caps := map[string]any{
		"fs":       map[string]bool{"readTextFile": s.fs, "writeTextFile": s.fs},
		"terminal": s.terms != nil,
	}
	return s.send(pacp.AppendInitialize(nil, jsonrpc.IntID(idInitialize),
		pacp.ClientInfo{Name: "agentwire", Title: "agentwire reference driver", Version: "1"}, caps))
}

// Feed handles one agent line: the parser sees it first, then the driver
// advances the handshake and answers the agent's requests.
func (s *session) Feed(f jsonrpc.Frame) error {
	if err := s.drainQueued(); err != nil {
		return err
	}
	if err := s.p.Feed(f); err != nil {
		return err
	}
	if s.activity != nil {
		select {
		case s.activity <- struct{}{}: // the replay goes on
		default:
		}
	}
	if f.Class == jsonrpc.Response || f.Class == jsonrpc.ErrorResponse {
		if n, ok := f.ID.Int64(); ok {
			if err := s.response(n, f); err != nil {
				return err
			}
		}
	}
	for _, r := range s.p.TakeRequests() {
		if err := s.serve(r); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) FeedError(err error) error { return s.p.FeedError(err) }

// response advances the handshake on the answers to the driver's requests
// (the parser has read them: the agent's capabilities, the session id).
func (s *session) response(id int64, f jsonrpc.Frame) error {
	if s.isDone() {
		return nil
	}
	if f.Class == jsonrpc.ErrorResponse {
		if id <= idPrompt {
			s.finish(nil) // the session cannot go on; the parser keeps the error
		}
		return nil
	}
	switch id {
	case idInitialize:
		if s.resume == "" {
			return s.send(pacp.AppendSessionNew(nil, jsonrpc.IntID(idSession), s.cwd, nil))
		}
		if !s.p.LoadSession() {
			s.finish(fmt.Errorf("acp: cannot resume session %q: the agent does not advertise loadSession", s.resume))
			return nil
		}
		return s.send(pacp.AppendSessionLoad(nil, jsonrpc.IntID(idSession), s.resume, s.cwd, nil))
	case idSession:
		sid := s.resume
		if sid == "" {
			if sid = s.p.SessionID(); sid == "" {
				s.finish(errors.New("acp: session/new result without a sessionId"))
				return nil
			}
		}
		s.mu.Lock()
		s.sessionID = sid
		if s.resume != "" {
			s.mu.Unlock()
			s.promptAfterReplay()
			return nil
		}
		// Marked before the write: a cancel racing it then sends
		// session/cancel rather than killing a turn that has begun.
		s.prompted = true
		s.mu.Unlock()
		return s.send(pacp.AppendPrompt(nil, jsonrpc.IntID(idPrompt), sid, s.prompt))
	case idPrompt:
		s.finish(nil) // the turn is over: one turn per run
	}
	return nil
}

// Replay settling: how long the agent's output must pause after the
// session/load response before the driver prompts, and the longest it
// waits for that pause.
var (
	replayQuiet = 750 * time.Millisecond
	replayMax   = 10 * time.Second
)

// promptAfterReplay sends the prompt of a loaded session once the agent's
// output has paused for replayQuiet after the load response (at most
// replayMax after it), on a goroutine of its own that Flush waits for. The
// specification has the agent replay the history before it answers
// session/load, but Gemini CLI streams it after its answer: prompting at
// once would interleave the history with the turn, and the parser, which
// takes the updates before the client's session/prompt as history (with
// the client side fed), would count it as output.
func (s *session) promptAfterReplay() {
	s.activity = make(chan struct{}, 1)
	s.quit = make(chan struct{})
	s.async.Add(1)
	go func() {
		defer s.async.Done()
		deadline := time.NewTimer(replayMax)
		defer deadline.Stop()
		quiet := time.NewTimer(replayQuiet)
		defer quiet.Stop()
	wait:
		for {
			select {
			case <-s.quit:
				return
			case <-s.ctx.Done():
				return
			case <-s.activity:
				quiet.Reset(replayQuiet)
			case <-quiet.C:
				break wait
			case <-deadline.C:
				break wait
			}
		}
		s.mu.Lock()
		if s.done || s.prompted {
			s.mu.Unlock()
			return
		}
		s.prompted = true // before the write, as in response
		sid := s.sessionID
		s.mu.Unlock()
		b, err := pacp.AppendPrompt(nil, jsonrpc.IntID(idPrompt), sid, s.prompt)
		if err == nil {
			_ = s.writeLater(func() error { return clirun.WriteStdin(s.proc, b) }, b) // a failed write: the outcome says why
		}
	}()
}

func (s *session) isDone() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// finish ends the session: stdin is closed so the agent exits, and if it
// has not exited after the exit wait its process group gets SIGTERM, then
// SIGKILL after as long again (an agent that keeps running after its stdin
// closed). err, when set, is why the driver gave up; it becomes the run's
// error.
func (s *session) finish(err error) {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return
	}
	s.done = true
	if s.err == nil {
		s.err = err
	}
	proc, wait := s.proc, s.exit
	s.exitTimer = time.AfterFunc(wait, func() {
		select {
		case <-proc.Exited():
			return
		case <-s.ctx.Done():
			return // the cancel's grace governs now
		default:
		}
		_ = proc.Signal(syscall.SIGTERM)
		select {
		case <-proc.Exited():
		case <-s.ctx.Done():
		case <-time.After(wait):
			_ = proc.Signal(syscall.SIGKILL)
		}
	})
	s.mu.Unlock()
	_ = proc.CloseStdin()
}

// stop releases the exit timer and the replay wait once the process was
// waited for, and waits for the replay wait to end.
func (s *session) stop() {
	s.mu.Lock()
	s.done = true
	if s.exitTimer != nil {
		s.exitTimer.Stop()
	}
	if s.quit != nil {
		close(s.quit)
	}
	s.mu.Unlock()
	s.async.Wait()
}

// failure is why the driver gave up on the session, if it did.
func (s *session) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// serve answers one agent request. Every request gets an answer: a
// result, or a JSON-RPC error (method not found for what the driver does
// not serve), so an agent never waits on the driver. terminal/wait_for_exit
// is answered when the command exits, off the stdout goroutine.
func (s *session) serve(r pacp.Request) error {
	if r.Method == mRequestPermission && r.Decision != nil {
		return s.send(r.Answer(s.decide(r)))
	}
	var result any
	var rerr *rpcError
	switch {
	case r.OtherScope:
		rerr = refuse(codeInvalidParams, "unknown session %q", r.SessionID)
	case r.Method == mReadTextFile && s.fs:
		result, rerr = s.readFile(r.Params)
	case r.Method == mWriteTextFile && s.fs:
		result, rerr = s.writeFile(r.Params)
	case strings.HasPrefix(r.Method, "terminal/") && s.terms != nil:
		var later bool
		id := r.ID
		result, rerr, later = s.serveTerminal(r.Method, r.Params, func(res any, e *rpcError) {
			b, err := answer(id, res, e)
			if err == nil {
				_ = s.writeLater(func() error { return clirun.WriteStdin(s.proc, b) }, b)
			}
		})
		if later {
			return nil
		}
	default:
		rerr = refuse(codeMethodNotFound, "%s is not served by this client", r.Method)
	}
	return s.send(answer(r.ID, result, rerr))
}

// answer encodes the answer to an agent request.
func answer(id jsonrpc.ID, result any, rerr *rpcError) ([]byte, error) {
	if rerr != nil {
		return pacp.AppendErrorResponse(nil, id, rerr.code, rerr.msg)
	}
	return pacp.AppendResult(nil, id, result)
}

// decide asks the host about a permission request (clirun.Decide: the
// decision-capable sink, else the safe default, a rejection) and returns
// the decision Request.Answer encodes. A decision that failed while the
// run goes on (the host's sink erred) is a rejection too: the agent is
// told no and goes on, rather than being told its turn was cancelled.
// Only once the run's context has ended is the answer the cancelled
// outcome, as ACP requires for a permission pending at session/cancel.
// A request about another session is not the host's to decide: it is
// rejected.
func (s *session) decide(r pacp.Request) driver.DecisionResponse {
	if r.OtherScope {
		return clirun.NoDecision()
	}
	req := *r.Decision
	req.RunID = s.runID
	resp := clirun.Decide(s.ctx, s.sink, req)
	if s.ctx.Err() != nil {
		return driver.DecisionResponse{RequestID: resp.RequestID, Result: driver.DecisionAborted, Text: "the run was cancelled"}
	}
	if resp.Result != driver.DecisionApproved && resp.Result != driver.DecisionRejected && resp.Result != driver.DecisionTimedOut {
		resp.Result = driver.DecisionRejected
	}
	return resp
}

// params decodes a request's params into v.
func params(raw []byte, v any) *rpcError {
	if err := json.Unmarshal(raw, v); err != nil {
		return refuse(codeInvalidParams, "params: %v", err)
	}
	return nil
}

// checkSession refuses a request about another session than the run's.
func (s *session) checkSession(id string) *rpcError {
	s.mu.Lock()
	own := s.sessionID
	s.mu.Unlock()
	if id != own {
		return refuse(codeInvalidParams, "unknown session %q", id)
	}
	return nil
}

func (s *session) readFile(raw []byte) (any, *rpcError) {
	var p struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Limit     int    `json:"limit"`
	}
	if rerr := params(raw, &p); rerr != nil {
		return nil, rerr
	}
	if rerr := s.checkSession(p.SessionID); rerr != nil {
		return nil, rerr
	}
	content, rerr := s.ws.read(p.Path, p.Line, p.Limit)
	if rerr != nil {
		return nil, rerr
	}
	return map[string]string{"content": content}, nil
}

func (s *session) writeFile(raw []byte) (any, *rpcError) {
	var p struct {
		SessionID string  `json:"sessionId"`
		Path      string  `json:"path"`
		Content   *string `json:"content"`
	}
	if rerr := params(raw, &p); rerr != nil {
		return nil, rerr
	}
	if rerr := s.checkSession(p.SessionID); rerr != nil {
		return nil, rerr
	}
	if p.Content == nil {
		return nil, refuse(codeInvalidParams, "%s without content", mWriteTextFile)
	}
	if rerr := s.ws.write(p.Path, *p.Content); rerr != nil {
		return nil, rerr
	}
	return map[string]any{}, nil
}

// interrupt is the gentle stop: session/cancel for a turn that has begun;
// before that there is nothing to cancel and the group is killed at once.
// A pending permission request is answered "cancelled" (decide), as the
// host's RequestDecision returns on the cancelled context; terminal
// commands are killed.
func (s *session) interrupt(p *process.Process) error {
	s.mu.Lock()
	sid, prompted, done := s.sessionID, s.prompted, s.done
	s.mu.Unlock()
	if s.terms != nil {
		s.terms.killAll() // the agent is to stop its tool calls
	}
	if done {
		return nil // the turn is over and stdin closed: the agent is exiting
	}
	if !prompted {
		return errors.New("acp: no prompt turn to cancel yet")
	}
	b, err := pacp.AppendCancel(nil, sid)
	if err != nil {
		return err
	}
	return s.writeLater(func() error { _, err := p.Stdin().Write(b); return err }, b)
}
