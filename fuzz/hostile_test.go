package fuzz_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/fuzz"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/parsers/codex"
	"github.com/agentwire/agentwire/sse"
)

// gen is a generated, never stored, input: head, then body repeated up to
// n bytes in all, then tail. Every sampleEvery bytes it samples the heap
// (runtime.ReadMemStats) and keeps the peak, so a test sees the memory a
// reader holds while the input streams through it.
type gen struct {
	head, body, tail []byte
	n, off           int64
	sampled, peak    uint64
}

const sampleEvery = 32 << 20

// grow makes body at least 64 KiB (whole repetitions), so that Read
// copies in large pieces even under the race detector.
func (g *gen) grow() {
	if len(g.body) < 64<<10 && g.n%int64(len(g.body)) == 0 {
		g.body = bytes.Repeat(g.body, (64<<10)/len(g.body))
	}
}

func (g *gen) Read(p []byte) (int, error) {
	if g.off == 0 {
		g.grow()
	}
	total := int64(len(g.head)) + g.n + int64(len(g.tail))
	if g.off >= total {
		return 0, io.EOF
	}
	w := 0
	for w < len(p) && g.off < total {
		var src []byte
		switch b := int64(len(g.head)); {
		case g.off < b:
			src = g.head[g.off:]
		case g.off < b+g.n:
			i := (g.off - b) % int64(len(g.body))
			src = g.body[i:min(int64(len(g.body)), i+b+g.n-g.off)]
		default:
			src = g.tail[g.off-b-g.n:]
		}
		c := copy(p[w:], src)
		w += c
		g.off += int64(c)
	}
	if uint64(g.off)/sampleEvery != g.sampled {
		g.sampled = uint64(g.off) / sampleEvery
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		g.peak = max(g.peak, m.HeapAlloc)
	}
	return w, nil
}

// heapBase returns the live heap after a collection.
func heapBase() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// giantSize is 1 GiB, or 64 MiB with -short or the race detector (the
// bounds checked are the same; the reader code paths too).
func giantSize(t *testing.T) int64 {
	if testing.Short() || raceEnabled {
		return 64 << 20
	}
	return 1 << 30
}

