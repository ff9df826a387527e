// Package acp is the reference driver for agents that speak ACP, the Agent
// Client Protocol: JSON-RPC 2.0 over stdio, one message per line, as
// editors drive Gemini CLI (--acp), opencode (acp), GitHub Copilot CLI
// (--acp) and Qwen Code (--acp). It is generic: Config names the agent's
// command, arguments and environment, and nothing else in it is
// particular to one agent.
//
// Each Run starts the agent (package process) with stdin kept open and
// drives one prompt turn as the client:
//
//	-> initialize (id 0)                  <- result {agentCapabilities}
//	-> session/new {cwd} (id 1)           <- result {sessionId}
//	   or session/load {sessionId, cwd} on resume
//	-> session/prompt (id 2)              <- session/update notifications ...
//	                                      <- result {stopReason}
//	   (agent requests, answered by the driver)
//	close stdin                           the agent exits
//
// Stdout is framed with jsonrpc as it arrives and fed to the parsers/acp
// state machine, and every line the driver writes is fed to it too
// (FeedClient), so responses pair with their requests and the answers to
// permission requests with the requests. RawStreams are the exact bytes
// the process wrote.
//
// # What the client serves
//
// initialize advertises exactly what the driver answers:
// fs.readTextFile and fs.writeTextFile unless Config.NoFS, terminal only
// with Config.Terminal.
//
//   - session/request_permission goes to driver.DecisionCapableSink (one
//     choice per option, keyed by optionId). An approval selects the
//     allow_once option (allow_always only when it is the one allow
//     option offered, or the host chose it explicitly); anything else,
//     and a run without a decision-capable sink, selects reject_once
//     (else reject_always). A request pending when the run is cancelled
//     is answered with the "cancelled" outcome, as ACP requires.
//   - fs/read_text_file and fs/write_text_file are served inside the
//     run's working directory only: the path must be absolute and below
//     it, and every access goes through an os.Root opened on it, so
//     neither ".." nor a symbolic link reaches outside; anything else is
//     refused with a JSON-RPC error (-32602), a missing file with -32002.
//     Files are bounded by Config.MaxFileSize.
//   - terminal/create, terminal/output, terminal/wait_for_exit,
//     terminal/kill and terminal/release, with Config.Terminal: the
//     command runs with the agent's environment (plus the env the request
//     gives), stdin empty, in the session's cwd or a cwd inside it (else
//     refused like a path), in its own process group; stdout and stderr
//     are retained together, the last outputByteLimit bytes (at most
//     Config.MaxFileSize) cut at a character boundary. wait_for_exit is
//     answered when the command exits. Commands still running when the
//     run is cancelled or ends are killed (their process group), and Run
//     waits for them. Without Config.Terminal, terminal/* gets "method not
//     found".
//   - Every other request gets a JSON-RPC "method not found" error
//     (-32601) at once, so an agent never waits on the driver; agent
//     notifications other than session/update are fed to the parser and
//     otherwise ignored.
//
// # Resume
//
// A request that continues a session (Request.Session with a State) loads
// it with session/load when the agent's initialize result advertises
// loadSession; when it does not, the run fails without prompting. The
// prompt of a loaded session is sent once the agent's output has paused
// for 750 ms after the session/load answer (at most 10 s after it):
// Gemini CLI streams the history after its answer, not before it as the
// specification has it, and the history must reach the parser before the
// prompt does to be kept apart from the turn's output.
// Checkpoints come from parsers/acp: the session id, valid only under the
// conditions of the driver contract §9.
//
// # Cancellation
//
// The gentle stop is the session/cancel notification for the running
// turn, written before any signal; the agent answers the prompt with
// stopReason "cancelled" and the driver closes stdin. Before the prompt
// was sent there is no turn to cancel and the process group is killed at
// once. The group is killed Config.Grace (DefaultGrace) after the cancel
// in any case, and Run returns within the grace and a second with no
// process of the run left (package process).
//
// # After the turn
//
// Once the prompt is answered the driver closes stdin. An agent that does
// not exit then (Qwen Code keeps running) gets SIGTERM after
// Config.ExitWait (DefaultExitWait), and SIGKILL after as long again; the
// signal is the run's outcome, reported as such.
package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/internal/clirun"
	"github.com/agentwire/agentwire/jsonrpc"
	pacp "github.com/agentwire/agentwire/parsers/acp"
	"github.com/agentwire/agentwire/process"
)

// Type is the Descriptor type of this driver.
const Type = "acp"

// DefaultGrace is the time the agent gets to end a cancelled turn before
// its process group is killed.
const DefaultGrace = 1500 * time.Millisecond

