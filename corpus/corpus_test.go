package corpus_test

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/corpus"
)

var update = flag.Bool("update", false, "rewrite golden.json in every corpus case")

// known lists corpus cases whose violations are parser bugs, by case name.
var known = map[string]string{}

// TestCorpus replays the whole corpus (every case below this directory)
// under every chunking against its golden.json.
func TestCorpus(t *testing.T) {
	corpus.TestDir(t, ".", corpus.TestOptions{Update: *update, Known: known})
}

// TestUpdate: TestDir with Update writes golden.json into a corpus that
// has none, equal to the committed golden, and the next run compares
// clean.
func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	err := fs.WalkDir(corpus.SampleFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == corpus.FileGolden {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(corpus.SampleFS, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("update", func(t *testing.T) { corpus.TestDir(t, dir, corpus.TestOptions{Update: true}) })
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(corpus.SampleName), corpus.FileGolden))
	if err != nil {
		t.Fatal(err)
	}
	sample, err := corpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		return // the embedded golden may be the one being rewritten
	}
	if string(got) != string(sample.Golden) {
		t.Fatalf("written golden differs from the committed one:\n%s", corpus.DiffJSON(sample.Golden, got))
	}
	t.Run("compare", func(t *testing.T) { corpus.TestDir(t, dir, corpus.TestOptions{}) })
}

