package appserver

import (
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/internal/parsertest"
)

// The shared harness (internal/parsertest): the comparable result, the
// four deliveries every test replays under, kind renderings.
type (
	result      = parsertest.Result
	chunkReader = parsertest.ChunkReader
)

var (
	chunkings = parsertest.Chunkings
	cpuTime   = parsertest.CPUTime
	kinds     = parsertest.Kinds
	itemKinds = parsertest.ItemKinds
	lines     = parsertest.Lines
)

// run parses a session with ParseSession through a RecordingSink and
// returns the result and the validators' findings.
func run(stdin, stdout, stderr string, opts Options, out Outcome, mk func(string) io.Reader) (result, adaptertest.Violations) {
	if mk == nil {
		mk = func(s string) io.Reader { return strings.NewReader(s) }
	}
	sink := &adaptertest.RecordingSink{}
	var in io.Reader
	if stdin != "" {
		in = mk(stdin)
	}
	resp, err := ParseSession(in, mk(stdout), strings.NewReader(stderr), sink, opts, out)
	v := sink.Check(opts.Streaming, Capability, resp, err, Codec)
	r := result{Capability: Capability, Payloads: sink.Payloads, Items: sink.Items(), Response: resp}
	if err != nil {
		r.Err = err.Error()
	}
	return r, v
}

// mustRun is run that fails the test on any violation.
func mustRun(t *testing.T, stdin, stdout string, opts Options, out Outcome) result {
	t.Helper()
	r, v := run(stdin, stdout, "", opts, out, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	return r
}
