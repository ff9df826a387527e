// Package appserver is the reference driver for the Codex app-server, the
// JSON-RPC protocol `codex app-server` speaks over stdio.
//
// Each Run starts one app-server process (package process) with stdin kept
// open and drives one turn:
//
//	-> initialize (id 0)            <- result
//	-> initialized
//	-> thread/start or thread/resume (id 1)   <- result {thread: {id}}
//	-> turn/start (id 2)            <- notifications ... turn/completed
//	   (server requests: approvals, answered through DecisionCapableSink)
//	close stdin                     the server exits
//
// Stdout is framed with jsonrpc as it arrives and fed to the
// parsers/appserver state machine; every line the driver writes is fed to
// it too (FeedClient) so responses pair with their requests and approval
// answers with the server's requests. RawStreams are the exact bytes the
// process wrote.
//
// Approvals (command execution, file change) are handed to
// driver.DecisionCapableSink; without one they are declined. Requests the
// parser cannot answer get a JSON-RPC "method not found" error.
//
// # Cancellation
//
// The gentle stop is turn/interrupt for the running turn (the server ends
// it with turn/completed status "interrupted" and the driver closes stdin);
// before a turn is known, or when that fails, the process group is killed
// at once. The group is killed Config.Grace (DefaultGrace) after the
// cancel in any case: a turn/interrupt or an answer still blocked on a
// stdin the server does not read fails then, and Run returns within the
// grace and a second with no process of the run left (package process).
package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"syscall"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/internal/clirun"
	"github.com/agentwire/agentwire/jsonrpc"
	pa "github.com/agentwire/agentwire/parsers/appserver"
	"github.com/agentwire/agentwire/process"
)

// Type is the Descriptor type of this driver.
const Type = "codex-app-server"

// DefaultGrace is the time the app-server gets to end an interrupted turn
// before its process group is killed.
const DefaultGrace = 1500 * time.Millisecond

const fingerprintDomain = "agentwire/drivers/appserver/v1;" + pa.CodecName

// Config is the construction configuration of an app-server driver. Every
// field is provider-visible and takes part in SessionConfigFingerprint.
type Config struct {
	// Binary is the codex executable; empty means "codex".
	Binary string
	// Model is the thread's model (thread/start and thread/resume param
	// "model"); Request.ModelOverride wins over it.
	Model string
	// ApprovalPolicy is the thread's approvalPolicy ("untrusted",
	// "on-request", "on-failure", "never"), empty for the server default.
	ApprovalPolicy string
	// Sandbox is the thread's sandbox mode ("read-only",
	// "workspace-write", "danger-full-access"), empty for the default.
	Sandbox string
	// ExtraArgs are appended after "app-server".
	ExtraArgs []string
	// CodexHome, when set, is exported as CODEX_HOME.
	CodexHome string
	// Env are KEY=VALUE entries set in the child environment, in order.
	Env []string
	// IsolateEnv starts the child from an empty environment.
	IsolateEnv bool
	// LegacyTurnEnd accepts the v1 task_complete / turn_aborted events as
	// the end of the turn, for builds without turn/completed (0.58).
	LegacyTurnEnd bool
	// Grace is the time between turn/interrupt and SIGKILL; zero means
	// DefaultGrace.
	Grace time.Duration
	// MaxLineSize bounds one stdout line (ndjson default when zero).
	MaxLineSize int
}

// Driver is a configured app-server driver. Build it with New.
type Driver struct {
	cfg Config
}

var (
	_ driver.Driver                     = (*Driver)(nil)
	_ driver.StreamSupport              = (*Driver)(nil)
	_ driver.SessionCodecProvider       = (*Driver)(nil)
	_ driver.SessionConfigFingerprinter = (*Driver)(nil)
)

// New returns a driver that runs the app-server with cfg (copied).
func New(cfg Config) *Driver { return &Driver{cfg: clone(cfg)} }

func clone(c Config) Config {
	c.ExtraArgs = append([]string(nil), c.ExtraArgs...)
	c.Env = append([]string(nil), c.Env...)
	return c
}

// Config returns a copy of the captured configuration.
func (d *Driver) Config() Config { return clone(d.cfg) }

// Descriptor declares the driver: resume by thread/resume, host
// workspaces (the thread's cwd), permission decisions asked of the host.
func (d *Driver) Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Type:          Type,
		DisplayName:   "Codex app-server (JSON-RPC)",
		ConfigSchema:  configSchema(),
		Sessions:      driver.SessionCapability{SupportsResume: true},
		Workspace:     driver.WorkspaceCapability{Supported: true},
		RunPolicyCaps: driver.RunPolicyCapabilities{Permission: driver.HumanDecisionSupport{Ask: true}},
	}
}

