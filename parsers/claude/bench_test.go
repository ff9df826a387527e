package claude

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/google/go-cmp/cmp"
)

// countSink counts what it receives and keeps nothing: the benchmark
// measures framing and parsing, not a host's storage.
type countSink struct{ events, payloads int }

func (s *countSink) Emit(driver.RunEvent) error            { s.events++; return nil }
func (s *countSink) EmitStream(driver.StreamPayload) error { s.payloads++; return nil }

const benchSID = "41287ef0-450f-4d7a-8ff2-242aa812f532"

// partialStream builds a --include-partial-messages stream shaped like the
// 2.1.328 recordings: per message a message_start, a text block of
// `deltas` text_delta events, its snapshot, a tool_use block streamed by
// input_json_delta, its snapshot, the stops, a tool result; then a result.
func partialStream(messages, deltas int) (stream []byte, lines int) {
	var b strings.Builder
	line := func(s string) {
		b.WriteString(s)
		b.WriteByte('\n')
		lines++
	}
	env := `,"parent_tool_use_id":null,"session_id":"` + benchSID + `","uuid":"14c64b53-70c9-4b34-93c5-27ac615e1f47"}`
	line(`{"type":"system","subtype":"init","cwd":"/w","session_id":"` + benchSID + `","tools":["Bash"],"model":"claude-opus-5-5","claude_code_version":"2.1.328","uuid":"99724e0b-d1e8-4b06-a504-11672c2be669"}`)
	for m := range messages {
		id := "msg_bench_" + strconv.Itoa(m)
		tool := "toolu_bench_" + strconv.Itoa(m)
		line(`{"type":"stream_event","event":{"type":"message_start","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-opus-5-5","content":[],"stop_reason":null,"usage":{"input_tokens":120,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}` + env)
		line(`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + env)
		var text strings.Builder
		for d := range deltas {
			w := "word" + strconv.Itoa(d) + " "
			text.WriteString(w)
			line(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + w + `"}}` + env)
		}
		line(`{"type":"assistant","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"` + text.String() + `"}],"stop_reason":null,"usage":{"input_tokens":120,"output_tokens":1}}` + env)
		line(`{"type":"stream_event","event":{"type":"content_block_stop","index":0}` + env)
		line(`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"` + tool + `","name":"Bash","input":{}}}` + env)
		for _, frag := range []string{``, `{\"command\":\"echo `, `hello\",\"description\"`, `:\"Print\"}`} {
			line(`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"` + frag + `"}}` + env)
		}
		line(`{"type":"assistant","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"` + tool + `","name":"Bash","input":{"command":"echo hello","description":"Print"}}],"stop_reason":null,"usage":{"input_tokens":120,"output_tokens":1}}` + env)
		line(`{"type":"stream_event","event":{"type":"content_block_stop","index":1}` + env)
		line(`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":60}}` + env)
		line(`{"type":"stream_event","event":{"type":"message_stop"}` + env)
		line(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"` + tool + `","type":"tool_result","content":"hello","is_error":false}]}` + env)
	}
	line(`{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"duration_api_ms":9,"num_turns":1,"result":"done","session_id":"` + benchSID + `","total_cost_usd":0.1,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":25},"uuid":"894a597c-b4ec-4baf-8a0e-6809b77f00b0"}`)
	return []byte(b.String()), lines
}

