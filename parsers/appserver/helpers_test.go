package appserver

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// result is everything one parse produced, in a comparable form.
type result struct {
	Capability driver.StreamCapability `json:"capability"`
	Payloads   []driver.StreamPayload  `json:"payloads,omitempty"`
	Items      []driver.TranscriptItem `json:"items,omitempty"`
	Response   driver.Response         `json:"response"`
	Err        string                  `json:"err,omitempty"`
}

// chunkReader returns the input in pieces of the given sizes, cycling.
type chunkReader struct {
	s     string
	sizes []int
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := len(r.s)
	if len(r.sizes) > 0 {
		n = max(1, r.sizes[r.i%len(r.sizes)])
		r.i++
	}
	n = min(n, len(p), len(r.s))
	copy(p, r.s[:n])
	r.s = r.s[n:]
	return n, nil
}

// lineReader returns the input one line per Read.
type lineReader struct{ s string }

func (r *lineReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := strings.IndexByte(r.s, '\n') + 1
	if n <= 0 {
		n = len(r.s)
	}
	n = min(n, len(p))
	copy(p, r.s[:n])
	r.s = r.s[n:]
	return n, nil
}

// chunking names a way to deliver the input.
type chunking struct {
	name string
	mk   func(s string) io.Reader
}

func chunkings(seed uint64) []chunking {
	return []chunking{
		{"whole", func(s string) io.Reader { return &chunkReader{s: s} }},
		{"line", func(s string) io.Reader { return &lineReader{s: s} }},
		{"byte", func(s string) io.Reader { return &chunkReader{s: s, sizes: []int{1}} }},
		{"random", func(s string) io.Reader {
			rng := rand.New(rand.NewPCG(seed, 7))
			sizes := make([]int, 64)
			for i := range sizes {
				sizes[i] = 1 + rng.IntN(97)
			}
			return &chunkReader{s: s, sizes: sizes}
		}},
	}
}

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

func kinds(ps []driver.StreamPayload) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p.Kind)
		if p.MessageID != "" {
			out[i] += ":" + p.MessageID
		}
		if p.ToolCallID != "" {
			out[i] += ":" + p.ToolCallID
		}
		if p.Kind == driver.StreamStepStarted || p.Kind == driver.StreamStepFinished {
			out[i] += ":" + p.Name
		}
	}
	return out
}

func itemKinds(items []driver.TranscriptItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it.Kind)
	}
	return out
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
