package codex

import (
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/ndjson"
)

// The baselines bound what BenchmarkParse can reach on the mixed stream:
// framing with the tee alone, and framing with the item decode alone.

func BenchmarkBaselineFraming(b *testing.B) {
	stream, _ := syntheticStream(4000, false)
	b.SetBytes(int64(len(stream)))
	c0 := cpuTime()
	for b.Loop() {
		var raw strings.Builder
		raw.Grow(len(stream))
		r := ndjson.NewReader(strings.NewReader(stream), ndjson.Options{Tee: &raw})
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			f.Type()
		}
	}
	b.ReportMetric(float64(len(stream))*float64(b.N)/(cpuTime()-c0).Seconds()/1e6, "cpuMB/s")
}

func BenchmarkBaselineDecode(b *testing.B) {
	stream, _ := syntheticStream(4000, false)
	b.SetBytes(int64(len(stream)))
	c0 := cpuTime()
	for b.Loop() {
		r := ndjson.NewReader(strings.NewReader(stream), ndjson.Options{})
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			var ev wireItemEvent
			f.Decode(&ev)
		}
	}
	b.ReportMetric(float64(len(stream))*float64(b.N)/(cpuTime()-c0).Seconds()/1e6, "cpuMB/s")
}