// BenchmarkParsePartial: ndjson framing + parser + a counting sink over a
// synthetic partial-messages stream, streaming on.
func BenchmarkParsePartial(b *testing.B) {
	stream, lines := partialStream(200, 50)
	opts := Options{Streaming: true, PartialMessages: true}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	rd := ndjson.NewReader(nil, ndjson.Options{})
	src := bytes.NewReader(stream)
	cpu0 := parsertest.CPUTime()
	for b.Loop() {
		src.Reset(stream)
		rd.Reset(src, ndjson.Options{})
		p := New(&countSink{}, opts)
		parsertest.FeedAll(b, rd.Next, p.Feed)
		resp, err := p.Finish(Outcome{})
		if err != nil || resp.Output != "done" || !resp.Checkpoint.Valid {
			b.Fatalf("bad run: %v %+v", err, resp.Checkpoint)
		}
	}
	b.ReportMetric(float64(lines), "lines/op")
	if cpu := parsertest.CPUTime() - cpu0; cpu > 0 {
		// Throughput per CPU second of the whole process (GC included):
		// the figure that does not depend on the machine's other load.
		b.ReportMetric(float64(len(stream))*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// TestBenchStreamIsValid keeps the benchmark's input honest: it is a
// conforming stream with the expected deltas.
func TestBenchStreamIsValid(t *testing.T) {
	stream, _ := partialStream(3, 5)
	c := tcase{name: "bench", stdout: stream, opts: Options{Streaming: true, PartialMessages: true}}
	r := replay(t, c, chunkers[0])
	check(t, c, r)
	n := parsertest.Counts(r.Payloads)
	deltas, args := n[driver.StreamTextContent], n[driver.StreamToolCallArgs]
	if deltas != 15 || args != 9 || r.Response.Output != "done" || !r.Response.Checkpoint.Valid {
		t.Fatalf("deltas %d args %d output %q checkpoint %+v", deltas, args, r.Response.Output, r.Response.Checkpoint)
	}
}

// TestDeltaAllocs pins the hot path: a text_delta line costs one
// allocation (the delta string the payload carries) plus the amortized
// growth of the block's text buffer.
func TestDeltaAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	p := New(&countSink{}, Options{Streaming: true, PartialMessages: true})
	for _, f := range frames(stream(initL(),
		evL("", `{"type":"message_start","message":{"id":"m1"}}`),
		evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))) {
		if err := p.Feed(f); err != nil {
			t.Fatal(err)
		}
	}
	delta := frames(stream(evL("", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hello "}}`)))[0]
	allocs := testing.AllocsPerRun(1000, func() {
		if err := p.Feed(delta); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.2f allocations per text_delta line", allocs)
	if allocs > 1.1 {
		t.Errorf("%.2f allocations per text_delta line, want at most 1 (+ amortized buffer growth)", allocs)
	}
}

// TestFastPathAgrees: the stream_event fast path gives what the general
// path (Frame.Type, last exact "type" wins) gives, also for lines with
// duplicate or case-variant "type" members. A leading space turns the fast
// path off.
func TestFastPathAgrees(t *testing.T) {
	lines := []string{initL(),
		evL("", `{"type":"message_start","message":{"id":"m1"}}`),
		evL("", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}},"Type":"result","session_id":"` + sid + `"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}},"type":"hologram","session_id":"` + sid + `"}`,
		`{"type":"stream_event","type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"c"}},"session_id":"` + sid + `"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"d"}},"typ\u0065":"stream_event","session_id":"` + sid + `"}`,
		okL("x"),
	}
	spaced := make([]string, len(lines))
	for i, l := range lines {
		spaced[i] = " " + l
	}
	fast := do(t, Options{PartialMessages: true}, Outcome{}, lines...)
	slow := do(t, Options{PartialMessages: true}, Outcome{}, spaced...)
	if d := cmp.Diff(slow.Payloads, fast.Payloads); d != "" {
		t.Errorf("payloads differ (-general +fast):\n%s", d)
	}
	if d := cmp.Diff(slow.Items, fast.Items); d != "" {
		t.Errorf("items differ (-general +fast):\n%s", d)
	}
	var deltas []string
	for _, p := range fast.Payloads {
		if p.Kind == driver.StreamTextContent {
			deltas = append(deltas, p.Delta)
		}
	}
	if strings.Join(deltas, "") != "acd" {
		t.Errorf("deltas %q: the line whose last type is hologram is not a stream_event", deltas)
	}
}