// TestHostileGiantLine streams a single line of 1 GiB (64 MiB with -short)
// through the NDJSON, JSON-RPC and SSE readers with an 8 MiB limit: each
// reports one positioned oversize error covering the whole line, then EOF,
// and the heap stays within a few times the limit.
func TestHostileGiantLine(t *testing.T) {
	const limit = 8 << 20
	n := giantSize(t)
	bound := uint64(4 * limit)

	t.Run("ndjson", func(t *testing.T) {
		base := heapBase()
		g := &gen{head: []byte(`{"type":"`), body: []byte("aaaaaaaaaaaaaaaa"), n: n, tail: []byte("\"}\n{}\n")}
		r := ndjson.NewReader(g, ndjson.Options{MaxLineSize: limit})
		var le *ndjson.LineError
		if _, err := r.Next(); !errors.As(err, &le) || !errors.Is(err, ndjson.ErrLineTooLong) || le.Offset != 0 || le.Len != n+12 {
			t.Fatalf("first Next: %v (%+v), want ErrLineTooLong at 0 skipping %d bytes", err, le, n+12)
		}
		if f, err := r.Next(); err != nil || string(f.Data) != "{}" {
			t.Fatalf("after the giant line: %q, %v; want the next line", f.Data, err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("end: %v, want EOF", err)
		}
		if g.peak > base+bound {
			t.Fatalf("heap peaked at %d MiB over a %d MiB base (bound %d MiB)", (g.peak-base)>>20, base>>20, bound>>20)
		}
	})
	t.Run("jsonrpc", func(t *testing.T) {
		base := heapBase()
		g := &gen{head: []byte(`{"jsonrpc":"2.0","method":"`), body: []byte("mmmmmmmmmmmmmmmm"), n: n, tail: []byte("\"}\n")}
		r := jsonrpc.NewReader(g, jsonrpc.Options{MaxLineSize: limit})
		if _, err := r.Next(); !errors.Is(err, jsonrpc.ErrLineTooLong) || !jsonrpc.IsRecoverable(err) {
			t.Fatalf("first Next: %v, want a non-fatal ErrLineTooLong", err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("end: %v, want EOF", err)
		}
		if g.peak > base+bound {
			t.Fatalf("heap peaked at %d MiB over the base (bound %d MiB)", (g.peak-base)>>20, bound>>20)
		}
	})
	t.Run("sse", func(t *testing.T) {
		base := heapBase()
		g := &gen{head: []byte("event: x\ndata: "), body: []byte("dddddddddddddddd"), n: n, tail: []byte("\n\ndata: ok\n\n")}
		r := sse.NewReader(g, sse.Options{MaxEventSize: limit})
		var se *sse.Error
		if _, err := r.Next(); !errors.As(err, &se) || !errors.Is(err, sse.ErrEventTooLarge) || se.Offset != 0 {
			t.Fatalf("first Next: %v, want ErrEventTooLarge at offset 0", err)
		}
		if f, err := r.Next(); err != nil || string(f.Data) != "ok" {
			t.Fatalf("after the giant event: %q, %v; want the next event", f.Data, err)
		}
		if g.peak > base+bound {
			t.Fatalf("heap peaked at %d MiB over the base (bound %d MiB)", (g.peak-base)>>20, bound>>20)
		}
	})
	t.Run("codex-parser", func(t *testing.T) {
		// A driver feeding a parser from a bounded reader: the giant line
		// is a FeedError, the run has no valid checkpoint.
		base := heapBase()
		g := &gen{head: []byte(`{"type":"thread.started","thread_id":"`), body: []byte("tttttttttttttttt"), n: n,
			tail: []byte("\"}\n" + `{"type":"turn.started"}` + "\n" + `{"type":"turn.completed","usage":{}}` + "\n")}
		sink := &adaptertest.RecordingSink{}
		p := codex.New(sink, codex.Options{Streaming: true})
		r := ndjson.NewReader(g, ndjson.Options{MaxLineSize: limit})
		for f, err := range r.All() {
			if err != nil {
				if ferr := p.FeedError(err); ferr != nil {
					t.Fatal(ferr)
				}
				continue
			}
			if err := p.Feed(f); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := p.Finish(codex.Outcome{})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Checkpoint != nil && resp.Checkpoint.Valid {
			t.Fatal("valid checkpoint after a line that was too long")
		}
		if v := sink.Check(true, p.Capability(), resp, nil, codex.Codec); len(v) > 0 {
			t.Fatalf("violations:\n%v", v)
		}
		if g.peak > base+bound {
			t.Fatalf("heap peaked at %d MiB over the base (bound %d MiB)", (g.peak-base)>>20, bound>>20)
		}
	})
}

// TestHostileNested sends 5 MB of '[' as one line (and as an SSE event)
// with the default limits: the depth guard rejects it without recursion,
// every parser records a malformed line and no valid checkpoint, and
// allocation stays linear.
func TestHostileNested(t *testing.T) {
	deep := bytes.Repeat([]byte("["), 5<<20)
	line := append(append([]byte{}, deep...), '\n')

	r := ndjson.NewReader(bytes.NewReader(line), ndjson.Options{})
	f, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := f.Decode(&v); !errors.Is(err, jsonguard.ErrTooDeep) {
		t.Fatalf("Decode: %v, want ErrTooDeep", err)
	}
	jf, err := jsonrpc.ClassifyBytes(deep, jsonrpc.Options{})
	if jf.Class != jsonrpc.Invalid || !errors.Is(err, jsonrpc.ErrTooDeep) {
		t.Fatalf("Classify: %v %v, want Invalid with ErrTooDeep", jf.Class, err)
	}
	sr := sse.NewReader(io.MultiReader(strings.NewReader("data: "), bytes.NewReader(line), strings.NewReader("\n")), sse.Options{})
	if sf, err := sr.Next(); err != nil || len(sf.Data) != len(deep) {
		t.Fatalf("sse: %d bytes, %v; want the event", len(sf.Data), err)
	}
	for _, p := range fuzz.Providers() {
		t.Run(p.Name, func(t *testing.T) {
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			run, err := p.Run(bytes.NewReader(line), strings.NewReader(""), 0)
			if err != nil || run.Err != nil {
				t.Fatal(err, run.Err)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if used := after.TotalAlloc - before.TotalAlloc; used > 16*uint64(len(line)) {
				t.Errorf("allocated %d MiB for a %d MiB line", used>>20, len(line)>>20)
			}
			if cp := run.Response.Checkpoint; cp != nil && cp.Valid {
				t.Error("valid checkpoint")
			}
			if run.Response.RawStreams == nil || run.Response.RawStreams.Stdout != string(line) {
				t.Error("raw stdout not preserved")
			}
			if v := run.Sink.Check(run.Streaming, run.Capability, run.Response, nil, p.Codec); len(v) > 0 {
				t.Errorf("violations:\n%v", v)
			}
		})
	}
}

// TestHostileManyEvents streams a million tiny SSE events through the
// Reader and the Decoder: all are delivered, in steady state without
// allocating.
func TestHostileManyEvents(t *testing.T) {
	const n = 1_000_000
	ev := []byte("data:x\n\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := sse.NewReader(&gen{body: ev, n: n * int64(len(ev))}, sse.Options{})
	count := 0
	for f, err := range r.All() {
		if err != nil || len(f.Data) != 1 || f.Data[0] != 'x' {
			t.Fatalf("event %d: %q, %v", count, f.Data, err)
		}
		count++
	}
	runtime.ReadMemStats(&after)
	if count != n {
		t.Fatalf("%d events, want %d", count, n)
	}
	if used := after.TotalAlloc - before.TotalAlloc; used > 4<<20 {
		t.Errorf("Reader allocated %d KiB for %d events", used>>10, n)
	}
	count = 0
	d := sse.NewDecoder(sse.Options{}, func(f *sse.Frame, err error) error {
		if err != nil {
			return err
		}
		count++
		return nil
	})
	if _, err := io.Copy(d, &gen{body: ev, n: n * int64(len(ev))}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil || count != n {
		t.Fatalf("Decoder: %d events, %v", count, err)
	}
}

// hostileInputs are the byte-level attacks the end-to-end oracles must
// survive: NUL bytes, invalid UTF-8 and random binary, alone and inside
// otherwise valid protocol lines.
func hostileInputs() map[string][]byte {
	rnd := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 256<<10)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	return map[string][]byte{
		"nul":            bytes.Repeat([]byte{0}, 64<<10),
		"nul-in-json":    []byte(`{"type":"thread.started","thread_id":"a` + "\x00" + `b"}` + "\n" + `{"type":"turn.completed","usage":{}}` + "\n" + "data: \x00\nid: a\x00b\n\n"),
		"nul-escaped":    []byte(`{"type":"thread.started","thread_id":"a\u0000b"}` + "\n" + `{"type":"turn.completed","usage":{}}` + "\n"),
		"invalid-utf8":   []byte("{\"type\":\"item.completed\",\"item\":{\"id\":\"\xff\xfe\",\"type\":\"agent_message\",\"text\":\"\xc3\x28\xed\xa0\x80\"}}\n" + "data: \xff\n\n" + "{\"jsonrpc\":\"2.0\",\"method\":\"\xc0\xaf\"}\n"),
		"utf8-bom-twice": []byte("\xef\xbb\xbf\xef\xbb\xbf{}\n"),
		"random":         random,
		"random-lines":   bytes.ReplaceAll(random, []byte{'\xaa'}, []byte{'\n'}),
	}
}

// TestHostileBytes runs every end-to-end oracle of package fuzz (readers,
// parsers, chunking differential, codecs) over the hostile inputs.
func TestHostileBytes(t *testing.T) {
	for name, in := range hostileInputs() {
		for _, target := range fuzz.Targets {
			if target.Name == "FuzzChunking" && len(in) > 64<<10 {
				continue // 8 chunkings x 6 consumers: covered by the smaller inputs
			}
			if err := target.Check(in); err != nil {
				t.Errorf("%s on %s: %v", target.Name, name, err)
			}
		}
	}
}
