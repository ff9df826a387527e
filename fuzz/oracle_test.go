package fuzz

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// The oracles are themselves tested against deliberately broken readers
// and runs: each must report the defect it exists for.
func TestOraclesCatchDefects(t *testing.T) {
	data := []byte("abcdef")
	t.Run("lost bytes", func(t *testing.T) {
		a := accounting{data: data}
		if err := a.frame("x", 0, data[:3]); err != nil {
			t.Fatal(err)
		}
		if a.done("x") == nil {
			t.Fatal("3 of 6 bytes accounted, no error")
		}
		if a.frame("x", 4, data[4:]) == nil {
			t.Fatal("a gap between frames, no error")
		}
	})
	t.Run("rewritten bytes", func(t *testing.T) {
		a := accounting{data: data}
		if a.frame("x", 0, []byte("abX")) == nil {
			t.Fatal("raw that is not the input, no error")
		}
	})
	t.Run("quadratic reads", func(t *testing.T) {
		c := &counter{r: bytes.NewReader(data)}
		c.reads = 1000
		c.bytes = len(data)
		if c.check("x", len(data)) == nil {
			t.Fatal("1000 reads for 6 bytes, no error")
		}
		c.reads, c.bytes = 1, 12
		if c.check("x", len(data)) == nil {
			t.Fatal("input read twice, no error")
		}
	})
	t.Run("allocation", func(t *testing.T) {
		b := startBudget()
		sink = make([]byte, allocFixed+allocPerByte*len(data)+1)
		if b.check("x", len(data)) == nil {
			t.Fatal("allocation past the budget, no error")
		}
	})
	t.Run("chunking difference", func(t *testing.T) {
		if diff("x", []string{"a", "b"}, []string{"a"}) == nil || diff("x", []string{"skipped 1", "skipped 2"}, []string{"skipped 1"}) != nil {
			t.Fatal("diff does not compare, or does not merge skipped spans")
		}
	})
	t.Run("unearned checkpoint", func(t *testing.T) {
		p := ProviderByName("codex")
		in := []byte(`{"type":"thread.started","thread_id":"t1"}` + "\n" + `{"type":"turn.started"}` + "\n" + `{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}` + "\n")
		r, err := p.Run(bytes.NewReader(in), strings.NewReader(stderrOf), 0)
		if err != nil || verifyRun(p, r, in) != nil {
			t.Fatalf("clean run: %v %v", err, verifyRun(p, r, in))
		}
		if r.Response.Checkpoint == nil || !r.Response.Checkpoint.Valid {
			t.Fatal("the clean run has no valid checkpoint: the test would prove nothing")
		}
		r.Outcome = Outcome{ExitCode: 1}
		if verifyRun(p, r, in) == nil {
			t.Fatal("valid checkpoint after exit 1, no error")
		}
		r.Outcome = Outcome{}
		r.Response.RawStreams = &driver.RawStreams{Stdout: string(in[1:]), Stderr: stderrOf}
		if verifyRun(p, r, in) == nil {
			t.Fatal("RawStreams.Stdout lost a byte, no error")
		}
		r.Sink = &adaptertest.RecordingSink{}
		r.Response.RawStreams = &driver.RawStreams{Stdout: string(in), Stderr: stderrOf}
		if verifyRun(p, r, in) == nil {
			t.Fatal("transcript not emitted, no validator violation")
		}
	})
}

var sink []byte
