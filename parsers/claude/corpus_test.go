package claude

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/google/go-cmp/cmp"
)

// TestCorpus replays every corpus run and public capture under every
// chunking: zero validator violations, identical results whatever the
// chunking, and equality with the golden (see below).
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
					t.Fatalf("chunking %s differs from whole (-whole +%s):\n%s", ch.Name, ch.Name, d)
				}
			}
			// Corpus cases are held to their golden.json in corpus/ by corpus.Test
			// (the same parse, in the format of agentwire parse --format json); only
			// the public captures, which are not in the corpus, keep a golden here.
			if !strings.HasPrefix(c.name, "public/") {
				return
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

type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestParseErrors: a read error is an infrastructure error (the bytes read
// so far are kept), a failing sink stops emission but not the raw capture,
// and a nil stderr is empty.
func TestParseErrors(t *testing.T) {
	in := stream(initL(), asstL("", "m1", textB("Hi")), okL("Hi"))
	boom := errors.New("read failed")
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(&failingReader{data: in[:len(in)-10], err: boom}, nil, sink, Options{Streaming: true}, Outcome{})
	if !errors.Is(err, boom) || resp.Checkpoint.Valid || resp.RawStreams.Stdout != string(in[:len(in)-10]) {
		t.Fatalf("err %v checkpoint %+v", err, resp.Checkpoint)
	}
	if v := sink.Check(true, New(nil, Options{}).Capability(), resp, err, Codec); len(v) > 0 {
		t.Fatal(v)
	}
	failing := &adaptertest.RecordingSink{FailAfter: 1}
	resp, err = Parse(bytes.NewReader(in), bytes.NewReader([]byte("warn\n")), failing, Options{Streaming: true}, Outcome{})
	if !errors.Is(err, adaptertest.ErrSinkFailed) || resp.RawStreams.Stdout != string(in) || resp.RawStreams.Stderr != "warn\n" {
		t.Fatalf("err %v raw %+v", err, resp.RawStreams)
	}
}
