package ndjson

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"io"
	"testing"

	"github.com/agentwire/agentwire/ndjson"
	segjson "github.com/segmentio/encoding/json"
)

// Framing: count the lines and their bytes, the least a consumer does.

// indexByteLines is the baseline: a minimal newline splitter over 16 KiB
// reads (a reused buffer, partial lines carried over, no limit, no CR
// handling, no positions).
func indexByteLines(r io.Reader, bufp *[]byte, fn func([]byte)) {
	buf := *bufp
	defer func() { *bufp = buf }()
	start, end := 0, 0
	for {
		if end == len(buf) {
			if start == 0 {
				buf = append(buf, make([]byte, len(buf))...)
			} else {
				end = copy(buf, buf[start:end])
				start = 0
			}
		}
		n, err := r.Read(buf[end:])
		end += n
		for {
			i := bytes.IndexByte(buf[start:end], '\n')
			if i < 0 {
				break
			}
			fn(buf[start : start+i])
			start += i + 1
		}
		if err != nil {
			if start < end {
				fn(buf[start:end])
			}
			return
		}
	}
}

func BenchmarkFraming(b *testing.B) {
	data, lines := loadWorkload()
	var sink int
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
	}
	b.Run("IndexByte-inmemory", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			rest := data
			for len(rest) > 0 {
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					i = len(rest) - 1
				}
				sink += i
				rest = rest[i+1:]
			}
		}
		report(b)
	})
	b.Run("IndexByte-16KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		buf := make([]byte, 64<<10)
		for b.Loop() {
			indexByteLines(&chunkReader{data: data, size: readSize}, &buf, func(l []byte) { sink += len(l) })
		}
		report(b)
	})
	b.Run("bufio.Scanner-16KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		buf := make([]byte, 64<<10)
		for b.Loop() {
			sc := bufio.NewScanner(&chunkReader{data: data, size: readSize})
			sc.Buffer(buf, 64<<20)
			for sc.Scan() {
				sink += len(sc.Bytes())
			}
		}
		report(b)
	})
	b.Run("ndjson.Reader-16KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		src := &chunkReader{}
		r := ndjson.NewReader(src, ndjson.Options{})
		for b.Loop() {
			*src = chunkReader{data: data, size: readSize}
			r.Reset(src, ndjson.Options{})
			for {
				f, err := r.Next()
				if err != nil {
					break
				}
				sink += len(f.Data)
			}
		}
		report(b)
	})
	b.Run("ndjson.Reader+Type-16KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		src := &chunkReader{}
		r := ndjson.NewReader(src, ndjson.Options{})
		for b.Loop() {
			*src = chunkReader{data: data, size: readSize}
			r.Reset(src, ndjson.Options{})
			for {
				f, err := r.Next()
				if err != nil {
					break
				}
				t, _ := f.Type()
				sink += len(t)
			}
		}
		report(b)
	})
	b.Run("ndjson.Decoder-16KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		emit := func(f ndjson.Frame, err error) error { sink += len(f.Data); return nil }
		d := ndjson.NewDecoder(ndjson.Options{}, emit)
		for b.Loop() {
			d.Reset(ndjson.Options{}, emit)
			for rest := data; len(rest) > 0; {
				n := min(len(rest), readSize)
				d.Write(rest[:n])
				rest = rest[n:]
			}
			d.Close()
		}
		report(b)
	})
	_ = sink
}

// Decoding: frame and decode every line into the typed union Event.

type decodeFunc func(data []byte, fn func(*Event)) error

var decoders = []struct {
	name string
	run  decodeFunc
}{
	{"encoding-json.Unmarshal", func(data []byte, fn func(*Event)) error {
		var err error
		indexByteLines(&chunkReader{data: data, size: readSize}, new(make([]byte, 64<<10)), func(l []byte) {
			var e Event
			if uerr := stdjson.Unmarshal(l, &e); uerr != nil && err == nil {
				err = uerr
			}
			fn(&e)
		})
		return err
	}},
	{"encoding-json.Decoder", func(data []byte, fn func(*Event)) error {
		dec := stdjson.NewDecoder(&chunkReader{data: data, size: readSize})
		for {
			var e Event
			if err := dec.Decode(&e); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			fn(&e)
		}
	}},
	{"segmentio.Decoder", func(data []byte, fn func(*Event)) error {
		dec := segjson.NewDecoder(&chunkReader{data: data, size: readSize})
		for {
			var e Event
			if err := dec.Decode(&e); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			fn(&e)
		}
	}},
	{"segmentio.Unmarshal-unguarded", func(data []byte, fn func(*Event)) error {
		var err error
		indexByteLines(&chunkReader{data: data, size: readSize}, new(make([]byte, 64<<10)), func(l []byte) {
			var e Event
			if uerr := segjson.Unmarshal(l, &e); uerr != nil && err == nil {
				err = uerr
			}
			fn(&e)
		})
		return err
	}},
	{"ndjson.Reader+Decode", func(data []byte, fn func(*Event)) error {
		r := ndjson.NewReader(&chunkReader{data: data, size: readSize}, ndjson.Options{})
		for f, err := range r.All() {
			if err != nil {
				return err
			}
			var e Event
			if err := f.Decode(&e); err != nil {
				return err
			}
			fn(&e)
		}
		return nil
	}},
	{"ndjson.Reader+Type+Decode", func(data []byte, fn func(*Event)) error {
		r := ndjson.NewReader(&chunkReader{data: data, size: readSize}, ndjson.Options{})
		for f, err := range r.All() {
			if err != nil {
				return err
			}
			if t, ok := f.Type(); !ok || len(t) == 0 {
				continue
			}
			var e Event
			if err := f.Decode(&e); err != nil {
				return err
			}
			fn(&e)
		}
		return nil
	}},
}

func BenchmarkDecode(b *testing.B) {
	data, lines := loadWorkload()
	for _, d := range decoders {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			n := 0
			for b.Loop() {
				if err := d.run(data, func(*Event) { n++ }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
		})
	}
}

// TestDecodersAgree checks that every decoder sees the same lines and the
// same decoded values, so the benchmarks compare equal work.
func TestDecodersAgree(t *testing.T) {
	data, lines := loadWorkload()
	t.Logf("workload: %d lines, %d bytes (%.0f bytes/line)", lines, len(data), float64(len(data))/float64(lines))
	var want digest
	for i, d := range decoders {
		var got digest
		if err := d.run(data, got.add); err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if i == 0 {
			want = got
			if got.Lines != lines || got.Deltas == 0 || got.ToolResults == 0 || got.Messages == 0 {
				t.Fatalf("%s: implausible digest %+v", d.name, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: %+v, want %+v", d.name, got, want)
		}
	}
}

// TestFramingAllocs pins zero allocations per line in steady state.
func TestFramingAllocs(t *testing.T) {
	data, lines := loadWorkload()
	src := &chunkReader{}
	r := ndjson.NewReader(src, ndjson.Options{})
	run := func() {
		*src = chunkReader{data: data, size: readSize}
		r.Reset(src, ndjson.Options{})
		for {
			f, err := r.Next()
			if err != nil {
				break
			}
			f.Type()
		}
	}
	run() // grow the buffer to the longest line
	if a := testing.AllocsPerRun(3, run); a > 0 {
		t.Fatalf("%.0f allocations for %d lines, want 0", a, lines)
	}
}
