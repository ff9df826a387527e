package gemini

import (
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/internal/parsertest"
)

// The shared harness (internal/parsertest): the comparable result, the
// four deliveries every test replays under, kind renderings.
type result = parsertest.Result

var (
	chunkings = parsertest.Chunkings
	cpuTime   = parsertest.CPUTime
	kinds     = parsertest.Kinds
	itemKinds = parsertest.ItemKinds
)

// run parses body with Parse through a RecordingSink and returns the
// result and the validators' findings.
func run(status int, body string, opts Options, mk func(string) io.Reader) (result, adaptertest.Violations) {
	if mk == nil {
		mk = func(s string) io.Reader { return strings.NewReader(s) }
	}
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(status, "text/event-stream", mk(body), sink, opts)
	v := sink.Check(opts.Streaming, Capability, resp, err, nil)
	r := result{Capability: Capability, Payloads: sink.Payloads, Items: sink.Items(), Response: resp}
	if err != nil {
		r.Err = err.Error()
	}
	return r, v
}

// mustRun is run that fails the test on any violation.
func mustRun(t *testing.T, status int, body string) result {
	t.Helper()
	r, v := run(status, body, Options{Streaming: true}, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	return r
}

// sseBody frames each JSON document as a Gemini event (CRLF, as the API).
func sseBody(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\r\n\r\n")
	}
	return b.String()
}
