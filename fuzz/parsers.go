package fuzz

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/provider"
)

// Outcome is the process outcome of a parser run.
type Outcome = driver.Outcome

// outcomes are the process outcomes a parser target selects from its
// input's hash; half of them are clean, where checkpoint safety matters.
var outcomes = []Outcome{{}, {}, {}, {}, {ExitCode: 1}, {Signal: "SIGKILL", ExitCode: -1}, {Cancelled: true}, {TimedOut: true}}

// Provider is one registered provider (package provider) as the parser
// targets run it.
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

// Providers returns every registered provider, sorted by name.
func Providers() []Provider {
	var out []Provider
	for _, p := range provider.All() {
		out = append(out, fuzzProvider(p))
	}
	return out
}

// ProviderByName returns the registered provider called name.
func ProviderByName(name string) Provider {
	p, ok := provider.Lookup(name)
	if !ok {
		panic("fuzz: no provider " + name)
	}
	return fuzzProvider(p)
}

// fuzzProvider runs p in the mode drawn from an input: the outcome is
// outcomes[mode%8], streaming is on unless bit 3 is set, and switch i of
// the provider (provider.Switch) is on when bit 4+i is set.
func fuzzProvider(p provider.Provider) Provider {
	return Provider{Name: p.Name, Codec: p.Codec, Run: func(stdout, stderr io.Reader, mode uint64) (Run, error) {
		r := Run{Sink: &adaptertest.RecordingSink{}, Streaming: mode&8 == 0, Outcome: outcomes[mode%8]}
		settings := map[string]bool{}
		for i, sw := range p.Switches {
			settings[sw.Name] = mode>>(4+i)&1 != 0
		}
		got := p.Parse(provider.Input{
			Capture:   provider.Capture{Stdout: stdout, Stderr: stderr, Outcome: r.Outcome},
			Streaming: r.Streaming, Settings: settings, SessionData: sessionData,
		}, r.Sink)
		r.Capability, r.Response, r.Err = got.Capability, got.Response, got.Err
		return r, nil
	}}
}

// stderrOf is the stderr a parser target pairs with its stdout: a short
// line, so that RawStreams.Stderr is checked too.
const stderrOf = "warning: fuzz\n"

// CheckParser is the oracle of the provider targets (one per registered
// provider, see Targets): data is the whole stdout of a run, parsed
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
