// Package codex is the reference driver for the Codex CLI's non-interactive
// JSONL mode, `codex exec --json`.
//
// Each Run starts one codex process in its own process group (package
// process), frames its stdout with ndjson as the bytes arrive and feeds the
// frames to the parsers/codex state machine, which emits the transcript
// items and stream payloads and forms the Response. The raw stdout and
// stderr are the exact bytes process captured. A run resumes a thread with
// `codex exec resume <thread id>` when Request.Session carries a state whose
// ResumeID is the thread id of an earlier checkpoint.
//
// # Command line
//
//	<Binary> exec --json [--skip-git-repo-check] [-m <model>] [-c <override>]...
//	         [<ExtraArgs>...] [resume <thread id>] <prompt | ->
//
// A prompt that is empty or starts with "-" is written to stdin and "-" is
// passed instead. The environment is deterministic: the inherited
// environment (unless Config.IsolateEnv), then CODEX_HOME when
// Config.CodexHome is set, then Config.Env in order; a later entry replaces
// an earlier one of the same name.
//
// # Cancellation
//
// codex exec has no protocol interrupt: when ctx ends the process group gets
// SIGINT and a prompt still being written to stdin is abandoned, then
// SIGKILL Config.Grace (DefaultGrace) after the cancel. Codex writes no
// terminal line when interrupted; the run ends with a cancelled Failure and
// no valid checkpoint, and every byte written before is in RawStreams. Run
// returns within the grace and a second whatever the CLI does, with no
// process of the run left (package process).
package codex

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/drivers/internal/clirun"
	pc "github.com/agentwire/agentwire/parsers/codex"
	"github.com/agentwire/agentwire/process"
)

// Type is the Descriptor type of this driver.
const Type = "codex"

// DefaultGrace is the time codex gets to exit after SIGINT before its group
// is killed. It is short so that a cancelled Run returns within about 3 s
// even when the CLI ignores the signal.
const DefaultGrace = time.Second

// fingerprintDomain names the driver and codec contract in the config
// fingerprint.
const fingerprintDomain = "agentwire/drivers/codex/exec/v1;" + pc.CodecName

// Config is the construction configuration of a codex exec driver. Every
// field is provider-visible and takes part in SessionConfigFingerprint.
type Config struct {
	// Binary is the codex executable (a path, or a name looked up in PATH
	// of the driver's process). Empty means "codex".
	Binary string
	// Model is passed as -m; Request.ModelOverride wins over it.
	Model string
	// ConfigOverrides are passed as -c <override> each, in order
	// ("model_provider=\"mock\"", ...).
	ConfigOverrides []string
	// ExtraArgs are appended after the driver's own flags, before the
	// resume subcommand and the prompt.
	ExtraArgs []string
	// SkipGitRepoCheck passes --skip-git-repo-check.
	SkipGitRepoCheck bool
	// CodexHome, when set, is exported as CODEX_HOME.
	CodexHome string
	// Env are KEY=VALUE entries set in the child environment, in order,
	// after the inherited environment and CODEX_HOME.
	Env []string
	// IsolateEnv starts the child from an empty environment instead of the
	// driver process's one (set PATH and HOME in Env then).
	IsolateEnv bool
	// Grace is the time between SIGINT and SIGKILL on cancel; zero means
	// DefaultGrace.
	Grace time.Duration
	// MaxLineSize bounds one stdout line (ndjson.DefaultMaxLineSize when
	// zero); a longer line is skipped and reported as malformed.
	MaxLineSize int
}

// Driver is a configured codex exec driver. Build it with New.
type Driver struct {
	cfg Config
}

var (
	_ driver.Driver                     = (*Driver)(nil)
	_ driver.StreamSupport              = (*Driver)(nil)
	_ driver.SessionCodecProvider       = (*Driver)(nil)
	_ driver.SessionConfigFingerprinter = (*Driver)(nil)
)

// New returns a driver that runs codex exec with cfg. The configuration is
// copied; call ValidateConfig(nil) to check it.
func New(cfg Config) *Driver {
	return &Driver{cfg: clone(cfg)}
}

func clone(c Config) Config {
	c.ConfigOverrides = append([]string(nil), c.ConfigOverrides...)
	c.ExtraArgs = append([]string(nil), c.ExtraArgs...)
	c.Env = append([]string(nil), c.Env...)
	return c
}

// Config returns a copy of the captured configuration.
func (d *Driver) Config() Config { return clone(d.cfg) }

// Descriptor declares the driver: resume through the codex session codec,
// host workspaces (the process runs in Request.Workspace.CWD), no
// structured output, skills, MCP payloads or decision modes.
func (d *Driver) Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Type:         Type,
		DisplayName:  "Codex CLI (codex exec --json)",
		ConfigSchema: configSchema(),
		Sessions:     driver.SessionCapability{SupportsResume: true},
		Workspace:    driver.WorkspaceCapability{Supported: true},
	}
}