// DefaultExitWait is how long an agent may run on after its turn ended and
// its stdin closed before it is signalled. Agents clean up before they
// exit (Gemini CLI flushes its session files and telemetry, and relaunches
// itself as a child whose parent exits 1 when signalled): on a loaded
// machine that takes seconds, and a signal then turns a clean exit into a
// failed run.
const DefaultExitWait = 10 * time.Second

const fingerprintDomain = "agentwire/drivers/acp/v1;" + pacp.CodecName

// Config is the construction configuration of an ACP driver. Every field
// is provider-visible and takes part in SessionConfigFingerprint.
type Config struct {
	// Command is the agent executable (a path, or a name looked up in
	// PATH). Required.
	Command string
	// Args are the agent's arguments, those that start its ACP mode
	// among them ("--acp", "acp").
	Args []string
	// Env are KEY=VALUE entries set in the child environment, in order,
	// after the inherited one.
	Env []string
	// IsolateEnv starts the child from an empty environment (then Env).
	IsolateEnv bool
	// NoFS does not advertise or serve fs/read_text_file and
	// fs/write_text_file: the agent uses its own file access.
	NoFS bool
	// MaxFileSize bounds a file read and a content written for the agent,
	// and the output retained of a terminal; zero means
	// DefaultMaxFileSize.
	MaxFileSize int64
	// Terminal advertises and serves terminal/*: the driver runs the
	// commands the agent asks for (see the package doc). Off, terminal/*
	// requests get "method not found".
	Terminal bool
	// Grace is the time between session/cancel and SIGKILL; zero means
	// DefaultGrace.
	Grace time.Duration
	// ExitWait is how long the agent may run after the turn ended and
	// stdin closed before SIGTERM; zero means DefaultExitWait.
	ExitWait time.Duration
	// MaxLineSize bounds one stdout line (jsonrpc's default when zero).
	MaxLineSize int
}

// Driver is a configured ACP driver. Build it with New.
type Driver struct {
	cfg Config
}

var (
	_ driver.Driver                     = (*Driver)(nil)
	_ driver.StreamSupport              = (*Driver)(nil)
	_ driver.SessionCodecProvider       = (*Driver)(nil)
	_ driver.SessionConfigFingerprinter = (*Driver)(nil)
)

// New returns a driver that runs the agent of cfg (copied).
func New(cfg Config) *Driver { return &Driver{cfg: clone(cfg)} }

func clone(c Config) Config {
	c.Args = append([]string(nil), c.Args...)
	c.Env = append([]string(nil), c.Env...)
	return c
}

// Config returns a copy of the captured configuration.
func (d *Driver) Config() Config { return clone(d.cfg) }

// Descriptor declares the driver: resume by session/load, host workspaces
// (the session's cwd, the root of the files it serves), permission
// decisions asked of the host.
func (d *Driver) Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Type:          Type,
		DisplayName:   "ACP agent (Agent Client Protocol)",
		ConfigSchema:  configSchema(),
		Sessions:      driver.SessionCapability{SupportsResume: true},
		Workspace:     driver.WorkspaceCapability{Supported: true},
		RunPolicyCaps: driver.RunPolicyCapabilities{Permission: driver.HumanDecisionSupport{Ask: true}},
	}
}

func configSchema() *driver.ConfigSchema {
	return &driver.ConfigSchema{Fields: []driver.ConfigField{
		{Name: "command", Label: "Agent command", Type: "text", Required: true, Group: "command"},
		{Name: "args", Label: "Arguments", Type: "textarea", Group: "command"},
		{Name: "env", Label: "Environment", Type: "textarea", Group: "execution"},
		{Name: "isolate_env", Label: "Do not inherit the environment", Type: "toggle", Group: "execution"},
		{Name: "no_fs", Label: "Do not serve files to the agent", Type: "toggle", Group: "permissions"},
		{Name: "max_file_size", Label: "Largest file served", Type: "number", Group: "permissions"},
		{Name: "terminal", Label: "Run terminal commands for the agent", Type: "toggle", Group: "permissions"},
		{Name: "grace", Label: "Grace before SIGKILL", Type: "text", Group: "execution"},
		{Name: "exit_wait", Label: "Wait for exit after the turn", Type: "text", Group: "execution"},
		{Name: "max_line_size", Label: "Largest stdout line", Type: "number", Group: "execution"},
	}}
}

// StreamCapability is parsers/acp.Capability.
func (d *Driver) StreamCapability() driver.StreamCapability { return pacp.Capability }

// SessionCodec returns parsers/acp.Codec.
func (d *Driver) SessionCodec() driver.SessionCodec { return pacp.Codec }

