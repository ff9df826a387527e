package corpus

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/provider"
)

// Parsed is what a case's parse gave.
type Parsed struct {
	// Capability is the parser's stream capability for this case.
	Capability driver.StreamCapability
	// Streaming says whether stream payloads were requested.
	Streaming bool
	// Response is Finish's response, RawStreams filled with the exact
	// stdout the framing tee saw (and the case's stderr).
	Response driver.Response
	// Err is the error Finish (or a sink call) returned.
	Err error
	// Codec is the provider's session codec, for adaptertest RSP-04.
	Codec driver.SessionCodec
	// Wire are the provider protocol's findings of the parse (clause
	// Unpaired), placed in stdout.
	Wire []Finding
}

// prepare returns c's provider from the registry and the input of its
// replay: the options its meta.json implies (Case.Settings overriding), its
// outcome, stdout (or the given reader) and stdin delivered by ch, the
// previous run's checkpoint state for a resumed run. The caller sets
// Observe.
func prepare(c *Case, ch Chunking, streaming bool, stdout io.Reader) (provider.Provider, provider.Input, error) {
	p, ok := provider.Lookup(c.Provider)
	if !ok {
		return p, provider.Input{}, fmt.Errorf("no provider %q is registered", c.Provider)
	}
	settings := p.SettingsFrom(c.Meta)
	for k, v := range c.Settings {
		settings[k] = v
	}
	in := provider.Input{
		Capture: provider.Capture{
			Stdout: ch.Reader(c.Stdout), Stderr: bytes.NewReader(c.Stderr),
			Outcome: c.Meta.Outcome(), HTTPStatus: c.Meta.HTTPStatus, ContentType: c.Meta.ContentType,
		},
		Streaming: streaming, Settings: settings, SessionData: c.Meta.SessionData(),
	}
	if stdout != nil {
		in.Stdout = stdout
	}
	if c.Stdin != nil {
		in.Stdin = ch.Reader(c.Stdin)
	}
	if c.Prev != nil {
		// The driver resumes with the previous run's checkpoint state.
		if prev, err := Replay(c.Prev); err == nil {
			if cp := prev.Response.Checkpoint; cp != nil && cp.Valid {
				in.Resume = cp.State
			}
		}
	}
	return p, in, nil
}

// parse runs p over in into sink.
func parse(p provider.Provider, in provider.Input, sink driver.EventSink) Parsed {
	r := p.Parse(in, sink)
	out := Parsed{Capability: r.Capability, Streaming: in.Streaming, Response: r.Response, Err: r.Err, Codec: p.Codec}
	for _, f := range r.Findings {
		out.Wire = append(out.Wire, Finding{Violation: adaptertestViolation(f), Offset: f.Offset, Line: f.Line})
	}
	return out
}