func configSchema() *driver.ConfigSchema {
	return &driver.ConfigSchema{Fields: []driver.ConfigField{
		{Name: "binary", Label: "Codex binary", Type: "text", Default: "codex", Group: "command"},
		{Name: "model", Label: "Model", Type: "text", Group: "model"},
		{Name: "approval_policy", Label: "Approval policy", Type: "select", Group: "permissions", Options: []driver.ConfigOption{
			{Value: "untrusted"}, {Value: "on-request"}, {Value: "on-failure"}, {Value: "never"}}},
		{Name: "sandbox", Label: "Sandbox", Type: "select", Group: "permissions", Options: []driver.ConfigOption{
			{Value: "read-only"}, {Value: "workspace-write"}, {Value: "danger-full-access"}}},
		{Name: "extra_args", Label: "Extra arguments", Type: "textarea", Group: "command"},
		{Name: "codex_home", Label: "CODEX_HOME", Type: "text", Group: "command"},
		{Name: "env", Label: "Environment", Type: "textarea", Group: "execution"},
		{Name: "isolate_env", Label: "Do not inherit the environment", Type: "toggle", Group: "execution"},
		{Name: "legacy_turn_end", Label: "Legacy turn end (codex 0.58)", Type: "toggle", Group: "execution"},
		{Name: "grace", Label: "Grace before SIGKILL", Type: "text", Group: "execution"},
		{Name: "max_line_size", Label: "Largest stdout line", Type: "number", Group: "execution"},
	}}
}

// StreamCapability is parsers/appserver.Capability: native, token-level,
// reasoning and HITL; complete tool arguments.
func (d *Driver) StreamCapability() driver.StreamCapability { return pa.Capability }

// SessionCodec returns parsers/appserver.Codec.
func (d *Driver) SessionCodec() driver.SessionCodec { return pa.Codec }

// SessionConfigFingerprint is driver.CanonicalConfigFingerprint of the
// construction Config under the driver and codec contract.
func (d *Driver) SessionConfigFingerprint() (string, error) {
	return driver.CanonicalConfigFingerprint(fingerprintDomain, d.cfg)
}

// configType resolves, validates and compares Configs.
var configType = clirun.ConfigType[Config]{Pkg: "appserver", Clone: clone, Validate: validate}

// ValidateConfig validates cfg; nil means the captured configuration.
func (d *Driver) ValidateConfig(cfg any) error { return configType.ValidateConfig(d.cfg, cfg) }

// base is what c shares with the other drivers' Configs. The thread id
// goes over JSON-RPC, not on the command line.
func (c Config) base() clirun.Base {
	return clirun.Base{Pkg: "appserver", Binary: c.Binary, DefaultBinary: "codex", HomeVar: "CODEX_HOME", Home: c.CodexHome,
		Env: c.Env, IsolateEnv: c.IsolateEnv, Grace: c.Grace, DefaultGrace: DefaultGrace, MaxLineSize: c.MaxLineSize}
}

func validate(c Config) error { return c.base().Validate() }

// Command builds the process command without running it.
func (d *Driver) Command(req driver.Request) (process.Command, error) {
	c := d.cfg
	if err := validate(c); err != nil {
		return process.Command{}, err
	}
	cmd, _, err := c.base().Command(req)
	if err != nil {
		return process.Command{}, err
	}
	cmd.Args = append([]string{"app-server"}, c.ExtraArgs...)
	cmd.KeepStdin = true
	return cmd, nil
}

// threadParams are the thread/start and thread/resume settings.
func (d *Driver) threadParams(req driver.Request) map[string]any {
	m := map[string]any{}
	if model := clirun.Model(d.cfg.Model, req); model != "" {
		m["model"] = model
	}
	if req.Workspace.CWD != "" {
		m["cwd"] = req.Workspace.CWD
	}
	if d.cfg.ApprovalPolicy != "" {
		m["approvalPolicy"] = d.cfg.ApprovalPolicy
	}
	if d.cfg.Sandbox != "" {
		m["sandbox"] = d.cfg.Sandbox
	}
	return m
}

// The driver's request ids.
const (
	idInitialize = 0
	idThread     = 1
	idTurn       = 2
	idInterrupt  = 3 // and up
)

// session is the client side of one run. frame runs on the stdout
// goroutine; interrupt on the supervisor's, and only queues what it wrote
// for the parser.
type session struct {
	ctx    context.Context
	p      *pa.Parser
	sink   driver.EventSink
	prompt string
	resume string
	params map[string]any

	proc *process.Process

	mu       sync.Mutex
	queued   [][]byte // client lines written off the stdout goroutine
	thread   string
	turn     string
	nextIntr int64
	done     bool
}

// send writes a client line and feeds it to the parser (on the stdout
// goroutine only).
func (s *session) send(b []byte) error {
	if err := s.write(b); err != nil {
		return err
	}
	return s.feedClient(b)
}

