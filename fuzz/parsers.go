package fuzz

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/appserver"
	"github.com/agentwire/agentwire/parsers/claude"
	"github.com/agentwire/agentwire/parsers/codex"
)

// Outcome is the process outcome of a parser run.
type Outcome = driver.Outcome

// outcomes are the process outcomes a parser target selects from its
// input's hash; half of them are clean, where checkpoint safety matters.
var outcomes = []Outcome{{}, {}, {}, {}, {ExitCode: 1}, {Signal: "SIGKILL", ExitCode: -1}, {Cancelled: true}, {TimedOut: true}}

// Provider is one provider parser under test.
type Provider struct {
	Name  string
	Codec driver.SessionCodec
	// Run parses stdout (and stderr) in the mode selected by mode's bits,
	// with a RecordingSink, and returns the sink, the capability the
	// parser declared, whether streaming was on, and Parse's results.
	Run func(stdout, stderr io.Reader, mode uint64) (Run, error)
}

// Run is the result of one parser run.
type Run struct {
	Sink       *adaptertest.RecordingSink
	Capability driver.StreamCapability
	Streaming  bool
	Outcome    Outcome
	Response   driver.Response
	Err        error
}

var sessionData = map[string]string{driver.ParamCWD: "/work", driver.ParamWorkspaceID: "ws"}

// Providers lists the provider parsers.
var Providers = []Provider{
	{Name: "codex", Codec: codex.Codec, Run: func(stdout, stderr io.Reader, mode uint64) (Run, error) {
		r := Run{Sink: &adaptertest.RecordingSink{}, Streaming: mode&8 == 0, Outcome: outcomes[mode%8]}
		opts := codex.Options{Streaming: r.Streaming, SessionData: sessionData}
		r.Capability = codex.New(nil, opts).Capability()
		r.Response, r.Err = codex.Parse(stdout, stderr, r.Sink, opts, r.Outcome)
		return r, nil
	}},
	{Name: "claude", Codec: claude.Codec, Run: func(stdout, stderr io.Reader, mode uint64) (Run, error) {
		r := Run{Sink: &adaptertest.RecordingSink{}, Streaming: mode&8 == 0, Outcome: outcomes[mode%8]}
		opts := claude.Options{Streaming: r.Streaming, SessionData: sessionData,
			PartialMessages: mode&16 == 0, ControlProtocol: mode&32 != 0}
		r.Capability = claude.New(nil, opts).Capability()
		r.Response, r.Err = claude.Parse(stdout, stderr, r.Sink, opts, r.Outcome)
		return r, nil
	}},
	{Name: "appserver", Codec: appserver.Codec, Run: func(stdout, stderr io.Reader, mode uint64) (Run, error) {
		r := Run{Sink: &adaptertest.RecordingSink{}, Streaming: mode&8 == 0, Outcome: outcomes[mode%8]}
		opts := appserver.Options{Streaming: r.Streaming, SessionData: sessionData, LegacyTurnEnd: mode&16 != 0}
		r.Capability = appserver.New(nil, opts).Capability()
		r.Response, r.Err = appserver.Parse(stdout, stderr, r.Sink, opts, r.Outcome)
		return r, nil
	}},
}

// ProviderByName returns the provider called name.
func ProviderByName(name string) Provider {
	for _, p := range Providers {
		if p.Name == name {
			return p
		}
	}
	panic("fuzz: no provider " + name)
}

// stderrOf is the stderr a parser target pairs with its stdout: a short
// line, so that RawStreams.Stderr is checked too.
const stderrOf = "warning: fuzz\n"

// CheckParser is the oracle of the provider targets (FuzzCodex,
// FuzzClaude, FuzzAppServer): data is the whole stdout of a run, parsed
// through the framing, the parser and an adaptertest.RecordingSink in a
// mode (outcome, streaming, provider options) drawn from the input's hash.
// It checks the validators, raw preservation, checkpoint safety and the
// work and memory bounds.
func CheckParser(p Provider, data []byte) error {
	b := startBudget()
	mode := Seed(data)
	c := &counter{r: bytes.NewReader(data)}
	r, err := p.Run(c, strings.NewReader(stderrOf), mode)
	if err != nil {
		return err
	}
	if err := verifyRun(p, r, data); err != nil {
		return err
	}
	if err := c.check(p.Name, len(data)); err != nil {
		return err
	}
	return b.check(p.Name, len(data))
}

// verifyRun checks one parser run over data.
func verifyRun(p Provider, r Run, data []byte) error {
	if r.Err != nil {
		return fmt.Errorf("%s (mode %+v): Parse over in-memory streams failed: %v", p.Name, r.Outcome, r.Err)
	}
	if v := r.Sink.Check(r.Streaming, r.Capability, r.Response, r.Err, p.Codec); len(v) > 0 {
		return fmt.Errorf("%s (outcome %+v, streaming %v): validator violations:\n%v", p.Name, r.Outcome, r.Streaming, v)
	}
	rs := r.Response.RawStreams
	if rs == nil || rs.Stdout != string(data) || rs.Stderr != stderrOf {
		return fmt.Errorf("%s: RawStreams do not hold the exact stdout and stderr", p.Name)
	}
	if rs.Terminal != nil && len(rs.Terminal.JSON) > 0 && !bytes.Contains(data, rs.Terminal.JSON) {
		return fmt.Errorf("%s: terminal JSON %q is not bytes of stdout", p.Name, clip(rs.Terminal.JSON))
	}
	if cp := r.Response.Checkpoint; cp != nil && cp.Valid {
		switch {
		case !r.Outcome.Clean():
			return fmt.Errorf("%s: valid checkpoint after outcome %+v", p.Name, r.Outcome)
		case r.Response.Failure != nil:
			return fmt.Errorf("%s: valid checkpoint with failure %+v", p.Name, r.Response.Failure)
		case rs.Terminal == nil:
			return fmt.Errorf("%s: valid checkpoint without a terminal event", p.Name)
		case cp.State == nil || cp.State.ResumeID == "":
			return fmt.Errorf("%s: valid checkpoint without a resume id", p.Name)
		}
	}
	if n := len(r.Sink.Events) + len(r.Sink.Payloads); n > 64*len(data)+64 {
		return fmt.Errorf("%s: %d emissions for %d bytes", p.Name, n, len(data))
	}
	return nil
}