func configSchema() *driver.ConfigSchema {
	return &driver.ConfigSchema{Fields: []driver.ConfigField{
		{Name: "binary", Label: "Codex binary", Type: "text", Default: "codex", Group: "command"},
		{Name: "model", Label: "Model", Type: "text", Group: "model"},
		{Name: "config_overrides", Label: "-c overrides", Type: "textarea", Group: "command"},
		{Name: "extra_args", Label: "Extra arguments", Type: "textarea", Group: "command"},
		{Name: "skip_git_repo_check", Label: "Skip git repository check", Type: "toggle", Group: "execution"},
		{Name: "codex_home", Label: "CODEX_HOME", Type: "text", Group: "command"},
		{Name: "env", Label: "Environment", Type: "textarea", Group: "execution"},
		{Name: "isolate_env", Label: "Do not inherit the environment", Type: "toggle", Group: "execution"},
		{Name: "grace", Label: "Grace between SIGINT and SIGKILL", Type: "text", Group: "execution"},
		{Name: "max_line_size", Label: "Largest stdout line", Type: "number", Group: "execution"},
	}}
}

// StreamCapability is the parser's capability: native JSONL events,
// reasoning items, no token-level text, complete tool arguments, no HITL.
func (d *Driver) StreamCapability() driver.StreamCapability { return pc.Capability }

// SessionCodec returns the codex session codec (parsers/codex.Codec).
func (d *Driver) SessionCodec() driver.SessionCodec { return pc.Codec }

// SessionConfigFingerprint is driver.CanonicalConfigFingerprint of the
// construction Config under the driver and codec contract.
func (d *Driver) SessionConfigFingerprint() (string, error) {
	return driver.CanonicalConfigFingerprint(fingerprintDomain, d.cfg)
}

// configType resolves, validates and compares Configs.
var configType = clirun.ConfigType[Config]{Pkg: "codex", Clone: clone, Validate: validate}

// ValidateConfig validates cfg: nil means the captured configuration; a
// Config or *Config is validated as given; any other type is rejected.
func (d *Driver) ValidateConfig(cfg any) error { return configType.ValidateConfig(d.cfg, cfg) }

// base is what c shares with the other drivers' Configs.
func (c Config) base() clirun.Base {
	return clirun.Base{Pkg: "codex", Binary: c.Binary, DefaultBinary: "codex", HomeVar: "CODEX_HOME", Home: c.CodexHome,
		Env: c.Env, IsolateEnv: c.IsolateEnv, Grace: c.Grace, DefaultGrace: DefaultGrace, MaxLineSize: c.MaxLineSize, ResumeArg: true}
}

func validate(c Config) error {
	if err := c.base().Validate(); err != nil {
		return err
	}
	if strings.HasPrefix(c.Model, "-") {
		return fmt.Errorf("codex: Model %q starts with '-'", c.Model)
	}
	for i, o := range c.ConfigOverrides {
		if !strings.Contains(o, "=") {
			return fmt.Errorf("codex: ConfigOverrides[%d] %q: want key=value", i, o)
		}
	}
	return nil
}

// Command builds the process command of req (argv, environment, working
// directory, stdin) without running it.
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
	args := []string{"exec", "--json"}
	if c.SkipGitRepoCheck {
		args = append(args, "--skip-git-repo-check")
	}
	model, err := b.ArgModel(c.Model, req)
	if err != nil {
		return process.Command{}, err
	}
	if model != "" {
		args = append(args, "-m", model)
	}
	for _, o := range c.ConfigOverrides {
		args = append(args, "-c", o)
	}
	args = append(args, c.ExtraArgs...)
	if resume != nil {
		args = append(args, "resume", resume.ResumeID)
	}
	if clirun.PromptOnStdin(req.Prompt) {
		args = append(args, "-")
		cmd.Stdin = strings.NewReader(req.Prompt)
	} else {
		args = append(args, req.Prompt)
	}
	cmd.Args = args
	return cmd, nil
}

// Run runs one codex exec invocation. A request Config must be nil or equal
// to the captured one: the driver's identity is its construction config.
// Response.Metadata["resumed"] is the thread id the run resumed, if any.
func (d *Driver) Run(ctx context.Context, req driver.Request, sink driver.EventSink) (driver.Response, error) {
	if err := configType.CheckRequest(d.cfg, req.Config); err != nil {
		return driver.Response{}, err
	}
	cmd, err := d.Command(req)
	if err != nil {
		return driver.Response{}, err
	}
	state, _ := d.cfg.base().Resume(req) // Command accepted the session
	sink = process.Serialize(sink)
	p := pc.New(sink, pc.Options{Streaming: req.Streaming, SessionData: clirun.SessionData(req), Resume: state})
	dec := clirun.Decoder(d.cfg.MaxLineSize, p)
	return clirun.Run{
		Stdout:   clirun.Write(dec),
		Flush:    dec.Close, // parses an unterminated last line
		Finish:   p.Finish,
		Terminal: p.Terminal,
		Done: func(resp *driver.Response) {
			if resp.Metadata == nil {
				resp.Metadata = map[string]string{}
			}
			if state != nil {
				resp.Metadata["resumed"] = state.ResumeID
			}
		},
	}.Exec(ctx, cmd, sink)
}
