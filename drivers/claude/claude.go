// Package claude is the reference driver for Claude Code's stream-json
// mode, one-shot or interactive.
//
// One-shot (the default) runs
//
//	<Binary> -p --output-format stream-json --verbose [--include-partial-messages]
//	         [--model <m>] [--resume <session id>] [<ExtraArgs>...] <prompt>
//
// with stdin closed (a prompt that is empty or starts with "-" is written to
// stdin instead). Interactive (Config.Interactive) adds
// --input-format stream-json --permission-prompt-tool stdio and keeps stdin
// open: the driver opens the control protocol (initialize), sends the
// prompt as a user message once the CLI answered, routes every
// can_use_tool control request to driver.DecisionCapableSink and answers
// allow or deny (deny when the sink cannot decide), and closes stdin after
// the root result so the CLI exits.
//
// Stdout is framed with ndjson as it arrives and fed to the parsers/claude
// state machine; RawStreams are the exact bytes the process wrote. Resume
// passes --resume with Request.Session.State.ResumeID (the session id of the
// earlier run's result).
//
// # Cancellation
//
// Interactive runs are stopped gently with the protocol's interrupt control
// request; one-shot runs with SIGINT to the process group. The group is
// killed Config.Grace (DefaultGrace) after the cancel, whatever the CLI
// does: an interrupt or an answer still blocked on a stdin the CLI does
// not read fails then, and Run returns within the grace and a second with
// no process of the run left (package process).
package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/internal/clirun"
	"github.com/agentwire/agentwire/ndjson"
	pc "github.com/agentwire/agentwire/parsers/claude"
	"github.com/agentwire/agentwire/process"
)

// Type is the Descriptor type of this driver.
const Type = "claude"

// DefaultGrace is the time Claude Code gets to stop after the gentle stop
// before its process group is killed.
const DefaultGrace = 1500 * time.Millisecond

const fingerprintDomain = "agentwire/drivers/claude/stream-json/v1;session-codec/claude"

// Config is the construction configuration of a Claude Code driver. Every
// field is provider-visible and takes part in SessionConfigFingerprint.
type Config struct {
	// Binary is the claude executable; empty means "claude".
	Binary string
	// Model is passed as --model; Request.ModelOverride wins over it.
	Model string
	// ExtraArgs are appended after the driver's flags and before the prompt.
	ExtraArgs []string
	// PartialMessages passes --include-partial-messages: token-level text
	// and incremental tool arguments.
	PartialMessages bool
	// Interactive runs the control protocol over stdin (see the package
	// doc): permission prompts go to the host.
	Interactive bool
	// ConfigDir, when set, is exported as CLAUDE_CONFIG_DIR.
	ConfigDir string
	// Env are KEY=VALUE entries set in the child environment, in order,
	// after the inherited environment and CLAUDE_CONFIG_DIR.
	Env []string
	// IsolateEnv starts the child from an empty environment.
	IsolateEnv bool
	// Grace is the time between the gentle stop and SIGKILL; zero means
	// DefaultGrace.
	Grace time.Duration
	// MaxLineSize bounds one stdout line (ndjson default when zero).
	MaxLineSize int
}

// Driver is a configured Claude Code driver. Build it with New.
type Driver struct {
	cfg Config
}

var (
	_ driver.Driver                     = (*Driver)(nil)
	_ driver.StreamSupport              = (*Driver)(nil)
	_ driver.SessionCodecProvider       = (*Driver)(nil)
	_ driver.SessionConfigFingerprinter = (*Driver)(nil)
)

// New returns a driver that runs Claude Code with cfg (copied).
func New(cfg Config) *Driver { return &Driver{cfg: clone(cfg)} }

func clone(c Config) Config {
	c.ExtraArgs = append([]string(nil), c.ExtraArgs...)
	c.Env = append([]string(nil), c.Env...)
	return c
}

// Config returns a copy of the captured configuration.
func (d *Driver) Config() Config { return clone(d.cfg) }

// Descriptor declares the driver. Interactive drivers ask the host for
// permission decisions (Ask); one-shot drivers declare no decision mode.
func (d *Driver) Descriptor() driver.Descriptor {
	desc := driver.Descriptor{
		Type:         Type,
		DisplayName:  "Claude Code (stream-json)",
		ConfigSchema: configSchema(),
		Sessions:     driver.SessionCapability{SupportsResume: true},
		Workspace:    driver.WorkspaceCapability{Supported: true},
	}
	if d.cfg.Interactive {
		desc.DisplayName = "Claude Code (interactive stream-json, control protocol)"
		desc.RunPolicyCaps.Permission = driver.HumanDecisionSupport{Ask: true}
	}
	return desc
}

