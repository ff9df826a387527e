package codex

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

// run parses stdout/stderr with Parse through a RecordingSink and returns
// the result and the validators' findings.
func run(stdout, stderr string, opts Options, out Outcome, mk func(string) io.Reader) (result, adaptertest.Violations) {
	if mk == nil {
		mk = func(s string) io.Reader { return strings.NewReader(s) }
	}
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(mk(stdout), strings.NewReader(stderr), sink, opts, out)
	v := sink.Check(opts.Streaming, Capability, resp, err, Codec)
	r := result{Capability: Capability, Payloads: sink.Payloads, Items: sink.Items(), Response: resp}
	if err != nil {
		r.Err = err.Error()
	}
	return r, v
}

// mustRun is run that fails the test on any violation.
func mustRun(t *testing.T, stdout string, opts Options, out Outcome) result {
	t.Helper()
	r, v := run(stdout, "", opts, out, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	return r
}

const (
	lThread    = `{"type":"thread.started","thread_id":"t-1"}`
	lTurn      = `{"type":"turn.started"}`
	lDone      = `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":3}}`
	lMsg       = `{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}`
	lFailed    = `{"type":"turn.failed","error":{"message":"boom"}}`
	lReasoning = `{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"**Thinking**"}}`
)
