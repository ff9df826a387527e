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
// killed after Config.Grace (DefaultGrace).
package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"syscall"
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

// ValidateConfig validates cfg; nil means the captured configuration.
func (d *Driver) ValidateConfig(cfg any) error {
	c, err := d.resolve(cfg)
	if err != nil {
		return err
	}
	return validate(c)
}

func (d *Driver) resolve(cfg any) (Config, error) {
	switch c := cfg.(type) {
	case nil:
		return d.cfg, nil
	case Config:
		return c, nil
	case *Config:
		if c == nil {
			return d.cfg, nil
		}
		return *c, nil
	}
	return Config{}, fmt.Errorf("claude: config of type %T, want claude.Config", cfg)
}

func validate(c Config) error {
	if strings.ContainsRune(c.Binary, 0) {
		return errors.New("claude: Binary contains NUL")
	}
	if strings.HasPrefix(c.Model, "-") {
		return fmt.Errorf("claude: Model %q starts with '-'", c.Model)
	}
	if err := clirun.CheckEnv("claude: Env", c.Env); err != nil {
		return err
	}
	if c.Grace < 0 || c.MaxLineSize < 0 {
		return errors.New("claude: negative Grace or MaxLineSize")
	}
	return nil
}

func resumeID(req driver.Request) (string, error) {
	s := req.Session
	if s == nil {
		return "", nil
	}
	switch s.Mode {
	case driver.SessionStartNew, driver.SessionStateless:
		return "", nil
	case driver.SessionFork:
		return "", errors.New("claude: fork is not supported by this driver")
	}
	if s.State == nil || s.State.ResumeID == "" {
		if s.Mode == driver.SessionContinueOnly {
			return "", errors.New("claude: continue_only without a session state to resume")
		}
		return "", nil
	}
	if strings.HasPrefix(s.State.ResumeID, "-") {
		return "", fmt.Errorf("claude: resume id %q starts with '-'", s.State.ResumeID)
	}
	return s.State.ResumeID, nil
}

// Command builds the process command of req without running it. In
// interactive mode the prompt is sent over the protocol, not in Command.
func (d *Driver) Command(req driver.Request) (process.Command, error) {
	c := d.cfg
	if err := validate(c); err != nil {
		return process.Command{}, err
	}
	if req.OutputSchema != nil {
		return process.Command{}, errors.New("claude: structured output is not supported by this driver")
	}
	id, err := resumeID(req)
	if err != nil {
		return process.Command{}, err
	}
	bin := c.Binary
	if bin == "" {
		bin = "claude"
	}
	args := []string{"-p", "--output-format", "stream-json", "--verbose"}
	if c.PartialMessages {
		args = append(args, "--include-partial-messages")
	}
	if c.Interactive {
		args = append(args, "--input-format", "stream-json", "--permission-prompt-tool", "stdio")
	}
	model := c.Model
	if req.ModelOverride != "" {
		model = req.ModelOverride
	}
	if strings.HasPrefix(model, "-") {
		return process.Command{}, fmt.Errorf("claude: model %q starts with '-'", model)
	}
	if model != "" {
		args = append(args, "--model", model)
	}
	if id != "" {
		args = append(args, "--resume", id)
	}
	args = append(args, c.ExtraArgs...)
	cmd := process.Command{Path: bin, Dir: req.Workspace.CWD, Grace: c.Grace}
	if cmd.Grace == 0 {
		cmd.Grace = DefaultGrace
	}
	switch {
	case c.Interactive:
		cmd.KeepStdin = true
	case req.Prompt == "" || strings.HasPrefix(req.Prompt, "-"):
		cmd.Stdin = strings.NewReader(req.Prompt)
	default:
		args = append(args, req.Prompt)
	}
	cmd.Args = args
	var dir []string
	if c.ConfigDir != "" {
		dir = []string{"CLAUDE_CONFIG_DIR=" + c.ConfigDir}
	}
	cmd.Env = clirun.Env(!c.IsolateEnv, dir, c.Env)
	return cmd, nil
}

func sessionData(req driver.Request) map[string]string {
	m := map[string]string{}
	if req.Workspace.CWD != "" {
		m[driver.ParamCWD] = req.Workspace.CWD
	}
	if req.Workspace.ID != "" {
		m[driver.ParamWorkspaceID] = req.Workspace.ID
	}
	if fp := req.ProfilePayload.SessionFingerprint(); fp != "" {
		m[driver.ParamProfileFingerprint] = fp
	}
	return m
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
	_, err := proc.Stdin().Write(b)
	if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
		return nil // the CLI is gone or the turn is over: the outcome speaks
	}
	return err
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
		res := driver.DecisionResponse{Result: driver.DecisionRejected, Text: "no host decision available"}
		if cr.Subtype == pc.SubtypeCanUseTool {
			if ds, ok := s.sink.(driver.DecisionCapableSink); ok {
				r, err := ds.RequestDecision(s.ctx, cr.DecisionRequest())
				if err != nil {
					r = driver.DecisionResponse{Result: driver.DecisionAborted, Text: "decision aborted: " + err.Error()}
				}
				res = r
			}
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
	if req.Config != nil {
		c, err := d.resolve(req.Config)
		if err != nil {
			return driver.Response{}, err
		}
		if !reflect.DeepEqual(clone(c), clone(d.cfg)) {
			return driver.Response{}, errors.New("claude: the request config differs from the construction config; build a new driver")
		}
	}
	cmd, err := d.Command(req)
	if err != nil {
		return driver.Response{}, err
	}
	sink = process.Serialize(sink)
	p := pc.New(sink, d.parserOptions(req.Streaming, sessionData(req)))
	var feeder clirun.Feeder = p
	var sess *session
	if d.cfg.Interactive {
		sess = &session{ctx: ctx, p: p, sink: sink, prompt: req.Prompt}
		feeder = interactiveFeeder{p, sess}
		cmd.Interrupt = sess.interrupt
	}
	dec := clirun.Decoder(d.cfg.MaxLineSize, feeder)
	ready := make(chan struct{}) // the observer may run before Start returns
	observe := clirun.Write(dec)
	cmd.Stdout = func(b []byte) error {
		<-ready
		return observe(b)
	}
	proc, err := process.Start(ctx, cmd, sink)
	if err != nil {
		resp, _ := p.Finish(clirun.Outcome(process.Result{ExitCode: -1}, err))
		resp.RawStreams = &driver.RawStreams{}
		return resp, err
	}
	if sess != nil {
		sess.mu.Lock()
		sess.proc = proc
		sess.mu.Unlock()
		// A failed write means the CLI is gone; its outcome says why.
		_ = sess.write(mustInit())
	}
	close(ready)
	res, werr := proc.Wait()
	if cerr := dec.Close(); cerr != nil && werr == nil {
		werr = cerr
	}
	resp, ferr := p.Finish(clirun.Outcome(res, werr))
	var term *driver.TerminalPayload
	if resp.RawStreams != nil {
		term = resp.RawStreams.Terminal
	}
	resp.RawStreams = &driver.RawStreams{Stdout: string(res.Stdout), Stderr: string(res.Stderr), Terminal: term}
	if werr != nil {
		return resp, werr
	}
	return resp, ferr
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
