package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/ndjson"
)

// replicated is bench/e2e's replicate (parsertest.Replicated) at a size
// callgrind runs in seconds.
func replicated(b *testing.B, capture string, size int) []byte {
	data, err := os.ReadFile(filepath.Join(corpusDir, "claude-code@2.1.328", capture, "stdout"))
	if err != nil {
		b.Fatal(err)
	}
	return parsertest.Replicated(string(data), 1, size)
}

// feedShape is one of bench/e2e's claude shapes, smaller.
type feedShape struct {
	name string
	data []byte
	opts Options
}

// feedShapes are bench/e2e's claude shapes: the tool-success capture
// replicated ("mixed"), the partial-messages one ("partial"), and 20,000
// keep_alive lines between an init and a result ("keepalive").
func feedShapes(b *testing.B) []feedShape {
	ka := parsertest.Repeat(`{"type":"system","subtype":"init","session_id":"s-1","model":"m","cwd":"/w","tools":[]}`+"\n",
		`{"type":"keep_alive"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"x","session_id":"s-1","num_turns":1,"usage":{"input_tokens":1,"output_tokens":1}}`+"\n", 20000)
	return []feedShape{
		{"mixed", replicated(b, "tool-success", 520_000), Options{Streaming: true}},
		{"partial", replicated(b, "tool-success-partial", 368_000), Options{Streaming: true, PartialMessages: true}},
		{"keepalive", ka, Options{Streaming: true}},
	}
}

// nopSink keeps nothing, as bench/e2e's sink.
type nopSink struct{}

func (nopSink) Emit(driver.RunEvent) error            { return nil }
func (nopSink) EmitStream(driver.StreamPayload) error { return nil }

// BenchmarkFeed is bench/e2e's Feed contender (an ndjson.Reader without
// tee, Feed per frame, Finish; streaming on) over feedShapes.
func BenchmarkFeed(b *testing.B) {
	for _, s := range feedShapes(b) {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.data)))
			b.ReportAllocs()
			src := bytes.NewReader(s.data)
			r := ndjson.NewReader(src, ndjson.Options{})
			for b.Loop() {
				src.Reset(s.data)
				r.Reset(src, ndjson.Options{})
				p := New(nopSink{}, s.opts)
				parsertest.FeedAll(b, r.Next, p.Feed)
				if resp, err := p.Finish(Outcome{}); err != nil || !resp.Checkpoint.Valid {
					b.Fatalf("err %v checkpoint %+v", err, resp.Checkpoint)
				}
			}
		})
	}
}

// BenchmarkParse is bench/e2e's Parse contender: Parse, which tees stdout
// into RawStreams, over feedShapes, with an Unpaired callback as the
// provider registry sets (bench/e2e parses through it).
func BenchmarkParse(b *testing.B) {
	for _, s := range feedShapes(b) {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.data)))
			b.ReportAllocs()
			opts := s.opts
			opts.Unpaired = func(off int64, line int, msg string) { b.Fatalf("line %d: %s", line, msg) }
			for b.Loop() {
				resp, err := Parse(bytes.NewReader(s.data), nil, nopSink{}, opts, Outcome{})
				if err != nil || !resp.Checkpoint.Valid || len(resp.RawStreams.Stdout) != len(s.data) {
					b.Fatalf("err %v checkpoint %+v", err, resp.Checkpoint)
				}
			}
		})
	}
}
