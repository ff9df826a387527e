package ndjson

import (
	"errors"
	"io"
	"runtime"
	"testing"
)

// hugeLineReader generates, without storing it, `{}\n` + a line of n bytes
// + `\n{"type":"after"}\n`. It samples the heap every sampleEvery bytes.
type hugeLineReader struct {
	n, done     int64
	pattern     []byte
	stage       int
	sinceSample int64
	sampleEvery int64
	peakInuse   uint64
	tail        []byte
}

func (g *hugeLineReader) Read(p []byte) (int, error) {
	switch g.stage {
	case 0:
		g.stage = 1
		return copy(p, "{}\n"), nil
	case 1:
		if g.done == g.n {
			g.stage = 2
			g.tail = []byte("\n{\"type\":\"after\"}\n")
			break
		}
		k := int(min(int64(len(p)), g.n-g.done))
		for i := 0; i < k; {
			i += copy(p[i:k], g.pattern)
		}
		g.done += int64(k)
		if g.sinceSample += int64(k); g.sinceSample >= g.sampleEvery {
			g.sinceSample = 0
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			g.peakInuse = max(g.peakInuse, ms.HeapInuse)
		}
		return k, nil
	}
	if len(g.tail) == 0 {
		return 0, io.EOF
	}
	k := copy(p, g.tail)
	g.tail = g.tail[k:]
	return k, nil
}

// TestHugeLineMemory streams a 1 GiB line through a Reader limited to
// 8 MiB and checks that the line is skipped with a positioned error, the
// next line is read, and memory stays under twice the limit.
func TestHugeLineMemory(t *testing.T) {
	const limit = 8 << 20
	const size = 1 << 30
	pattern := make([]byte, 64<<10)
	for i := range pattern {
		pattern[i] = "{\"a\":\"xyz\"}["[i%12]
	}
	g := &hugeLineReader{n: size, pattern: pattern, sampleEvery: 64 << 20}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	r := NewReader(g, Options{MaxLineSize: limit})
	var got []string
	for f, err := range r.All() {
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || !errors.Is(err, ErrLineTooLong) || le.Line != 2 || le.Offset != 3 || le.Len != size+1 {
				t.Fatalf("err = %v (%+v), want ErrLineTooLong for line 2 at offset 3 with %d bytes", err, le, size+1)
			}
			got = append(got, "too long")
			continue
		}
		got = append(got, string(f.Data))
	}

	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	peak := max(g.peakInuse, after.HeapInuse)
	t.Logf("1 GiB line, limit %d MiB: allocated %.1f MiB in total, heap in use peaked at %.1f MiB (%.1f MiB before)",
		limit>>20, float64(alloc)/(1<<20), float64(peak)/(1<<20), float64(before.HeapInuse)/(1<<20))
	if alloc > 2*limit {
		t.Errorf("allocated %d bytes for a 1 GiB line, want < %d (twice the limit)", alloc, 2*limit)
	}
	if peak > before.HeapInuse+2*limit {
		t.Errorf("heap in use peaked at %d bytes, want < %d + %d", peak, before.HeapInuse, 2*limit)
	}
	if len(got) != 3 || got[0] != "{}" || got[1] != "too long" || got[2] != `{"type":"after"}` {
		t.Fatalf("results = %q", got)
	}
}
