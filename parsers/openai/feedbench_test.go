package openai

import (
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/sse"
)

func framesOf(s string) []sse.Frame {
	var out []sse.Frame
	r := sse.NewReader(strings.NewReader(s), sse.Options{})
	for {
		f, err := r.Next()
		if err == io.EOF {
			return out
		}
		out = append(out, f.Clone())
	}
}

func BenchmarkStages(b *testing.B) {
	for _, tc := range []struct {
		name   string
		stream string
	}{{"chat", chatStream()}, {"responses", responsesStream()}} {
		frames := framesOf(tc.stream)
		b.Run(tc.name+"/check", func(b *testing.B) {
			b.SetBytes(int64(len(tc.stream)))
			c0 := parsertest.CPUTime()
			for b.Loop() {
				for _, f := range frames {
					_ = jsonguard.Check(f.Data, 0)
				}
			}
			reportCPU(b, len(tc.stream), c0)
		})
		b.Run(tc.name+"/feed", func(b *testing.B) {
			b.SetBytes(int64(len(tc.stream)))
			c0 := parsertest.CPUTime()
			for b.Loop() {
				p := New(&discardSink{}, Options{Streaming: true})
				for _, f := range frames {
					_ = p.Feed(f)
				}
				_, _ = p.Finish(Outcome{})
			}
			reportCPU(b, len(tc.stream), c0)
		})
		b.Run(tc.name+"/sse", func(b *testing.B) {
			b.SetBytes(int64(len(tc.stream)))
			c0 := parsertest.CPUTime()
			for b.Loop() {
				var raw strings.Builder
				raw.Grow(len(tc.stream))
				r := sse.NewReader(strings.NewReader(tc.stream), sse.Options{Tee: &raw})
				for {
					if _, err := r.Next(); err == io.EOF {
						break
					}
				}
			}
			reportCPU(b, len(tc.stream), c0)
		})
	}
}
