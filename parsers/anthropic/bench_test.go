package anthropic

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/parsers/internal/apibench"
	"github.com/agentwire/agentwire/sse"
)

// countSink counts what it receives and keeps nothing: the benchmark
// measures framing and parsing, not a host's storage.
type countSink struct{ events, payloads int }

func (s *countSink) Emit(driver.RunEvent) error            { s.events++; return nil }
func (s *countSink) EmitStream(driver.StreamPayload) error { s.payloads++; return nil }

// longStream is one long response of the API's own byte layout: rounds of
// a text block streamed in `deltas` text_delta events (with a ping now and
// then) and a tool_use block streamed in argument fragments, then the
// message_delta and message_stop.
func longStream(rounds, deltas int) []byte {
	var b strings.Builder
	ev := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
	ev("message_start", `{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01BenchBenchBenchBench","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":394,"cache_creation_input_tokens":0,"cache_read_input_tokens":2048,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}`)
	idx := 0
	for r := range rounds {
		i := strconv.Itoa(idx)
		ev("content_block_start", `{"type":"content_block_start","index":`+i+`,"content_block":{"type":"text","text":""}}`)
		for d := range deltas {
			ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"text_delta","text":" word`+strconv.Itoa(d)+` and \"more\" text"}}`)
			if d%50 == 49 {
				ev("ping", `{"type": "ping"}`)
			}
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":`+i+`}`)
		idx++
		i = strconv.Itoa(idx)
		ev("content_block_start", `{"type":"content_block_start","index":`+i+`,"content_block":{"type":"tool_use","id":"toolu_01Bench`+strconv.Itoa(r)+`","name":"get_weather","input":{}}}`)
		for _, frag := range []string{``, `{\"city\": \"Sa`, `n Francisco, CA\", `, `\"unit\": \"fahr`, `enheit\"}`} {
			ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"input_json_delta","partial_json":"`+frag+`"}}`)
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":`+i+`}`)
		idx++
	}
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9000}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	return []byte(b.String())
}

// BenchmarkParse: the whole of Parse (sse framing with the tee, the
// parser, a counting sink, streaming on) against the baseline of framing
// the same bytes with the sse Reader and decoding every event into a
// map[string]any with encoding/json. The two run interleaved under
// -count; compare them in MB per CPU-second (MB/cpu-s), which the load of
// a shared machine disturbs far less than wall time.
func BenchmarkParse(b *testing.B) {
	stream := longStream(40, 250)
	cpuRate := func(b *testing.B, f func()) {
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		cpu0 := parsertest.CPUTime()
		for b.Loop() {
			f()
		}
		if cpu := parsertest.CPUTime() - cpu0; cpu > 0 {
			b.ReportMetric(float64(len(stream))*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
		}
	}
	b.Run("agentwire", func(b *testing.B) {
		src := bytes.NewReader(stream)
		cpuRate(b, func() {
			src.Reset(stream)
			resp, err := Parse(src, &countSink{}, Options{Streaming: true}, Outcome{})
			if err != nil || resp.Finish == nil || resp.Finish.Reason != driver.FinishToolCalls {
				b.Fatalf("bad run: %v %+v", err, resp.Failure)
			}
		})
	})
	b.Run("baseline-sse-encoding-json-map", func(b *testing.B) {
		src := bytes.NewReader(stream)
		r := sse.NewReader(nil, sse.Options{})
		cpuRate(b, func() {
			src.Reset(stream)
			apibench.Baseline(b, r, src)
		})
	})
}

// BenchmarkRatio alternates the parser and the baseline of BenchmarkParse
// within every iteration (apibench.Ratio).
func BenchmarkRatio(b *testing.B) {
	stream := longStream(40, 250)
	apibench.Ratio(b, stream, bytes.Count(stream, []byte("\n\n")), func(r io.Reader) {
		resp, err := Parse(r, &countSink{}, Options{Streaming: true}, Outcome{})
		if err != nil || resp.Finish == nil || resp.Finish.Reason != driver.FinishToolCalls {
			b.Fatalf("bad run: %v %+v", err, resp.Failure)
		}
	})
}

// TestBenchStreamIsValid keeps the benchmark's input honest: a conforming
// stream with the expected deltas and calls.
func TestBenchStreamIsValid(t *testing.T) {
	r := parseAll(t, string(longStream(3, 60)), Options{})
	n := parsertest.Counts(r.Payloads)
	deltas, args := n[driver.StreamTextContent], n[driver.StreamToolCallArgs]
	if deltas != 180 || args != 12 || r.Response.Finish.Reason != driver.FinishToolCalls || r.Response.Metadata[MetaMalformed] != "" {
		t.Fatalf("deltas %d args %d finish %+v meta %v", deltas, args, r.Response.Finish, r.Response.Metadata)
	}
}
