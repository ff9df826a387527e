package acp

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/encoding/json"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/jsonrpc"
)

// rawEqual compares raw JSON values (in payloads' Raw) as bytes.
var rawEqual = cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })

// The shared harness (internal/parsertest): the comparable result, the
// four deliveries every test replays under, kind renderings.
type result = parsertest.Result

var (
	chunkings = parsertest.Chunkings
	cpuTime   = parsertest.CPUTime
	kinds     = parsertest.Kinds
	itemKinds = parsertest.ItemKinds
	lines     = parsertest.Lines
)

// run parses a session with ParseSession through a RecordingSink and
// returns the result, the validators' findings and the unpaired findings.
func run(stdin, stdout, stderr string, opts Options, out Outcome, mk func(string) io.Reader) (result, adaptertest.Violations, []string) {
	if mk == nil {
		mk = func(s string) io.Reader { return strings.NewReader(s) }
	}
	var unpaired []string
	opts.Unpaired = func(_ int64, _ int, msg string) { unpaired = append(unpaired, msg) }
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
	return r, v, unpaired
}

// mustRun is run that fails the test on any violation and checks that
// every chunking gives the same result.
func mustRun(t *testing.T, stdin, stdout string, opts Options, out Outcome) (result, []string) {
	t.Helper()
	r, v, u := run(stdin, stdout, "", opts, out, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	for _, c := range chunkings(7) {
		r2, v2, u2 := run(stdin, stdout, "", opts, out, c.Mk)
		if len(v2) > 0 {
			t.Fatalf("%s: violations:\n%s", c.Name, v2)
		}
		if d := cmp.Diff(r, r2, rawEqual); d != "" || strings.Join(u, "|") != strings.Join(u2, "|") {
			t.Fatalf("%s: result differs from whole delivery:\n%s", c.Name, d)
		}
	}
	return r, u
}

// discard is a sink that keeps nothing.
type discard struct{}

func (discard) Emit(driver.RunEvent) error            { return nil }
func (discard) EmitStream(driver.StreamPayload) error { return nil }

// feedLines feeds the agent lines of s to p.
func feedLines(t *testing.T, p *Parser, s string) {
	t.Helper()
	r := jsonrpc.NewReader(strings.NewReader(s), jsonrpc.Options{})
	for {
		f, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Feed(f); err != nil {
			t.Fatal(err)
		}
	}
}
