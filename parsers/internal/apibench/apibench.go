// Package apibench holds what the benchmarks of the model-API parsers
// share: the ratio benchmark against the sse + encoding/json baseline. It
// is imported by _test files only.
package apibench

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/sse"
)

// Baseline is one run of the baseline the issues name: r, reset onto src,
// frames the stream and each event's data is decoded into a
// map[string]any by encoding/json (an OpenAI "data: [DONE]" is not JSON
// and is skipped). It fails tb on a framing or decoding error, or when the
// stream has no event, and returns the number of events read.
func Baseline(tb testing.TB, r *sse.Reader, src io.Reader) int {
	tb.Helper()
	r.Reset(src, sse.Options{})
	n := 0
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(f.Data, &m); err != nil && string(f.Data) != "[DONE]" {
			tb.Fatal(err)
		}
		n++
	}
	if n == 0 {
		tb.Fatal("baseline: no events")
	}
	return n
}

// Ratio is the model-API parsers' BenchmarkRatio: within every iteration
// it runs parse over stream and then Baseline, each timed in process CPU,
// so that a machine whose load drifts during the run slows both alike. It
// reports both throughputs (MB per CPU-second), their ratio (the issues
// ask for at least 3x) and the parser's allocations per event (events is
// the stream's event count). parse fails the benchmark with its own
// message when a run is wrong.
func Ratio(b *testing.B, stream []byte, events int, parse func(r io.Reader)) {
	b.Helper()
	b.SetBytes(int64(len(stream)))
	src := bytes.NewReader(stream)
	r := sse.NewReader(nil, sse.Options{})
	var parser, baseline time.Duration
	var allocs uint64
	var ms runtime.MemStats
	for b.Loop() {
		runtime.ReadMemStats(&ms)
		a0 := ms.Mallocs
		c0 := parsertest.CPUTime()
		src.Reset(stream)
		parse(src)
		c1 := parsertest.CPUTime()
		runtime.ReadMemStats(&ms)
		allocs += ms.Mallocs - a0
		c2 := parsertest.CPUTime()
		src.Reset(stream)
		Baseline(b, r, src)
		c3 := parsertest.CPUTime()
		parser, baseline = parser+c1-c0, baseline+c3-c2
	}
	if parser > 0 && baseline > 0 {
		n := float64(len(stream)) * float64(b.N) / 1e6
		b.ReportMetric(n/parser.Seconds(), "parser-cpuMB/s")
		b.ReportMetric(n/baseline.Seconds(), "baseline-cpuMB/s")
		b.ReportMetric(baseline.Seconds()/parser.Seconds(), "x-baseline")
		if events > 0 {
			b.ReportMetric(float64(allocs)/float64(b.N)/float64(events), "allocs/event")
		}
	}
}
