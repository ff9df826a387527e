package openai

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/parsers/internal/apibench"
	"github.com/agentwire/agentwire/sse"
)

// discardSink counts what it is given and keeps nothing, so that the
// benchmarks measure framing and parsing.
type discardSink struct{ events, payloads int }

func (s *discardSink) Emit(driver.RunEvent) error            { s.events++; return nil }
func (s *discardSink) EmitStream(driver.StreamPayload) error { s.payloads++; return nil }

// benchWords are the deltas of the synthetic streams: short tokens with
// the occasional escape and non-ASCII letter, as models stream them.
var benchWords = []string{"The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".", "\\n\\n", " caf\u00e9", " \\\"quoted\\\"", " 42", ","}

// chatStream is a long Chat Completions stream shaped like OpenAI's:
// a role chunk, 2,000 reasoning deltas (reasoning_content), 16,000 text
// deltas, three parallel tool calls of 600 argument fragments each, the
// finish chunk, the usage chunk and [DONE]; every chunk carries the
// envelope (id, object, created, model, fingerprint, obfuscation).
func chatStream() string {
	var b strings.Builder
	env := `"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877"`
	chunk := func(delta, finish string) {
		fmt.Fprintf(&b, `data: {%s,"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null,"obfuscation":"Qup1BsQ3"}`+"\n\n", env, delta, finish)
	}
	chunk(`{"role":"assistant","content":"","refusal":null}`, "null")
	for i := range 2000 {
		chunk(`{"reasoning_content":"`+benchWords[i%len(benchWords)]+`"}`, "null")
	}
	for i := range 16000 {
		chunk(`{"content":"`+benchWords[i%len(benchWords)]+`"}`, "null")
	}
	for c := range 3 {
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"write_file","arguments":""}}]}`, c, c), "null")
		for i := range 600 {
			arg := `{\"path\": \"src/main.go\", \"text\": \"`
			if i > 0 {
				arg = strings.ReplaceAll(benchWords[i%len(benchWords)], `\"`, `'`)
			}
			if i == 599 {
				arg = `\"}`
			}
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"%s"}}]}`, c, arg), "null")
		}
	}
	chunk(`{}`, `"tool_calls"`)
	fmt.Fprintf(&b, `data: {%s,"choices":[],"usage":{"prompt_tokens":1600,"completion_tokens":21000,"total_tokens":22600,"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2000,"audio_tokens":0}},"obfuscation":"h9RiQLL"}`+"\n\n", env)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// responsesStream is the same answer as a Responses stream: created,
// in_progress, a reasoning item with 2,000 summary deltas, a message with
// 16,000 output_text deltas, three function calls of 600 argument deltas
// each, and response.completed with the whole output and usage. Events
// carry event: lines, sequence_number and obfuscation, as OpenAI sends
// them.
func responsesStream() string {
	var b strings.Builder
	seq := 0
	ev := func(typ, body string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, body)
		seq++
	}
	resp := func(status, output, usage string) string {
		return fmt.Sprintf(`"response":{"id":"resp_0cc96ac817fdc57e00693337060a408198b92bf1f99cf1b8ec","object":"response","created_at":1764964102,"status":%q,"background":false,"error":null,"incomplete_details":null,"model":"gpt-5-mini-2025-08-07","output":[%s],"parallel_tool_calls":true,"usage":%s}`, status, output, usage)
	}
	ev("response.created", resp("in_progress", "", "null"))
	ev("response.in_progress", resp("in_progress", "", "null"))
	rs := "rs_0cc96ac817fdc57e0069333706f5748198ad6f9d56c74ba528"
	ev("response.output_item.added", `"output_index":0,"item":{"id":"`+rs+`","type":"reasoning","summary":[]}`)
	ev("response.reasoning_summary_part.added", `"item_id":"`+rs+`","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`)
	var summary strings.Builder
	for i := range 2000 {
		w := benchWords[i%len(benchWords)]
		summary.WriteString(w)
		ev("response.reasoning_summary_text.delta", `"item_id":"`+rs+`","output_index":0,"summary_index":0,"delta":"`+w+`","obfuscation":"wsWQt8Nr5nwWBf7"`)
	}
	ev("response.reasoning_summary_text.done", `"item_id":"`+rs+`","output_index":0,"summary_index":0,"text":"`+summary.String()+`"`)
	ev("response.output_item.done", `"output_index":0,"item":{"id":"`+rs+`","type":"reasoning","summary":[{"type":"summary_text","text":"`+summary.String()+`"}]}`)
	msg := "msg_0cc96ac817fdc57e006933373b41c08198a4bd2da2a1b4a7c1"
	ev("response.output_item.added", `"output_index":1,"item":{"id":"`+msg+`","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	ev("response.content_part.added", `"item_id":"`+msg+`","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`)
	var text strings.Builder
	for i := range 16000 {
		w := benchWords[i%len(benchWords)]
		text.WriteString(w)
		ev("response.output_text.delta", `"item_id":"`+msg+`","output_index":1,"content_index":0,"delta":"`+w+`","logprobs":[],"obfuscation":"LHvs3Ds"`)
	}
	ev("response.output_text.done", `"item_id":"`+msg+`","output_index":1,"content_index":0,"text":"`+text.String()+`","logprobs":[]`)
	msgItem := `{"id":"` + msg + `","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"` + text.String() + `"}],"role":"assistant"}`
	ev("response.output_item.done", `"output_index":1,"item":`+msgItem)
	output := []string{`{"id":"` + rs + `","type":"reasoning","summary":[{"type":"summary_text","text":"` + summary.String() + `"}]}`, msgItem}
	for c := range 3 {
		fc := fmt.Sprintf("fc_0cc96ac817fdc57e00693337%d", c)
		ev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":"%s","type":"function_call","status":"in_progress","arguments":"","call_id":"call_%d","name":"write_file"}`, 2+c, fc, c))
		var args strings.Builder
		for i := range 600 {
			arg := `{\"path\": \"src/main.go\", \"text\": \"`
			if i > 0 {
				arg = strings.ReplaceAll(benchWords[i%len(benchWords)], `\"`, `'`)
			}
			if i == 599 {
				arg = `\"}`
			}
			args.WriteString(arg)
			ev("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":"%s","output_index":%d,"delta":"%s","obfuscation":"4SVQhl9Je0GGg6"`, fc, 2+c, arg))
		}
		ev("response.function_call_arguments.done", fmt.Sprintf(`"item_id":"%s","output_index":%d,"arguments":"%s"`, fc, 2+c, args.String()))
		item := fmt.Sprintf(`{"id":"%s","type":"function_call","status":"completed","arguments":"%s","call_id":"call_%d","name":"write_file"}`, fc, args.String(), c)
		ev("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, 2+c, item))
		output = append(output, item)
	}
	ev("response.completed", resp("completed", strings.Join(output, ","), `{"input_tokens":1600,"input_tokens_details":{"cached_tokens":1024},"output_tokens":21000,"output_tokens_details":{"reasoning_tokens":2000},"total_tokens":22600}`))
	return b.String()
}

// BenchmarkParse is the end-to-end cost (framing with the tee, parsing,
// emitting to a sink that keeps nothing, streaming on) of each format,
// beside the baseline the issue names: the same bytes framed by the sse
// reader, every event decoded into a map[string]any by encoding/json. The
// sub-benchmarks of one run are comparable; cpuMB/s is bytes per CPU
// second of the process (GC included), so a noisy neighbour does not
// count.
func BenchmarkParse(b *testing.B) {
	for _, tc := range []struct {
		name   string
		stream string
	}{{"chat", chatStream()}, {"responses", responsesStream()}} {
		b.Run(tc.name+"/parse", func(b *testing.B) { benchParse(b, tc.stream) })
		b.Run(tc.name+"/baseline", func(b *testing.B) { benchBaseline(b, tc.stream) })
	}
}

// BenchmarkRatio alternates the parser and the baseline of BenchmarkParse
// within every iteration (apibench.Ratio), per format.
func BenchmarkRatio(b *testing.B) {
	for _, tc := range []struct {
		name   string
		stream string
	}{{"chat", chatStream()}, {"responses", responsesStream()}} {
		b.Run(tc.name, func(b *testing.B) {
			apibench.Ratio(b, []byte(tc.stream), len(framesOf(tc.stream)), func(r io.Reader) {
				resp, err := Parse(200, "text/event-stream", r, &discardSink{}, Options{Streaming: true})
				if err != nil || resp.Failure != nil || resp.Finish == nil {
					b.Fatalf("err %v failure %+v", err, resp.Failure)
				}
			})
		})
	}
}

func benchParse(b *testing.B, stream string) {
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	c0 := parsertest.CPUTime()
	for b.Loop() {
		sink := &discardSink{}
		resp, err := Parse(200, "text/event-stream", strings.NewReader(stream), sink, Options{Streaming: true})
		if err != nil || resp.Failure != nil || resp.Finish == nil {
			b.Fatalf("err %v failure %+v", err, resp.Failure)
		}
	}
	reportCPU(b, len(stream), c0)
}

func benchBaseline(b *testing.B, stream string) {
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	src := strings.NewReader(stream)
	r := sse.NewReader(nil, sse.Options{})
	c0 := parsertest.CPUTime()
	for b.Loop() {
		src.Reset(stream)
		apibench.Baseline(b, r, src)
	}
	reportCPU(b, len(stream), c0)
}

func reportCPU(b *testing.B, n int, c0 interface{ Seconds() float64 }) {
	if d := parsertest.CPUTime().Seconds() - c0.Seconds(); d > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/d/1e6, "cpuMB/s")
	}
}
