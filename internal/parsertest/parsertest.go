// Package parsertest holds what the tests of the provider parsers share: a
// comparable record of one parse, readers that deliver an input whole, a
// line at a time, a byte at a time or in random pieces (a parser must give
// the same result for every one), and short renderings of payload and
// item kinds for assertions. It is imported by _test files only.
package parsertest

import (
	"github.com/agentwire/agentwire/internal/chunk"
	"io"
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
// allows). It is chunk.Sizes over a string (a size of 0 or less is an
// empty read).
type ChunkReader struct {
	S     string
	Sizes []int
	r     io.Reader
}

func (r *ChunkReader) Read(p []byte) (int, error) {
	if r.r == nil {
		r.r = chunk.Sizes([]byte(r.S), r.Sizes...)
	}
	return r.r.Read(p)
}

// Chunking names a way to deliver an input: one of internal/chunk's, over
// a string.
type Chunking struct {
	Name string
	Mk   func(s string) io.Reader
}

// Chunkings returns the four deliveries every parser is replayed under,
// chunk.All(seed): whole, one line, one byte, and random pieces drawn from
// seed (chunk.Random).
func Chunkings(seed uint64) []Chunking {
	var out []Chunking
	for _, c := range chunk.All(seed) {
		out = append(out, Chunking{c.Name, func(s string) io.Reader { return c.Reader([]byte(s)) }})
	}
	return out
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

// Counts counts payloads by kind.
func Counts(ps []driver.StreamPayload) map[driver.StreamKind]int {
	n := make(map[driver.StreamKind]int)
	for _, p := range ps {
		n[p.Kind]++
	}
	return n
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

// FeedAll hands every frame next returns to feed until next returns
// io.EOF, failing t on any other error from either.
func FeedAll[F any](t testing.TB, next func() (F, error), feed func(F) error) {
	t.Helper()
	for {
		f, err := next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := feed(f); err != nil {
			t.Fatal(err)
		}
	}
}