// SessionConfigFingerprint is driver.CanonicalConfigFingerprint of the
// construction Config under the driver and codec contract.
func (d *Driver) SessionConfigFingerprint() (string, error) {
	return driver.CanonicalConfigFingerprint(fingerprintDomain, d.cfg)
}

// configType resolves, validates and compares Configs.
var configType = clirun.ConfigType[Config]{Pkg: "acp", Clone: clone, Validate: validate}

// ValidateConfig validates cfg; nil means the captured configuration.
func (d *Driver) ValidateConfig(cfg any) error { return configType.ValidateConfig(d.cfg, cfg) }

// base is what c shares with the other drivers' Configs. The session id
// goes over JSON-RPC, not on the command line.
func (c Config) base() clirun.Base {
	return clirun.Base{Pkg: "acp", Binary: c.Command, Env: c.Env, IsolateEnv: c.IsolateEnv,
		Grace: c.Grace, DefaultGrace: DefaultGrace, MaxLineSize: c.MaxLineSize}
}

func validate(c Config) error {
	if c.Command == "" {
		return errors.New("acp: Command is required")
	}
	for i, a := range c.Args {
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("acp: Args[%d] contains NUL", i)
		}
	}
	if c.MaxFileSize < 0 {
		return errors.New("acp: negative MaxFileSize")
	}
	if c.ExitWait < 0 {
		return errors.New("acp: negative ExitWait")
	}
	return c.base().Validate()
}

// Command builds the process command without running it: Config.Command
// with Config.Args in the request's working directory, stdin kept open.
func (d *Driver) Command(req driver.Request) (process.Command, error) {
	c := d.cfg
	if err := validate(c); err != nil {
		return process.Command{}, err
	}
	if req.ModelOverride != "" {
		return process.Command{}, errors.New("acp: a model override is not supported: pass the agent's model flag in Config.Args")
	}
	cmd, _, err := c.base().Command(req)
	if err != nil {
		return process.Command{}, err
	}
	cmd.Args = append([]string(nil), c.Args...)
	cmd.KeepStdin = true
	return cmd, nil
}

// cwd is the session's working directory: the request's, made absolute
// (ACP requires an absolute cwd), else the current directory.
func cwd(req driver.Request) (string, error) {
	if req.Workspace.CWD != "" {
		return filepath.Abs(req.Workspace.CWD)
	}
	return os.Getwd()
}

// Run runs one ACP prompt turn. A request Config must be nil or equal to
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
	dir, err := cwd(req)
	if err != nil {
		return driver.Response{}, err
	}
	s := &session{ctx: ctx, runID: req.RunID, prompt: req.Prompt, cwd: dir, resume: resume, exit: d.cfg.ExitWait}
	if s.exit == 0 {
		s.exit = DefaultExitWait
	}
	limit := d.cfg.MaxFileSize
	if limit == 0 {
		limit = DefaultMaxFileSize
	}
	ws, err := openWorkspace(dir, limit)
	if err != nil {
		return driver.Response{}, err
	}
	defer ws.Close()
	s.ws = ws
	s.fs = !d.cfg.NoFS
	if d.cfg.Terminal {
		s.terms = &terminals{dir: dir, ws: ws, env: cmd.Env, limit: int(min(limit, 1<<30))}
	}
	sink = process.Serialize(sink)
	s.sink = sink
	p := pacp.New(sink, pacp.Options{Streaming: req.Streaming, SessionData: clirun.SessionData(req), SessionID: resume, Load: resume != ""})
	s.p = p
	dec := jsonrpc.NewDecoder(jsonrpc.Options{MaxLineSize: d.cfg.MaxLineSize}, clirun.Emit[jsonrpc.Frame](jsonrpc.IsRecoverable, s))
	cmd.Interrupt = s.interrupt
	return clirun.Run{
		Stdout: func(b []byte) error {
			_, err := dec.Write(b)
			return err
		},
		Started: func(proc *process.Process) error {
			s.proc = proc
			err := s.start() // before the observer runs: no race on the parser
			if err != nil {
				_ = proc.Signal(syscall.SIGKILL)
			}
			return err
		},
		Flush: func() error {
			s.stop()
			if s.terms != nil {
				s.terms.close()
			}
			cerr := dec.Close()
			if qerr := s.drainQueued(); cerr == nil {
				return qerr
			}
			return cerr
		},
		Finish: func(o driver.Outcome) (driver.Response, error) {
			if o.Err == nil {
				o.Err = s.failure()
			}
			return p.Finish(o)
		},
		Terminal: p.Terminal,
	}.Exec(ctx, cmd, sink)
}