func (s *session) write(b []byte) error {
	return clirun.WriteStdin(s.proc, b) // the server gone or the turn over is no error: the outcome speaks
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

func (s *session) Feed(f jsonrpc.Frame) error {
	if err := s.drainQueued(); err != nil {
		return err
	}
	if err := s.p.Feed(f); err != nil {
		return err
	}
	s.mu.Lock()
	s.thread, s.turn = s.p.ThreadID(), s.p.TurnID()
	s.mu.Unlock()
	if f.Class == jsonrpc.Response || f.Class == jsonrpc.ErrorResponse {
		if n, ok := f.ID.Int64(); ok {
			if err := s.response(n, f); err != nil {
				return err
			}
		}
	}
	for _, a := range s.p.TakeApprovals() {
		if err := s.approval(a); err != nil {
			return err
		}
	}
	if s.p.Terminal() != nil && !s.done {
		s.done = true
		_ = s.proc.CloseStdin() // one turn per run: let the server exit
	}
	return nil
}

func (s *session) response(id int64, f jsonrpc.Frame) error {
	if f.Class == jsonrpc.ErrorResponse {
		if id == idInitialize || id == idThread || id == idTurn {
			s.done = true
			_ = s.proc.CloseStdin() // the session cannot go on; the parser keeps the error
		}
		return nil
	}
	switch id {
	case idInitialize:
		b, err := pa.AppendInitialized(nil)
		if err != nil {
			return err
		}
		if err := s.send(b); err != nil {
			return err
		}
		if s.resume != "" {
			b, err = pa.AppendThreadResume(nil, jsonrpc.IntID(idThread), s.resume, s.params)
		} else {
			b, err = pa.AppendThreadStart(nil, jsonrpc.IntID(idThread), s.params)
		}
		if err != nil {
			return err
		}
		return s.send(b)
	case idThread:
		var r struct {
			Thread struct {
				ID string `json:"id"`
			} `json:"thread"`
		}
		if json.Unmarshal(f.Result, &r) != nil || r.Thread.ID == "" {
			s.done = true
			_ = s.proc.CloseStdin()
			return nil
		}
		b, err := pa.AppendTurnStart(nil, jsonrpc.IntID(idTurn), r.Thread.ID, s.prompt, nil)
		if err != nil {
			return err
		}
		return s.send(b)
	}
	return nil
}

func (s *session) approval(a pa.Approval) error {
	if !a.Answerable() {
		b, err := pa.AppendErrorResponse(nil, a.ID, -32601, "agentwire: "+a.Method+" is not supported by this driver")
		if err != nil {
			return err
		}
		return s.send(b)
	}
	b, err := a.Answer(clirun.Decide(s.ctx, s.sink, a.Decision))
	if err != nil {
		return err
	}
	return s.send(b)
}

func (s *session) FeedError(err error) error { return s.p.FeedError(err) }

// interrupt is the gentle stop: turn/interrupt of the running turn.
func (s *session) interrupt(p *process.Process) error {
	s.mu.Lock()
	thread, turn := s.thread, s.turn
	id := idInterrupt + s.nextIntr
	s.nextIntr++
	s.mu.Unlock()
	if thread == "" || turn == "" {
		return errors.New("appserver: no turn to interrupt yet")
	}
	b, err := pa.AppendTurnInterrupt(nil, jsonrpc.IntID(id), thread, turn)
	if err != nil {
		return err
	}
	if _, err := p.Stdin().Write(b); err != nil {
		return err
	}
	s.mu.Lock()
	s.queued = append(s.queued, b)
	s.mu.Unlock()
	return nil
}

// Run runs one app-server turn. A request Config must be nil or equal to
// the captured one.
func (d *Driver) Run(ctx context.Context, req driver.Request, sink driver.EventSink) (driver.Response, error) {
	if err := configType.CheckRequest(d.cfg, req.Config); err != nil {
		return driver.Response{}, err
	}
	cmd, err := d.Command(req)
	if err != nil {
		return driver.Response{}, err
	}
	var resume string
	if st, _ := d.cfg.base().Resume(req); st != nil { // Command accepted the session
		resume = st.ResumeID
	}
	sink = process.Serialize(sink)
	p := pa.New(sink, pa.Options{Streaming: req.Streaming, SessionData: clirun.SessionData(req), ThreadID: resume, LegacyTurnEnd: d.cfg.LegacyTurnEnd})
	s := &session{ctx: ctx, p: p, sink: sink, prompt: req.Prompt, resume: resume, params: d.threadParams(req)}
	dec := jsonrpc.NewDecoder(jsonrpc.Options{MaxLineSize: d.cfg.MaxLineSize}, clirun.Emit[jsonrpc.Frame](jsonrpc.IsRecoverable, s))
	cmd.Interrupt = s.interrupt
	return clirun.Run{
		Stdout: func(b []byte) error {
			_, err := dec.Write(b)
			return err
		},
		Started: func(proc *process.Process) error {
			s.proc = proc
			init, err := pa.AppendInitialize(nil, jsonrpc.IntID(idInitialize), pa.ClientInfo{Name: "agentwire", Title: "agentwire reference driver", Version: "1"}, nil)
			if err == nil {
				err = s.send(init) // before the observer runs: no race on the parser
			}
			if err != nil {
				_ = proc.Signal(syscall.SIGKILL)
			}
			return err
		},
		Flush: func() error {
			cerr := dec.Close()
			if qerr := s.drainQueued(); cerr == nil {
				return qerr
			}
			return cerr
		},
		Finish:   p.Finish,
		Terminal: p.Terminal,
	}.Exec(ctx, cmd, sink)
}
