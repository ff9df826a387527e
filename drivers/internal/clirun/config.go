package clirun

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/process"
)

// ConfigType is how a driver handles its construction Config type C: the
// parts of ValidateConfig and Run that are the same for every driver.
type ConfigType[C any] struct {
	// Pkg is the driver's package name: the prefix of every error, and
	// the type is named <Pkg>.Config in them.
	Pkg string
	// Clone returns a deep copy of a Config.
	Clone func(C) C
	// Validate validates a Config.
	Validate func(C) error
}

// Resolve returns the Config that cfg stands for: own for nil and for a
// nil *C, cfg itself for a C or a non-nil *C. Any other type is an error.
func (k ConfigType[C]) Resolve(own C, cfg any) (C, error) {
	switch c := cfg.(type) {
	case nil:
		return own, nil
	case C:
		return c, nil
	case *C:
		if c == nil {
			return own, nil
		}
		return *c, nil
	}
	var zero C
	return zero, fmt.Errorf("%s: config of type %T, want %s.Config", k.Pkg, cfg, k.Pkg)
}

// ValidateConfig is Driver.ValidateConfig: it resolves cfg against own and
// validates the result.
func (k ConfigType[C]) ValidateConfig(own C, cfg any) error {
	c, err := k.Resolve(own, cfg)
	if err != nil {
		return err
	}
	return k.Validate(c)
}

// CheckRequest returns nil when a request's Config is nil or stands for a
// Config equal to own (compared after Clone, so that a nil and an empty
// slice are equal), and an error otherwise: a driver's identity is its
// construction Config, so a different one needs a new driver.
func (k ConfigType[C]) CheckRequest(own C, cfg any) error {
	if cfg == nil {
		return nil
	}
	c, err := k.Resolve(own, cfg)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(k.Clone(c), k.Clone(own)) {
		return errors.New(k.Pkg + ": the request config differs from the construction config; build a new driver")
	}
	return nil
}

// Base holds the settings every reference driver's Config has (the
// fields of the same names) and the driver's defaults for them.
type Base struct {
	// Pkg is the driver's package name, the prefix of every error.
	Pkg string
	// Binary is the executable (a path, or a name looked up in PATH);
	// DefaultBinary is run when it is empty.
	Binary, DefaultBinary string
	// HomeVar names the environment variable of the CLI's state directory
	// (CODEX_HOME, CLAUDE_CONFIG_DIR); Home, when set, is exported as it.
	HomeVar, Home string
	// Env are KEY=VALUE entries set in the child environment after the
	// inherited one and HomeVar; IsolateEnv drops the inherited one.
	Env        []string
	IsolateEnv bool
	// Grace is the time between the gentle stop and SIGKILL; DefaultGrace
	// when zero.
	Grace, DefaultGrace time.Duration
	// MaxLineSize bounds one stdout line; zero means the framing default.
	MaxLineSize int
	// ResumeArg says the resume id goes on the command line, where one
	// that starts with '-' would read as a flag and is rejected.
	ResumeArg bool
}

// Validate checks the settings: no NUL in Binary, Env entries of the form
// KEY=VALUE, no negative Grace or MaxLineSize.
func (b Base) Validate() error {
	if strings.ContainsRune(b.Binary, 0) {
		return errors.New(b.Pkg + ": Binary contains NUL")
	}
	if err := CheckEnv(b.Pkg+": Env", b.Env); err != nil {
		return err
	}
	if b.Grace < 0 {
		return errors.New(b.Pkg + ": negative Grace")
	}
	if b.MaxLineSize < 0 {
		return errors.New(b.Pkg + ": negative MaxLineSize")
	}
	return nil
}

// Command returns the process command a run of req starts from, and the
// session state the request resumes (nil for a new session). It rejects
// a request with an OutputSchema (no reference driver supports structured
// output) and a session the driver cannot resume (see Resume). The command
// runs Binary (DefaultBinary when empty) in the request's working
// directory with Grace (DefaultGrace when zero) and the environment
// Env(!IsolateEnv, [HomeVar=Home], Env); the caller sets Args and stdin.
// Command does not call Validate.
func (b Base) Command(req driver.Request) (process.Command, *driver.SessionState, error) {
	if req.OutputSchema != nil {
		return process.Command{}, nil, errors.New(b.Pkg + ": structured output is not supported by this driver")
	}
	st, err := b.Resume(req)
	if err != nil {
		return process.Command{}, nil, err
	}
	cmd := process.Command{Path: b.Binary, Dir: req.Workspace.CWD, Grace: b.Grace}
	if cmd.Path == "" {
		cmd.Path = b.DefaultBinary
	}
	if cmd.Grace == 0 {
		cmd.Grace = b.DefaultGrace
	}
	var home []string
	if b.Home != "" {
		home = []string{b.HomeVar + "=" + b.Home}
	}
	cmd.Env = Env(!b.IsolateEnv, home, b.Env)
	return cmd, st, nil
}

// Resume returns the session state req resumes, or nil for a new session:
// no session, start_new, stateless, and a session without a state that
// has a ResumeID (other than continue_only) start a new one. Fork is an
// error, as is continue_only without a state to resume and, with
// ResumeArg, a ResumeID that starts with '-'.
func (b Base) Resume(req driver.Request) (*driver.SessionState, error) {
	s := req.Session
	if s == nil {
		return nil, nil
	}
	switch s.Mode {
	case driver.SessionStartNew, driver.SessionStateless:
		return nil, nil
	case driver.SessionFork:
		return nil, errors.New(b.Pkg + ": fork is not supported by this driver")
	}
	if s.State == nil || s.State.ResumeID == "" {
		if s.Mode == driver.SessionContinueOnly {
			return nil, errors.New(b.Pkg + ": continue_only without a session state to resume")
		}
		return nil, nil
	}
	if b.ResumeArg && strings.HasPrefix(s.State.ResumeID, "-") {
		return nil, fmt.Errorf("%s: resume id %q starts with '-'", b.Pkg, s.State.ResumeID)
	}
	return s.State, nil
}

// Model returns the model of a run: req.ModelOverride, else configured.
func Model(configured string, req driver.Request) string {
	if req.ModelOverride != "" {
		return req.ModelOverride
	}
	return configured
}

// ArgModel is Model for a model that goes on the command line: one that
// starts with '-' would read as a flag and is an error.
func (b Base) ArgModel(configured string, req driver.Request) (string, error) {
	m := Model(configured, req)
	if strings.HasPrefix(m, "-") {
		return "", fmt.Errorf("%s: model %q starts with '-'", b.Pkg, m)
	}
	return m, nil
}

// PromptOnStdin reports whether a prompt must be written to stdin rather
// than passed as an argument: it is empty or starts with '-'.
func PromptOnStdin(prompt string) bool {
	return prompt == "" || strings.HasPrefix(prompt, "-")
}

// SessionData is what a checkpoint stores for the resume guard: the
// request's working directory, workspace id and profile session
// fingerprint, each only when set.
func SessionData(req driver.Request) map[string]string {
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
