package gemini

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/internal/apibench"
	"github.com/agentwire/agentwire/sse"
)

// discardSink counts what it is given and keeps nothing, so the benchmark
// measures framing and parsing.
type discardSink struct{ events, payloads int }

func (s *discardSink) Emit(driver.RunEvent) error            { s.events++; return nil }
func (s *discardSink) EmitStream(driver.StreamPayload) error { s.payloads++; return nil }

// benchStream is a long Gemini 2.5 turn shaped like the real wire (the
// server's `": "` spacing, CRLF framing, usageMetadata on every event):
// per round two thought-summary events, 20 answer-text events of ~200
// bytes, a function call with a thoughtSignature, and a code execution
// pair; the last event carries finishReason and the full usage.
func benchStream(rounds int) (string, int) {
	var b strings.Builder
	sig := strings.Repeat("CmIBvj72+4pAeKnGzc+2rNwOgLyF3mo/fgOg3Nblgmuo9Mi8ln6O1N7n44cra26xGGff6ytv5z", 6)
	text := "The first 50 prime numbers add up to 5117; I checked it with a short program, \\\"quoted\\\" and caf\\u00e9 \\u003cok\\u003e. "
	n := 0
	ev := func(parts string, tail string) {
		fmt.Fprintf(&b, `data: {"candidates": [{"content": {"parts": [%s],"role": "model"}%s,"index": 0}],"usageMetadata": {"promptTokenCount": 1250,"totalTokenCount": %d,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 1250}],"thoughtsTokenCount": 240},"modelVersion": "gemini-2.5-flash","responseId": "ZiS5ae3fFoSAkdUPnfrxqQU"}`+"\r\n\r\n", parts, tail, 1490+n)
		n++
	}
	for i := range rounds {
		ev(`{"text": "**Planning the computation**\n\nI will write a program that lists primes and sums them.","thought": true}`, "")
		ev(`{"text": "**Checking the result**\n\nThe program's output confirms the sum.","thought": true}`, "")
		for range 20 {
			ev(`{"text": "`+text+`"}`, "")
		}
		ev(fmt.Sprintf(`{"functionCall": {"name": "lookup_%d","args": {"query": "primes below 230","limit": 50}},"thoughtSignature": "%s"}`, i, sig), "")
		ev(`{"executableCode": {"language": "PYTHON","code": "print(sum(p for p in range(2, 230) if all(p % d for d in range(2, p))))\n"}}`, "")
		ev(`{"codeExecutionResult": {"outcome": "OUTCOME_OK","output": "5117\n"}}`, "")
	}
	ev(`{"text": "Done."}`, `,"finishReason": "STOP"`)
	return b.String(), n
}

// BenchmarkParse is framing + tee + parse + sink over the long stream,
// streaming on, beside the baseline the issue names (the sse reader and
// encoding/json into map[string]any per event), interleaved in one run.
// It reports MB per CPU-second (cpuMB/s) and allocations per event.
func BenchmarkParse(b *testing.B) {
	stream, events := benchStream(150)
	b.Run("parser", func(b *testing.B) {
		benchLoop(b, stream, events, func() {
			resp, err := Parse(200, "text/event-stream", strings.NewReader(stream), &discardSink{}, Options{Streaming: true})
			if err != nil || resp.Failure != nil {
				b.Fatalf("err %v failure %+v", err, resp.Failure)
			}
		})
	})
	b.Run("baseline-sse+encoding-json-map", func(b *testing.B) {
		src := strings.NewReader(stream)
		r := sse.NewReader(nil, sse.Options{})
		benchLoop(b, stream, events, func() {
			src.Reset(stream)
			apibench.Baseline(b, r, src)
		})
	})
}

// BenchmarkRatio alternates the parser and the baseline within every
// iteration (apibench.Ratio).
func BenchmarkRatio(b *testing.B) {
	stream, events := benchStream(150)
	apibench.Ratio(b, []byte(stream), events, func(r io.Reader) {
		resp, err := Parse(200, "text/event-stream", r, &discardSink{}, Options{Streaming: true})
		if err != nil || resp.Failure != nil {
			b.Fatalf("err %v failure %+v", err, resp.Failure)
		}
	})
}

func benchLoop(b *testing.B, stream string, events int, fn func()) {
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		fn()
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(stream))*float64(b.N)/cpu.Seconds()/1e6, "cpuMB/s")
	}
	b.ReportMetric(float64(events), "events/op")
}