// TestDiscard: a replay that keeps no emission (Options.Discard), its
// document written as the parse goes (Begin, Live, DocumentWriter), gives
// every case of the corpus byte for byte the document of the recording
// replay, and the same findings, under the whole and the random chunking;
// with DiscardTranscript and Bounded too, the same response and findings
// but for its empty transcript (no case reuses an id after its lifecycle
// ended: TestBoundedReuse).
func TestDiscard(t *testing.T) {
	cases, err := corpus.Load(os.DirFS("."), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		for _, ch := range []corpus.Chunking{corpus.Whole, corpus.Random(uint64(len(c.Stdout)))} {
			want, err := corpus.Options{Chunking: ch}.Replay(c)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, err := want.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			var dw *corpus.DocumentWriter
			var werr error
			o := corpus.Options{Chunking: ch, Discard: true,
				Begin: func(p string, cp corpus.Capability) { dw = corpus.NewDocumentWriter(&out, p, cp) },
				Live: func(_ int, ev corpus.Event, _ corpus.Origin) {
					if err := dw.Event(&ev); err != nil && werr == nil {
						werr = err
					}
				}}
			got, err := o.Replay(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := dw.Close(&got.Document.Response, got.Document.Violations); err != nil || werr != nil {
				t.Fatal(err, werr)
			}
			if got.Document.Events != nil || got.Origins != nil || got.Sink != nil {
				t.Errorf("%s: a discarding replay kept its events", c.Name)
			}
			if !bytes.Equal(out.Bytes(), wantJSON) {
				t.Errorf("%s (%s): the streamed document differs (-recorded +discarding):\n%s", c.Name, ch.Name, corpus.DiffJSON(wantJSON, out.Bytes()))
			}
			if !reflect.DeepEqual(got.Findings, want.Findings) {
				t.Errorf("%s (%s): findings differ:\n got %v\nwant %v", c.Name, ch.Name, got.Findings, want.Findings)
			}
			// And with the parser keeping no transcript and no lifecycle
			// once over: the same but for the response's transcript.
			lean, err := corpus.Options{Chunking: ch, Discard: true, DiscardTranscript: true, Bounded: true}.Replay(c)
			if err != nil {
				t.Fatal(err)
			}
			resp := lean.Document.Response
			if len(resp.Transcript) != 0 || resp.Transcript == nil {
				t.Errorf("%s (%s): DiscardTranscript: transcript %v, want []", c.Name, ch.Name, resp.Transcript)
			}
			resp.Transcript = want.Document.Response.Transcript
			if !reflect.DeepEqual(resp, want.Document.Response) || !reflect.DeepEqual(lean.Findings, want.Findings) {
				t.Errorf("%s (%s): DiscardTranscript: the response or findings differ:\n got %v\nwant %v", c.Name, ch.Name, lean.Findings, want.Findings)
			}
		}
	}
}

// TestBoundedReuse: a codex stream that reuses an item id after its
// item.completed is reported by the exact replay (the reused message under
// a fresh "m#2", the checkpoint invalid: the parser calls it malformed),
// and not by a bounded one (Options.Bounded), which takes the reuse for a
// new item under the same id: the consequence the option documents.
func TestBoundedReuse(t *testing.T) {
	c := &corpus.Case{Name: "reuse", Provider: "codex", Stdout: []byte(`{"type":"thread.started","thread_id":"t-1"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"m","type":"agent_message","text":"one"}}
{"type":"item.completed","item":{"id":"m","type":"agent_message","text":"two"}}
{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}
`)}
	for _, bounded := range []bool{false, true} {
		var starts []string
		o := corpus.Options{Discard: true, DiscardTranscript: true, Bounded: bounded,
			Live: func(_ int, ev corpus.Event, _ corpus.Origin) {
				if ev.Stream != nil && ev.Stream.Kind == "text.start" {
					starts = append(starts, ev.Stream.MessageID)
				}
			}}
		r, err := o.Replay(c)
		if err != nil {
			t.Fatal(err)
		}
		valid := r.Document.Response.Checkpoint != nil && r.Document.Response.Checkpoint.Valid
		if want := []string{"m", "m#2"}; !bounded && (valid || !reflect.DeepEqual(starts, want)) {
			t.Errorf("exact: checkpoint valid %v, text.start ids %q (want %q)", valid, starts, want)
		}
		if want := []string{"m", "m"}; bounded && (!valid || !reflect.DeepEqual(starts, want) || len(r.Findings) > 0) {
			t.Errorf("bounded: checkpoint valid %v, text.start ids %q (want %q), findings %v", valid, starts, want, r.Findings)
		}
	}
}

// TestBoundedMalformed: a bounded replay lists the first 1000 malformed
// frames, counts the others in one finding at the first of them, and
// still tells a truncated final line apart; the exact replay lists every
// frame.
func TestBoundedMalformed(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"thread.started","thread_id":"t-1"}` + "\n")
	const n = 1500
	for i := range n {
		fmt.Fprintf(&b, "warning: step %d\n", i)
	}
	b.WriteString(`{"type":"turn.started"`) // cut off
	c := &corpus.Case{Name: "garbage", Provider: "codex", Stdout: []byte(b.String())}
	count := func(r *corpus.Result, clause string) (k int, last corpus.Finding) {
		for _, f := range r.Findings {
			if f.Clause == clause {
				k, last = k+1, f
			}
		}
		return k, last
	}
	exact, err := corpus.Options{Discard: true, DiscardTranscript: true}.Replay(c)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := count(exact, corpus.Malformed); k != n {
		t.Fatalf("exact: %d malformed findings, want %d", k, n)
	}
	bounded, err := corpus.Options{Discard: true, DiscardTranscript: true, Bounded: true}.Replay(c)
	if err != nil {
		t.Fatal(err)
	}
	k, last := count(bounded, corpus.Malformed)
	if k != 1001 || !strings.HasPrefix(last.Message, "500 malformed frames from here on") {
		t.Fatalf("bounded: %d malformed findings (want 1001), the last %q", k, last.Message)
	}
	// The summary stands at the 1001st malformed line: line 1002 (the
	// first line is thread.started).
	if last.Line != 1002 {
		t.Errorf("bounded: the summary at line %d, want 1002", last.Line)
	}
	for _, r := range []*corpus.Result{exact, bounded} {
		if k, _ := count(r, corpus.Truncated); k != 1 {
			t.Errorf("%d truncated findings, want 1", k)
		}
	}
}
