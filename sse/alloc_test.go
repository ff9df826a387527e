package sse

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/chunk"
)

// loopReader serves the same stream forever, so that allocation runs
// measure the steady state.
type loopReader struct {
	data []byte
	off  int
	max  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p[:min(len(p), l.max)], l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}

func TestNextAllocs(t *testing.T) {
	var openai, anth, multi strings.Builder
	for i := range 50 {
		fmt.Fprintf(&openai, "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"delta\":{\"content\":\"tok %d\"}}]}\n\n", i)
		fmt.Fprintf(&anth, "event: content_block_delta\r\ndata: {\"index\":0,\"delta\":{\"text\":\"t%d\"}}\r\n\r\n: ping\r\n\r\nevent: ping\r\ndata: {}\r\n\r\n", i)
		fmt.Fprintf(&multi, "id: 7\nretry: 100\ndata: a%d\ndata: b\n: c\ndata: c\n\n", i)
	}
	for name, in := range map[string]string{"openai": openai.String(), "anthropic-crlf": anth.String(), "multiline-id-retry": multi.String()} {
		for _, spans := range []bool{false, true} {
			for _, rs := range []int{16 << 10, 1 << 10, 7} {
				r := NewReader(&loopReader{data: []byte(in), max: rs}, Options{Spans: spans})
				for range 1000 { // warm up: grow buffers, intern names
					if _, err := r.Next(); err != nil {
						t.Fatal(err)
					}
				}
				allocs := testing.AllocsPerRun(2000, func() {
					if _, err := r.Next(); err != nil {
						t.Fatal(err)
					}
				})
				if allocs != 0 {
					t.Errorf("%s spans=%v reads=%d: %v allocs per Next, want 0", name, spans, rs, allocs)
				}
			}
		}
	}
}

