package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/ndjson"
)

// feedStreams are bench/e2e's codex shapes at a size callgrind runs in
// seconds: the tool-success capture replicated as bench/e2e does
// (parsertest.Replicated: its items repeated with their ids renumbered;
// "small"), and its two hostile streams, lines of an unknown type
// ("unknown") and todo_list updates of one item ("todo").
func feedStreams(b *testing.B) map[string][]byte {
	capture, err := os.ReadFile(filepath.Join(corpusRoot, "codex@0.169.0", "tool-success", "stdout"))
	if err != nil {
		b.Fatal(err)
	}
	small := parsertest.Replicated(string(capture), 2, 1_024_000)
	hostile := func(header, line string) []byte {
		return parsertest.Repeat(lThread+"\n"+lTurn+"\n"+header, line, lDone+"\n", 20000)
	}
	return map[string][]byte{
		"small":   small,
		"unknown": hostile("", `{"type":"x"}`),
		"todo": hostile(`{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false}]}}`+"\n",
			`{"type":"item.updated","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false},{"text":"b","completed":true}]}}`),
	}
}

// nopSink keeps nothing, as bench/e2e's Feed contender's sink.
type nopSink struct{}

func (nopSink) Emit(driver.RunEvent) error            { return nil }
func (nopSink) EmitStream(driver.StreamPayload) error { return nil }

// BenchmarkFeed is bench/e2e's Feed contender (framing without the tee,
// Feed, Finish, streaming on) over feedStreams.
func BenchmarkFeed(b *testing.B) {
	streams := feedStreams(b)
	for _, name := range []string{"small", "unknown", "todo"} {
		data := streams[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				p := New(nopSink{}, Options{Streaming: true})
				r := ndjson.NewReader(bytes.NewReader(data), ndjson.Options{})
				parsertest.FeedAll(b, r.Next, p.Feed)
				if resp, err := p.Finish(Outcome{}); err != nil || !resp.Checkpoint.Valid {
					b.Fatalf("err %v checkpoint %+v", err, resp.Checkpoint)
				}
			}
		})
	}
}

// BenchmarkShapesParse is bench/e2e's Parse contender over feedStreams:
// Parse as the provider registry calls it (the tee, RawStreams, and
// Unpaired set, so the pairing rules run), streaming on. Its gap to
// BenchmarkFeed is what Parse adds to the parse.
func BenchmarkShapesParse(b *testing.B) {
	streams := feedStreams(b)
	for _, name := range []string{"small", "unknown", "todo"} {
		data := streams[name]
		// The todo_list item is started and updated, never completed: the
		// pairing rules report it, once.
		want := 0
		if name == "todo" {
			want = 1
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var unpaired int
				opts := Options{Streaming: true, Unpaired: func(int64, int, string) { unpaired++ }}
				resp, err := Parse(bytes.NewReader(data), nil, nopSink{}, opts, Outcome{})
				if err != nil || !resp.Checkpoint.Valid || unpaired != want || len(resp.RawStreams.Stdout) != len(data) {
					b.Fatalf("err %v checkpoint %+v unpaired %d", err, resp.Checkpoint, unpaired)
				}
			}
		})
	}
}