func configSchema() *driver.ConfigSchema {
	return &driver.ConfigSchema{Fields: []driver.ConfigField{
		{Name: "binary", Label: "Claude binary", Type: "text", Default: "claude", Group: "command"},
		{Name: "model", Label: "Model", Type: "text", Group: "model"},
		{Name: "extra_args", Label: "Extra arguments", Type: "textarea", Group: "command"},
		{Name: "partial_messages", Label: "Token-level streaming", Type: "toggle", Group: "execution"},
		{Name: "interactive", Label: "Control protocol (host permission prompts)", Type: "toggle", Group: "permissions"},
		{Name: "config_dir", Label: "CLAUDE_CONFIG_DIR", Type: "text", Group: "command"},
		{Name: "env", Label: "Environment", Type: "textarea", Group: "execution"},
		{Name: "isolate_env", Label: "Do not inherit the environment", Type: "toggle", Group: "execution"},
		{Name: "grace", Label: "Grace before SIGKILL", Type: "text", Group: "execution"},
		{Name: "max_line_size", Label: "Largest stdout line", Type: "number", Group: "execution"},
	}}
}

func (d *Driver) parserOptions(streaming bool, data map[string]string) pc.Options {
	return pc.Options{Streaming: streaming, SessionData: data, PartialMessages: d.cfg.PartialMessages, ControlProtocol: d.cfg.Interactive}
}

type discard struct{}

func (discard) Emit(driver.RunEvent) error            { return nil }
func (discard) EmitStream(driver.StreamPayload) error { return nil }

// StreamCapability is the parser's capability for this configuration:
// Native and Reasoning; TokenLevel and ToolCallArgs with PartialMessages;
// HITL when Interactive.
func (d *Driver) StreamCapability() driver.StreamCapability {
	return pc.New(discard{}, d.parserOptions(true, nil)).Capability()
}

// SessionCodec returns parsers/claude.Codec.
func (d *Driver) SessionCodec() driver.SessionCodec { return pc.Codec }

// SessionConfigFingerprint is driver.CanonicalConfigFingerprint of the
// construction Config under the driver and codec contract.
func (d *Driver) SessionConfigFingerprint() (string, error) {
	return driver.CanonicalConfigFingerprint(fingerprintDomain+"/"+pc.Codec.Name(), d.cfg)
}

// configType resolves, validates and compares Configs.
var configType = clirun.ConfigType[Config]{Pkg: "claude", Clone: clone, Validate: validate}

// ValidateConfig validates cfg; nil means the captured configuration.
func (d *Driver) ValidateConfig(cfg any) error { return configType.ValidateConfig(d.cfg, cfg) }

// base is what c shares with the other drivers' Configs.
func (c Config) base() clirun.Base {
	return clirun.Base{Pkg: "claude", Binary: c.Binary, DefaultBinary: "claude", HomeVar: "CLAUDE_CONFIG_DIR", Home: c.ConfigDir,
		Env: c.Env, IsolateEnv: c.IsolateEnv, Grace: c.Grace, DefaultGrace: DefaultGrace, MaxLineSize: c.MaxLineSize, ResumeArg: true}
}

func validate(c Config) error {
	if err := c.base().Validate(); err != nil {
		return err
	}
	if strings.HasPrefix(c.Model, "-") {
		return fmt.Errorf("claude: Model %q starts with '-'", c.Model)
	}
	return nil
}

// Command builds the process command of req without running it. In
// interactive mode the prompt is sent over the protocol, not in Command.
func (d *Driver) Command(req driver.Request) (process.Command, error) {
	c := d.cfg
	if err := validate(c); err != nil {
		return process.Command{}, err
	}
	b := c.base()
	cmd, resume, err := b.Command(req)
	if err != nil {
		return process.Command{}, err
	}
	args := []string{"-p", "--output-format", "stream-json", "--verbose"}
	if c.PartialMessages {
		args = append(args, "--include-partial-messages")
	}
	if c.Interactive {
		args = append(args, "--input-format", "stream-json", "--permission-prompt-tool", "stdio")
	}
	model, err := b.ArgModel(c.Model, req)
	if err != nil {
		return process.Command{}, err
	}
	if model != "" {
		args = append(args, "--model", model)
	}
	if resume != nil {
		args = append(args, "--resume", resume.ResumeID)
	}
	args = append(args, c.ExtraArgs...)
	switch {
	case c.Interactive:
		cmd.KeepStdin = true
	case clirun.PromptOnStdin(req.Prompt):
		cmd.Stdin = strings.NewReader(req.Prompt)
	default:
		args = append(args, req.Prompt)
	}
	cmd.Args = args
	return cmd, nil
}