func TestDecoderAllocs(t *testing.T) {
	in := []byte(strings.Repeat("event: e\ndata: {\"x\":1}\ndata: 2\n\n", 20))
	n := 0
	d := NewDecoder(Options{}, func(f *Frame, err error) error { n++; return err })
	d.Write(in)
	allocs := testing.AllocsPerRun(500, func() {
		if _, err := d.Write(in); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocs per Write of 20 events, want 0", allocs)
	}
}

// TestLinearWork feeds large events one byte at a time and checks that the
// bytes the machine examines or copies stay within a small multiple of the
// input: no rescans of a growing event.
func TestLinearWork(t *testing.T) {
	const n = 64 << 10 // enough to show a quadratic rescan: work would be ~n/2 per byte
	var multi bytes.Buffer
	for multi.Len() < n {
		multi.WriteString("data: " + strings.Repeat("m", 100) + "\n")
	}
	multi.WriteString("\n")
	cases := map[string][]byte{
		"long-line":          []byte("data: " + strings.Repeat("L", n) + "\n\n"),
		"multiline":          multi.Bytes(),
		"many-tiny":          []byte(strings.Repeat("data: x\n\n", n/9)),
		"crlf-lines":         []byte(strings.Repeat("data: x\r\n", n/9) + "\r\n"),
		"cr-lines":           []byte(strings.Repeat("data: x\r", n/8) + "\r"),
		"no-newline":         []byte(strings.Repeat("z", n)),
		"many-data-no-blank": []byte(strings.Repeat("data:\n", n/6)),
		"oversize-line":      []byte("data: " + strings.Repeat("O", n) + "\n\ndata: ok\n\n"),
		"oversize-multiline": append(append([]byte(nil), multi.Bytes()...), "data: ok\n\n"...),
	}
	for name, in := range cases {
		for _, face := range []string{"reader", "decoder"} {
			opts := Options{Spans: true}
			if strings.HasPrefix(name, "oversize") {
				opts.MaxEventSize = 8 << 10
			}
			var m *machine
			if face == "reader" {
				r := NewReader(chunk.Sizes(in, 1), opts)
				for {
					if _, err := r.Next(); err == io.EOF {
						break
					} else if err != nil && !IsRecoverable(err) {
						t.Fatal(err)
					}
				}
				m = &r.m
			} else {
				d := NewDecoder(opts, func(*Frame, error) error { return nil })
				for i := range in {
					d.Write(in[i : i+1])
				}
				d.Close()
				m = &d.m
			}
			if limit := 8*int64(len(in)) + 1024; m.work > limit {
				t.Errorf("%s/%s: %d bytes of work for %d input bytes (limit %d)", name, face, m.work, len(in), limit)
			}
			if strings.HasPrefix(name, "oversize") {
				if lim := 2*opts.MaxEventSize + 2*bufferSize; len(m.buf) > lim || cap(m.dbuf) > lim {
					t.Errorf("%s/%s: buffers grew to %d and %d with a limit of %d", name, face, len(m.buf), cap(m.dbuf), opts.MaxEventSize)
				}
			}
			t.Logf("%s/%s: work/input = %.2f", name, face, float64(m.work)/float64(len(in)))
		}
	}
}

func TestReset(t *testing.T) {
	in := []byte("\xEF\xBB\xBFevent: e\nid: 1\ndata: " + strings.Repeat("x", 100<<10) + "\ndata: y\n\ndata: tail")
	want := readAll(t, in, Options{Spans: true}, []int{1000})
	r := NewReader(strings.NewReader("data: other\r\nid: 9\r\n\r\ndata: unterminated"), Options{})
	r.Next()
	r.Next()
	for i := range 3 {
		r.Reset(chunk.Sizes(in, 1000), Options{Spans: true})
		var gs []got
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			gs = append(gs, fromFrame(f, err))
		}
		if fmt.Sprint(gs) != fmt.Sprint(want) {
			t.Fatalf("run %d after Reset: %v\nwant %v", i, gs, want)
		}
	}
	allocs := testing.AllocsPerRun(20, func() {
		r.Reset(bytes.NewReader(in), Options{})
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	if allocs > 2 { // the bytes.Reader and the ID string "1"
		t.Errorf("%v allocs per reset stream, want at most 2", allocs)
	}
	var n int
	var tee bytes.Buffer
	d := NewDecoder(Options{Tee: &tee}, nil)
	if _, err := d.Write(in); err != nil || d.Close() != nil || tee.Len() != len(in) {
		t.Fatalf("nil emit: %v, tee %d bytes", err, tee.Len())
	}
	d.Reset(Options{}, func(*Frame, error) error { n++; return nil })
	d.Write(in)
	d.Close()
	d.Reset(Options{}, func(*Frame, error) error { n++; return nil })
	d.Write(in)
	d.Close()
	if n != 4 {
		t.Fatalf("decoder after Reset emitted %d frames, want 4", n)
	}
}

// TestMemoryBound feeds hostile shapes with a small limit and buffer and
// checks that the buffers stay within twice the limit plus two initial
// buffers, whatever the read sizes.
func TestMemoryBound(t *testing.T) {
	withBufferSize(64, func() {
		const limit = 1000
		shapes := map[string]string{
			"long-line":      "data: " + strings.Repeat("a", 50000) + "\n\ndata: ok\n\n",
			"many-data":      strings.Repeat("data: 0123456789\n", 3000) + "\ndata: ok\n\n",
			"no-terminator":  strings.Repeat("x", 50000),
			"crs":            strings.Repeat("data: y\r", 6000),
			"comment-flood":  strings.Repeat(": keep-alive\n", 4000) + "\n",
			"under-limit":    strings.Repeat("data: "+strings.Repeat("b", 900)+"\n\n", 50),
			"exactly-2-data": strings.Repeat("data: "+strings.Repeat("c", 490)+"\ndata: "+strings.Repeat("d", 490)+"\n\n", 50),
		}
		for name, in := range shapes {
			for _, rs := range []int{1, 7, 4096, 1 << 20} {
				r := NewReader(chunk.Sizes([]byte(in), rs), Options{MaxEventSize: limit})
				peak := 0
				for {
					_, err := r.Next()
					peak = max(peak, len(r.m.buf)+cap(r.m.dbuf))
					if err == io.EOF {
						break
					}
					if err != nil && !IsRecoverable(err) {
						t.Fatal(err)
					}
				}
				if bound := 2 * (2*limit + 2*64); peak > bound {
					t.Errorf("%s/%d: buffers reached %d bytes, bound %d", name, rs, peak, bound)
				}
			}
		}
	})
}
