package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/google/go-cmp/cmp"
)

// TestCorpus replays every corpus run and public capture under every
// chunking: zero validator violations, identical results whatever the
// chunking, and equality with the golden file.
func TestCorpus(t *testing.T) {
	cases := allCases(t)
	if len(cases) == 0 {
		t.Fatal("no corpus cases found")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var first run
			for i, ch := range chunkers {
				r := replay(t, c, ch)
				check(t, c, r)
				if i == 0 {
					first = r
					continue
				}
				if d := cmp.Diff(first.comparable(), r.comparable(), cmpOpts); d != "" {
					t.Fatalf("chunking %s differs from whole (-whole +%s):\n%s", ch.name, ch.name, d)
				}
			}
			path := filepath.Join(goldenRoot, c.name+".json")
			got := first.golden()
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no golden (run go test -update): %v", err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("golden mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestCorpusNotStreaming: with Streaming off nothing goes to EmitStream,
// and the transcript and response are the same as with it on.
func TestCorpusNotStreaming(t *testing.T) {
	for _, c := range allCases(t) {
		on := replay(t, c, chunkers[0])
		c.opts.Streaming = false
		off := replay(t, c, chunkers[0])
		check(t, c, off)
		if len(off.Payloads) != 0 {
			t.Errorf("%s: %d payloads with Streaming off", c.name, len(off.Payloads))
		}
		if d := cmp.Diff(on.Items, off.Items); d != "" {
			t.Errorf("%s: transcript depends on Streaming:\n%s", c.name, d)
		}
		if d := cmp.Diff(on.Response, off.Response, cmpOpts); d != "" {
			t.Errorf("%s: response depends on Streaming:\n%s", c.name, d)
		}
	}
}

// TestParseMatchesReplay: the Parse convenience gives the replay's result,
// with the exact raw bytes.
func TestParseMatchesReplay(t *testing.T) {
	for _, c := range allCases(t) {
		if len(c.stdin) > 0 {
			continue // Parse has no stdin: the HITL resolutions differ
		}
		want := replay(t, c, chunkers[0])
		sink := &adaptertest.RecordingSink{}
		resp, err := Parse(bytes.NewReader(c.stdout), bytes.NewReader(c.stderr), sink, c.opts, c.out)
		if (err == nil) != (want.err == nil) {
			t.Fatalf("%s: Parse error %v, replay error %v", c.name, err, want.err)
		}
		if resp.RawStreams.Stdout != string(c.stdout) || resp.RawStreams.Stderr != string(c.stderr) {
			t.Errorf("%s: raw streams are not the exact bytes", c.name)
		}
		if d := cmp.Diff(want.Response, resp, cmpOpts); d != "" {
			t.Errorf("%s: Parse differs from replay:\n%s", c.name, d)
		}
		if d := cmp.Diff(want.Payloads, sink.Payloads); d != "" {
			t.Errorf("%s: payloads differ:\n%s", c.name, d)
		}
		if v := sink.Check(c.opts.Streaming, New(nil, c.opts).Capability(), resp, err, Codec); len(v) > 0 {
			t.Errorf("%s: %v", c.name, v)
		}
	}
}