// initID is the request id of the driver's initialize control request.
const initID = "agentwire_init_1"

// session drives the control protocol of one interactive run. Its methods
// run on the stdout goroutine, except interrupt (the supervisor's).
type session struct {
	ctx    context.Context
	p      *pc.Parser
	sink   driver.EventSink
	prompt string

	mu   sync.Mutex
	proc *process.Process
	nint int
}

func (s *session) write(b []byte) error {
	s.mu.Lock()
	proc := s.proc
	s.mu.Unlock()
	if proc == nil {
		return errors.New("claude: process not started")
	}
	return clirun.WriteStdin(proc, b) // the CLI gone or the turn over is no error: the outcome speaks
}

type lineHead struct {
	Type            string          `json:"type"`
	RequestID       string          `json:"request_id"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	Response        json.RawMessage `json:"response"`
}

// frame handles one stdout frame after the parser saw it.
func (s *session) frame(f ndjson.Frame) error {
	if f.Kind != ndjson.KindLine {
		return nil
	}
	var h lineHead
	if json.Unmarshal(f.Data, &h) != nil {
		return nil
	}
	switch h.Type {
	case "control_response":
		var r struct {
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal(h.Response, &r) == nil && r.RequestID == initID {
			return s.write(pc.EncodeUserMessage("", s.prompt))
		}
	case "control_request":
		cr, err := pc.DecodeControlRequest(f.Data)
		if err != nil {
			return nil // malformed: the parser recorded it
		}
		res := clirun.NoDecision()
		if cr.Subtype == pc.SubtypeCanUseTool {
			res = clirun.Decide(s.ctx, s.sink, cr.DecisionRequest())
		}
		line, err := s.p.Resolve(cr.RequestID, res)
		if errors.Is(err, pc.ErrUnknownRequest) {
			line, err = pc.EncodeControlError(cr.RequestID, "agentwire: request not pending"), nil
		}
		if err != nil {
			return err
		}
		return s.write(line)
	case "result":
		if h.ParentToolUseID == nil {
			s.mu.Lock()
			proc := s.proc
			s.mu.Unlock()
			if proc != nil {
				_ = proc.CloseStdin() // one turn per run: let the CLI exit
			}
		}
	}
	return nil
}

// interrupt is the gentle stop: the protocol's interrupt request.
func (s *session) interrupt(p *process.Process) error {
	s.mu.Lock()
	s.nint++
	id := fmt.Sprintf("agentwire_interrupt_%d", s.nint)
	s.mu.Unlock()
	_, err := p.Stdin().Write(pc.EncodeInterrupt(id))
	return err
}

// Run runs one Claude Code invocation. A request Config must be nil or
// equal to the captured one.
func (d *Driver) Run(ctx context.Context, req driver.Request, sink driver.EventSink) (driver.Response, error) {
	if err := configType.CheckRequest(d.cfg, req.Config); err != nil {
		return driver.Response{}, err
	}
	cmd, err := d.Command(req)
	if err != nil {
		return driver.Response{}, err
	}
	sink = process.Serialize(sink)
	p := pc.New(sink, d.parserOptions(req.Streaming, clirun.SessionData(req)))
	var feeder clirun.Feeder = p
	var sess *session
	if d.cfg.Interactive {
		sess = &session{ctx: ctx, p: p, sink: sink, prompt: req.Prompt}
		feeder = interactiveFeeder{p, sess}
		cmd.Interrupt = sess.interrupt
	}
	dec := clirun.Decoder(d.cfg.MaxLineSize, feeder)
	return clirun.Run{
		Stdout: clirun.Write(dec),
		Started: func(proc *process.Process) error {
			if sess != nil {
				sess.mu.Lock()
				sess.proc = proc
				sess.mu.Unlock()
				// A failed write means the CLI is gone; its outcome says why.
				_ = sess.write(mustInit())
			}
			return nil
		},
		Flush:  dec.Close, // parses an unterminated last line
		Finish: p.Finish,
	}.Exec(ctx, cmd, sink)
}

func mustInit() []byte {
	b, err := pc.EncodeInitialize(initID, nil)
	if err != nil {
		panic(err)
	}
	return b
}

// interactiveFeeder feeds the parser, then lets the session act on the
// frame (answers are recorded by the parser before they are written).
type interactiveFeeder struct {
	p *pc.Parser
	s *session
}

func (f interactiveFeeder) Feed(fr ndjson.Frame) error {
	if err := f.p.Feed(fr); err != nil {
		return err
	}
	return f.s.frame(fr)
}

func (f interactiveFeeder) FeedError(err error) error { return f.p.FeedError(err) }
