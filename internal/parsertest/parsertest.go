// Package parsertest holds what the tests of the provider parsers share: a
// comparable record of one parse, readers that deliver an input whole, a
// line at a time, a byte at a time or in random pieces (a parser must give
// the same result for every one), and short renderings of payload and
// item kinds for assertions. It is imported by _test files only.
package parsertest

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
)

// Result is everything one parse produced, in a form tests compare and
// store as golden JSON.
type Result struct {
	Capability driver.StreamCapability `json:"capability"`
	Payloads   []driver.StreamPayload  `json:"payloads,omitempty"`
	Items      []driver.TranscriptItem `json:"items,omitempty"`
	Response   driver.Response         `json:"response"`
	Err        string                  `json:"err,omitempty"`
}

// ChunkReader returns S in pieces of the given Sizes, cycling through
// them; without Sizes, all of it in one Read (as far as the buffer
// allows).
type ChunkReader struct {
	S     string
	Sizes []int
	i     int
}

func (r *ChunkReader) Read(p []byte) (int, error) {
	if r.S == "" {
		return 0, io.EOF
	}
	n := len(r.S)
	if len(r.Sizes) > 0 {
		n = max(1, r.Sizes[r.i%len(r.Sizes)])
		r.i++
	}
	n = min(n, len(p), len(r.S))
	copy(p, r.S[:n])
	r.S = r.S[n:]
	return n, nil
}

// LineReader returns S one line (with its newline) per Read.
type LineReader struct{ S string }

func (r *LineReader) Read(p []byte) (int, error) {
	if r.S == "" {
		return 0, io.EOF
	}
	n := strings.IndexByte(r.S, '\n') + 1
	if n <= 0 {
		n = len(r.S)
	}
	n = min(n, len(p))
	copy(p, r.S[:n])
	r.S = r.S[n:]
	return n, nil
}

// Chunking names a way to deliver an input.
type Chunking struct {
	Name string
	Mk   func(s string) io.Reader
}

// Chunkings returns the four deliveries every parser is replayed under:
// whole, line, byte, and random pieces of 1 to 97 bytes drawn from seed.
func Chunkings(seed uint64) []Chunking {
	return []Chunking{
		{"whole", func(s string) io.Reader { return &ChunkReader{S: s} }},
		{"line", func(s string) io.Reader { return &LineReader{S: s} }},
		{"byte", func(s string) io.Reader { return &ChunkReader{S: s, Sizes: []int{1}} }},
		{"random", func(s string) io.Reader {
			rng := rand.New(rand.NewPCG(seed, 7))
			sizes := make([]int, 64)
			for i := range sizes {
				sizes[i] = 1 + rng.IntN(97)
			}
			return &ChunkReader{S: s, Sizes: sizes}
		}},
	}
}

// Kinds renders payloads as "kind", "kind:message-or-call-id" or, for
// steps, "kind:name".
func Kinds(ps []driver.StreamPayload) []string {
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

// ItemKinds renders transcript items as their kinds.
func ItemKinds(items []driver.TranscriptItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it.Kind)
	}
	return out
}

// Lines joins lines into a stream, each ended by a newline.
func Lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// CheckCodecDisplayID checks a parser's session codec: an empty DisplayID
// is ResumeID in both directions, a set one is kept, and the params of a
// state without one are a fixed point of FromParams then ToParams
// (adaptertest SES-03 and SES-04 with its default seed state, which has no
// DisplayID); the empty state maps to zero params and DisplayID is outside
// the guard.
func CheckCodecDisplayID(t *testing.T, codec driver.SessionCodec) {
	t.Helper()
	seed := &driver.SessionState{ResumeID: "adaptertest-session", Data: map[string]string{driver.ParamCWD: "/adaptertest"}}
	p := codec.ToParams(seed)
	want := driver.SessionParams{ResumeID: "adaptertest-session", DisplayID: "adaptertest-session", Values: map[string]string{driver.ParamCWD: "/adaptertest"}}
	if d := cmp.Diff(want, p); d != "" {
		t.Errorf("ToParams (-want +got):\n%s", d)
	}
	if seed.DisplayID != "" {
		t.Errorf("ToParams modified its argument: %+v", seed)
	}
	if d := cmp.Diff(p, codec.ToParams(codec.FromParams(p))); d != "" {
		t.Errorf("params -> FromParams -> ToParams (-want +got):\n%s", d)
	}
	if got := codec.FromParams(driver.SessionParams{ResumeID: "t-1"}); got == nil || got.DisplayID != "t-1" {
		t.Errorf("FromParams without DisplayID = %+v, want DisplayID t-1", got)
	}
	set := &driver.SessionState{ResumeID: "t-1", DisplayID: "shown"}
	if got := codec.FromParams(codec.ToParams(set)); got == nil || got.DisplayID != "shown" || codec.ToParams(set).DisplayID != "shown" {
		t.Errorf("a set DisplayID was not kept: %+v", got)
	}
	if got := codec.ToParams(&driver.SessionState{}); !got.IsZero() {
		t.Errorf("ToParams of an empty state = %+v, want zero", got)
	}
	if got := codec.FromParams(driver.SessionParams{Values: map[string]string{"x": "1"}}); got == nil || got.DisplayID != "" {
		t.Errorf("FromParams without ResumeID = %+v, want no DisplayID", got)
	}
	if codec.GuardFingerprint(p) != codec.GuardFingerprint(driver.SessionParams{ResumeID: p.ResumeID, Values: p.Values}) {
		t.Error("DisplayID changed the guard")
	}
}
