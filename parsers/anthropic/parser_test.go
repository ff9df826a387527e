package anthropic

import (
	stdcmp "cmp"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/parsertest"
)

// run parses input delivered by r and returns the comparable result and
// every validator finding (CheckStream, CheckFinish, CheckRun,
// CheckResponse): the validators are the oracle of every test here.
func run(t testing.TB, r io.Reader, opts Options, out Outcome) (parsertest.Result, adaptertest.Violations) {
	t.Helper()
	opts.Streaming = true
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(r, sink, opts, out)
	res := parsertest.Result{Capability: Capability, Payloads: sink.Payloads, Items: sink.Items(), Response: resp}
	if err != nil {
		res.Err = err.Error()
	}
	return res, sink.Check(true, Capability, resp, err, nil)
}

// parseAll parses s under every chunking, fails on any violation or on a
// result that differs from the whole delivery's, and returns that result.
func parseAll(t *testing.T, s string, opts Options) parsertest.Result {
	t.Helper()
	var first parsertest.Result
	for i, c := range parsertest.Chunkings(uint64(len(s))) {
		res, vs := run(t, c.Mk(s), opts, Outcome{})
		if len(vs) != 0 {
			t.Fatalf("%s: violations:\n%s", c.Name, vs)
		}
		if i == 0 {
			first = res
			continue
		}
		if d := cmp.Diff(first, res); d != "" {
			t.Fatalf("%s delivery differs from whole (-whole +%s):\n%s", c.Name, c.Name, d)
		}
	}
	return first
}

// sse builds a stream of events whose SSE name is their JSON type.
func events(evs ...string) string {
	var b strings.Builder
	for _, e := range evs {
		typ := "message"
		if rest, ok := strings.CutPrefix(e, `{"type":"`); ok {
			typ = rest[:strings.IndexByte(rest, '"')]
		}
		b.WriteString("event: " + typ + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

const (
	evStart    = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":3,"cache_read_input_tokens":100,"output_tokens":1}}}`
	evText0    = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	evStop0    = `{"type":"content_block_stop","index":0}`
	evStop1    = `{"type":"content_block_stop","index":1}`
	evEndTurn  = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`
	evMsgStop  = `{"type":"message_stop"}`
	evPingJSON = `{"type": "ping"}`
)

func textDelta(i, s string) string {
	return `{"type":"content_block_delta","index":` + i + `,"delta":{"type":"text_delta","text":"` + s + `"}}`
}

func argsDelta(i, s string) string {
	return `{"type":"content_block_delta","index":` + i + `,"delta":{"type":"input_json_delta","partial_json":"` + s + `"}}`
}

func toolStart(i, id, input string) string {
	return `{"type":"content_block_start","index":` + i + `,"content_block":{"type":"tool_use","id":"` + id + `","name":"get_weather","input":` + input + `}}`
}

func kinds(r parsertest.Result) string { return strings.Join(parsertest.Kinds(r.Payloads), " ") }

func TestTextStream(t *testing.T) {
	s := events(evStart, evText0, evPingJSON, textDelta("0", "Hel"), textDelta("0", `lo \"w\u00f6rld\"`), evStop0, evEndTurn, evMsgStop)
	r := parseAll(t, s, Options{})
	want := "run.started text.start:msg_1:0 text.content:msg_1:0 text.content:msg_1:0 text.end:msg_1:0 run.finished"
	if got := kinds(r); got != want {
		t.Errorf("payloads:\n got %s\nwant %s", got, want)
	}
	resp := r.Response
	if resp.Output != `Hello "wörld"` {
		t.Errorf("Output = %q", resp.Output)
	}
	if d := cmp.Diff(&driver.Finish{Reason: driver.FinishStop, Raw: "end_turn"}, resp.Finish); d != "" {
		t.Errorf("Finish (-want +got):\n%s", d)
	}
	// input 10 + cache reads 100 + cache writes 3; output replaced by message_delta.
	if d := cmp.Diff(&driver.Usage{InputTokens: 113, CachedInputTokens: 100, CacheWriteInputTokens: 3, OutputTokens: 7}, resp.Usage); d != "" {
		t.Errorf("Usage (-want +got):\n%s", d)
	}
	if resp.Failure != nil || resp.Model != "claude-test" || resp.RawStreams.Terminal.Event != "message_stop" || resp.RawStreams.Stdout != s {
		t.Errorf("response: %+v", resp)
	}
	if got := strings.Join(parsertest.ItemKinds(resp.Transcript), " "); got != "init assistant result" {
		t.Errorf("items %s", got)
	}
	if last := r.Payloads[len(r.Payloads)-1]; last.Finish == nil || *last.Finish != *resp.Finish || last.Usage == nil {
		t.Errorf("run.finished %+v", last)
	}
}

// TestFastPathAgrees: every event the fast path takes gives the same
// result through the typed decode (reached by reordering members).
func TestFastPathAgrees(t *testing.T) {
	for _, tc := range []struct{ fast, slow string }{
		{textDelta("0", `a\nb\u00e9\ud83d\ude00 \"q\"`), `{"index":0,"type":"content_block_delta","delta":{"text":"a\nb\u00e9\ud83d\ude00 \"q\"","type":"text_delta"}}`},
		{textDelta("0", "plain") + "   ", `{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"plain"}}`},
		{textDelta("0", "bad \xff utf8"), `{"delta":{"type":"text_delta","text":"bad ` + "\xff" + ` utf8"},"type":"content_block_delta","index":0}`},
		{textDelta("0", `lone \ud800 surrogate`), `{"type":"content_block_delta","delta":{"text":"lone \ud800 surrogate","type":"text_delta"},"index":0}`},
	} {
		if _, _, _, ok := fastDelta([]byte(tc.fast), new(fastScratch), new(apistream.Output)); !ok {
			t.Fatalf("fast path did not take %q", tc.fast)
		}
		if _, _, _, ok := fastDelta([]byte(tc.slow), new(fastScratch), new(apistream.Output)); ok {
			t.Fatalf("fast path took %q", tc.slow)
		}
		a := parseAll(t, events(evStart, evText0, tc.fast, evStop0, evEndTurn, evMsgStop), Options{})
		b := parseAll(t, events(evStart, evText0, tc.slow, evStop0, evEndTurn, evMsgStop), Options{})
		if d := cmp.Diff(a.Response.Output, b.Response.Output); d != "" || a.Response.Output == "" {
			t.Errorf("fast and typed decode differ on %q: %s", tc.fast, d)
		}
	}
	for _, s := range []string{
		`{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} x`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x` + "\x01" + `"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x\q"}}`,
		`{"type":"content_block_delta","index":99999999999,"delta":{"type":"text_delta","text":"x"}}`,
	} {
		if _, _, _, ok := fastDelta([]byte(s), new(fastScratch), new(apistream.Output)); ok {
			t.Errorf("fast path took %q", s)
		}
	}
	// The memo of the bytes before the string: each delta read after
	// another with the same scratch reads as it does on its own.
	seq := []string{
		textDelta("0", "a"), textDelta("0", `b"`), textDelta("1", "c"),
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":x"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"x"}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"` + "\x01" + `"}}`,
		textDelta("1", "d"), textDelta("12", "e"), textDelta("1", "f"),
		`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"g"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"h"}}  `,
	}
	memo, memoOut := new(fastScratch), apistream.Output{}
	for _, s := range seq {
		i1, k1, v1, ok1 := fastDelta([]byte(s), memo, &memoOut)
		i2, k2, v2, ok2 := fastDelta([]byte(s), new(fastScratch), new(apistream.Output))
		if i1 != i2 || k1 != k2 || string(v1) != string(v2) || ok1 != ok2 {
			t.Errorf("fastDelta(%q) after the ones before: %d %d %q %v, on its own %d %d %q %v", s, i1, k1, v1, ok1, i2, k2, v2, ok2)
		}
	}
	if _, ok := fastStop([]byte(`{"type":"content_block_stop","index":3   }`)); !ok {
		t.Error("fast stop with padding")
	}
	if _, ok := fastStop([]byte(`{"type":"content_block_stop","index":3,"x":1}`)); ok {
		t.Error("fast stop took an extra member")
	}
	// A ping the fast path takes reads as one the typed decode reads, its
	// event name checked either way.
	for _, name := range []string{"ping", "", "content_block_delta"} {
		for _, fast := range []string{`{"type": "ping"}`, `{"type":"ping"}`} {
			if !fastPing([]byte(fast)) {
				t.Fatalf("fast path did not take %s", fast)
			}
			ping := func(data string) string {
				if name == "" {
					return "data: " + data + "\n\n"
				}
				return "event: " + name + "\ndata: " + data + "\n\n"
			}
			body := func(data string) string {
				return events(evStart, evText0) + ping(data) + events(textDelta("0", "x"), evStop0, evEndTurn, evMsgStop) + ping(data)
			}
			slow := ` {"type" : "ping"}`
			if fastPing([]byte(slow)) {
				t.Fatalf("fast path took %s", slow)
			}
			a, b := parseAll(t, body(fast), Options{}), parseAll(t, body(slow), Options{})
			a.Response.RawStreams, b.Response.RawStreams = nil, nil
			if d := cmp.Diff(b, a); d != "" {
				t.Errorf("fast and typed decode differ on %s named %q (-typed +fast):\n%s", fast, name, d)
			}
		}
	}
}

func TestToolCalls(t *testing.T) {
	s := events(evStart,
		toolStart("0", "toolu_a", "{}"), argsDelta("0", ""), argsDelta("0", `{\"city\": \"Pa`), argsDelta("0", `ris\"}`), evStop0,
		toolStart("1", "toolu_b", "{}"), argsDelta("1", ""), evStop1, // zero arguments
		toolStart("2", "toolu_c", `{"unit":"C"}`), `{"type":"content_block_stop","index":2}`, // no fragment: the block's input
		toolStart("3", "toolu_d", "{}"), argsDelta("3", `{\"city\": `), `{"type":"content_block_stop","index":3}`, // not valid JSON
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}`, evMsgStop)
	r := parseAll(t, s, Options{})
	var calls []driver.TranscriptItem
	for _, it := range r.Response.Transcript {
		if it.Kind == driver.TranscriptToolCall {
			calls = append(calls, it)
		}
	}
	if len(calls) != 4 {
		t.Fatalf("calls %+v", calls)
	}
	wantIn := []any{map[string]any{"city": "Paris"}, map[string]any{}, map[string]any{"unit": "C"}, `{"city": `}
	for i, c := range calls {
		if d := cmp.Diff(wantIn[i], c.Input); d != "" {
			t.Errorf("call %d input (-want +got):\n%s", i, d)
		}
		if c.IsError != (i == 3) || (i == 3) != (c.Metadata["invalid_input"] != "") {
			t.Errorf("call %d: IsError %v meta %v", i, c.IsError, c.Metadata)
		}
	}
	if r.Response.Finish.Reason != driver.FinishToolCalls || r.Response.Output != "" {
		t.Errorf("finish %+v output %q", r.Response.Finish, r.Response.Output)
	}
	var args, starts int
	for _, p := range r.Payloads {
		switch p.Kind {
		case driver.StreamToolCallArgs:
			args++
		case driver.StreamToolCallStart:
			starts++
			if (p.ToolCallID == "toolu_c") != (p.Args != nil) {
				t.Errorf("start %s Args %v", p.ToolCallID, p.Args)
			}
		}
	}
	if args != 3 || starts != 4 {
		t.Errorf("args %d starts %d", args, starts)
	}
}

func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		opts    Options
		code    driver.FailureCode
		errType string
		status  int
		output  string
	}{
		{"error mid-stream", events(evStart, evText0, textDelta("0", "par"), `{"type": "error", "error": {"details": null, "type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}`), Options{HTTPStatus: 200}, driver.FailureProviderError, "overloaded_error", 200, "par"},
		{"error before message_start", events(`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`), Options{}, driver.FailureProviderError, "api_error", 0, ""},
		{"disconnect after a delta", events(evStart, evText0, textDelta("0", "par")), Options{}, driver.FailureIncomplete, "", 0, "par"},
		{"disconnect mid-event", events(evStart, evText0) + "event: content_block_delta\ndata: {\"type\":\"content_bl", Options{}, driver.FailureIncomplete, "", 0, ""},
		{"message_delta but no message_stop", events(evStart, evText0, textDelta("0", "x"), evStop0, evEndTurn), Options{}, driver.FailureIncomplete, "", 0, "x"},
		{"empty body", "", Options{}, driver.FailureIncomplete, "", 0, ""},
		{"http 529 json", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`, Options{HTTPStatus: 529, ContentType: "application/json"}, driver.FailureProviderError, "overloaded_error", 529, ""},
		{"http 400 json, no content type", "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"max_tokens: Field required\"}}\n", Options{HTTPStatus: 400}, driver.FailureProviderError, "invalid_request_error", 400, ""},
		{"http 502 html", "<html>Bad gateway</html>", Options{HTTPStatus: 502, ContentType: "text/html"}, driver.FailureProviderError, "", 502, ""},
		{"200 json document", `{"type":"message","id":"msg_1"}`, Options{HTTPStatus: 200, ContentType: "application/json"}, driver.FailureProviderError, "", 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := parseAll(t, tc.body, tc.opts)
			f := r.Response.Failure
			if f == nil || f.Code != tc.code || f.ErrorType != tc.errType || f.HTTPStatus != tc.status || f.Message == "" {
				t.Fatalf("failure %+v", f)
			}
			// A provider error carries the error finish, whose raw value is
			// the error type; the other failures carry none.
			wantFin := tc.code == driver.FailureProviderError
			if fin := r.Response.Finish; (fin != nil) != wantFin || wantFin && (fin.Reason != driver.FinishError || fin.Raw != stdcmp.Or(tc.errType, "error")) {
				t.Errorf("finish %+v", fin)
			}
			if (tc.code == driver.FailureProviderError) != (r.Response.Usage == nil) && tc.body != "" && tc.opts.HTTPStatus == 0 {
				t.Errorf("usage %+v", r.Response.Usage)
			}
			if r.Response.Output != tc.output {
				t.Errorf("Output %q, want %q", r.Response.Output, tc.output)
			}
			if tc.name == "error mid-stream" && r.Response.Metadata[MetaRequestID] != "req_011CSHoEeqs5C35K2UUqR7Fy" {
				t.Errorf("request id %v", r.Response.Metadata)
			}
			if last := r.Payloads[len(r.Payloads)-1]; last.Kind != driver.StreamRunError || last.Error.Code != tc.code {
				t.Errorf("terminal %+v", last)
			}
		})
	}
}

func TestRestartAndDuplicate(t *testing.T) {
	second := strings.Replace(evStart, "msg_1", "msg_2", 1)
	r := parseAll(t, events(evStart, evStart, evText0, textDelta("0", "first"), second, evText0, textDelta("0", "second"), evStop0, evEndTurn, evMsgStop), Options{})
	if r.Response.Output != "second" || r.Response.Metadata[MetaMessageID] != "msg_2" {
		t.Errorf("output %q meta %v", r.Response.Output, r.Response.Metadata)
	}
	var abandoned, inits int
	for _, it := range r.Response.Transcript {
		if it.Metadata["abandoned"] == "true" && it.Text == "first" {
			abandoned++
		}
		if it.Kind == driver.TranscriptInit {
			inits++
		}
	}
	if abandoned != 1 || inits != 2 {
		t.Errorf("abandoned %d inits %d: %+v", abandoned, inits, r.Response.Transcript)
	}
	if !strings.Contains(kinds(r), "anthropic/message_start") {
		t.Errorf("no restart payload: %s", kinds(r))
	}
}

func TestUnknownAndMalformed(t *testing.T) {
	s := events(evStart, `{"type":"future_event","x":12345678901234567890}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"hologram","beam":1}}`, evStop0,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"implicit"}}`, evStop1,
		"not json", evEndTurn, evMsgStop, textDelta("0", "late")) +
		"event: content_block_delta\ndata: " + evPingJSON + "\n\n" + ": keep-alive\n\n"
	r := parseAll(t, s, Options{})
	k := kinds(r)
	for _, want := range []string{"anthropic/future_event", "anthropic/block.hologram", "anthropic/malformed", "text.start:msg_1:1"} {
		if !strings.Contains(k, want) {
			t.Errorf("no %s in %s", want, k)
		}
	}
	for _, p := range r.Payloads {
		if p.Kind == "anthropic/future_event" && p.Raw["data"] != `{"type":"future_event","x":12345678901234567890}` {
			t.Errorf("unknown event raw %v", p.Raw)
		}
	}
	m := r.Response.Metadata
	// not json, the delta without its start, the late delta; the late ping is ignored.
	if m[MetaMalformed] != "3" || m[MetaUnknown] != "2" || r.Response.Output != "implicit" || r.Response.Failure != nil {
		t.Errorf("meta %v output %q failure %+v", m, r.Response.Output, r.Response.Failure)
	}
}

func TestThinkingAndServerTools(t *testing.T) {
	s := events(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig=="}}`, evStop0,
		`{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
		argsDelta("1", `{\"query\":\"go\"}`), evStop1,
		`{"type":"content_block_start","index":2,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://go.dev"}]}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"citations":[],"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","url":"https://go.dev"}}}`,
		textDelta("3", "Go."), `{"type":"content_block_stop","index":3}`,
		`{"type":"content_block_start","index":4,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}`, `{"type":"content_block_stop","index":4}`,
		`{"type":"message_delta","delta":{"stop_reason":"pause_turn","stop_sequence":null},"usage":{"output_tokens":9,"output_tokens_details":{"thinking_tokens":4},"server_tool_use":{"web_search_requests":1}}}`, evMsgStop)
	r := parseAll(t, s, Options{})
	want := "run.started reasoning.start:msg_1:0 reasoning.content:msg_1:0 reasoning.end:msg_1:0 tool_call.start:srvtoolu_1 tool_call.args:srvtoolu_1 tool_call.end:srvtoolu_1 tool_call.result:srvtoolu_1 text.start:msg_1:3 anthropic/citation:msg_1:3 text.content:msg_1:3 text.end:msg_1:3 anthropic/block.redacted_thinking run.finished"
	if got := kinds(r); got != want {
		t.Errorf("payloads:\n got %s\nwant %s", got, want)
	}
	tr := r.Response.Transcript
	if got := strings.Join(parsertest.ItemKinds(tr), " "); got != "init thinking tool_call tool_result assistant system result" {
		t.Fatalf("items %s", got)
	}
	if tr[1].Data["signature"] != "sig==" || tr[2].Metadata["provider_executed"] != "true" || tr[3].ToolName != "web_search" || tr[4].Data["citations"] == nil {
		t.Errorf("transcript %+v", tr)
	}
	if r.Response.Finish.Reason != driver.FinishOther || r.Response.Usage.ReasoningTokens != 4 || r.Response.Usage.OutputTokens != 9 {
		t.Errorf("finish %+v usage %+v", r.Response.Finish, r.Response.Usage)
	}
}

func TestFinishReasons(t *testing.T) {
	for raw, want := range map[string]driver.FinishReason{
		"end_turn": driver.FinishStop, "stop_sequence": driver.FinishStop, "max_tokens": driver.FinishLength,
		"model_context_window_exceeded": driver.FinishLength, "tool_use": driver.FinishToolCalls, "refusal": driver.FinishContentFilter,
		"pause_turn": driver.FinishOther, "compaction": driver.FinishOther, "brand_new": driver.FinishUnknown, "": driver.FinishUnknown,
	} {
		if got := FinishReason(raw); got != want {
			t.Errorf("FinishReason(%q) = %s, want %s", raw, got, want)
		}
	}
	r := parseAll(t, events(evStart, evText0, textDelta("0", "a"), evStop0, `{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"END"},"usage":{"output_tokens":2}}`, evMsgStop), Options{})
	if r.Response.Finish.Reason != driver.FinishStop || r.Response.Metadata[MetaStopSequence] != "END" {
		t.Errorf("%+v %v", r.Response.Finish, r.Response.Metadata)
	}
	// message_stop without any stop reason: a success whose reason is unknown.
	r = parseAll(t, events(evStart, evMsgStop), Options{})
	if d := cmp.Diff(&driver.Finish{Reason: driver.FinishUnknown}, r.Response.Finish); d != "" || r.Response.Failure != nil {
		t.Errorf("finish (-want +got):\n%s", d)
	}
}

func TestReadErrorIsIncomplete(t *testing.T) {
	boom := errors.New("connection reset")
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(io.MultiReader(strings.NewReader(events(evStart, evText0)), &errReader{boom}), sink, Options{Streaming: true}, Outcome{})
	if !errors.Is(err, boom) || resp.Failure == nil || resp.Failure.Code != driver.FailureIncomplete || !strings.Contains(resp.Failure.Message, "connection reset") {
		t.Fatalf("err %v failure %+v", err, resp.Failure)
	}
	if vs := sink.Check(true, Capability, resp, err, nil); len(vs) != 0 {
		t.Fatal(vs)
	}
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

// publicCaptures are the corpus's public Anthropic captures (their
// provenance is in each case's meta.json).
const publicCaptures = "../../corpus/anthropic-messages/public/*/stdout"

// TestCaptures replays every public capture under every chunking with zero
// violations, and checks what each is about.
func TestCaptures(t *testing.T) {
	files, _ := filepath.Glob(publicCaptures)
	if len(files) < 20 {
		t.Fatalf("only %d captures", len(files))
	}
	want := map[string]struct {
		reason driver.FinishReason
		check  func(t *testing.T, r parsertest.Result)
	}{
		"pydanticai-anthropic-simple-text": {driver.FinishStop, func(t *testing.T, r parsertest.Result) {
			if r.Response.Output != "2" || r.Response.Usage.InputTokens != 20 || r.Response.Usage.OutputTokens != 5 {
				t.Errorf("%q %+v", r.Response.Output, r.Response.Usage)
			}
		}},
		"anthropicgo-tool-runner-streaming":          {driver.FinishToolCalls, nil},
		"anthropicgo-refusal":                        {driver.FinishContentFilter, nil},
		"vercel-anthropic-refusal":                   {driver.FinishContentFilter, nil},
		"pydanticai-anthropic-pause-turn-web-search": {driver.FinishOther, nil},
		"vercel-anthropic-tool-no-args": {driver.FinishToolCalls, func(t *testing.T, r parsertest.Result) {
			for _, it := range r.Response.Transcript {
				if it.Kind == driver.TranscriptToolCall && cmp.Diff(map[string]any{}, it.Input) != "" {
					t.Errorf("input %#v", it.Input)
				}
			}
		}},
		"vercel-anthropic-message-delta-input-tokens": {driver.FinishStop, func(t *testing.T, r parsertest.Result) {
			if r.Response.Usage.InputTokens != 61 || r.Response.Output != "pong" {
				t.Errorf("usage %+v output %q", r.Response.Usage, r.Response.Output)
			}
		}},
		"vercel-anthropic-spliced-message-start": {driver.FinishToolCalls, nil},
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f))
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r := parseAll(t, string(b), Options{HTTPStatus: 200, ContentType: "text/event-stream; charset=utf-8"})
			if r.Response.Failure != nil || r.Response.Finish == nil || r.Response.Metadata[MetaMalformed] != "" {
				t.Fatalf("failure %+v finish %+v meta %v", r.Response.Failure, r.Response.Finish, r.Response.Metadata)
			}
			if w, ok := want[name]; ok {
				if r.Response.Finish.Reason != w.reason {
					t.Errorf("finish %+v, want %s", r.Response.Finish, w.reason)
				}
				if w.check != nil {
					w.check(t, r)
				}
			}
		})
	}
}

// TestInterleavedText: blocks whose deltas interleave each keep their own
// text; Output is every delta in stream order.
func TestInterleavedText(t *testing.T) {
	text1 := `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"B"}}`
	r := parseAll(t, events(evStart, evText0, textDelta("0", "a"), text1, textDelta("0", "c"), textDelta("1", "d"), textDelta("0", "e"), evStop0, evStop1, evEndTurn, evMsgStop), Options{})
	if r.Response.Output != "aBcde" {
		t.Errorf("Output %q", r.Response.Output)
	}
	var texts []string
	for _, it := range r.Response.Transcript {
		if it.Kind == driver.TranscriptAssistant {
			texts = append(texts, it.Text)
		}
	}
	if strings.Join(texts, "|") != "ace|Bd" {
		t.Errorf("block texts %q", texts)
	}
}

// TestMockCorpus replays the Messages mock's responses (corpus/mock serves
// them to Claude Code) with their status and content type under every
// chunking, and checks each one's verdict.
func TestMockCorpus(t *testing.T) {
	want := map[string]struct {
		code    driver.FailureCode
		errType string
		reason  driver.FinishReason
	}{
		"text":               {reason: driver.FinishStop},
		"thinking":           {reason: driver.FinishStop},
		"tool-use":           {reason: driver.FinishToolCalls},
		"tool-result-answer": {reason: driver.FinishStop},
		"error-event":        {code: driver.FailureProviderError, errType: "overloaded_error"},
		"disconnect":         {code: driver.FailureIncomplete},
		"http-error":         {code: driver.FailureProviderError, errType: "invalid_request_error"},
	}
	dirs, _ := filepath.Glob("../../corpus/anthropic-messages/mock/*/meta.json")
	if len(dirs) != len(want) {
		t.Fatalf("%d mock cases, want %d", len(dirs), len(want))
	}
	for _, m := range dirs {
		dir := filepath.Dir(m)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			var meta struct {
				HTTPStatus  int    `json:"http_status"`
				ContentType string `json:"content_type"`
			}
			mb, _ := os.ReadFile(m)
			body, err := os.ReadFile(filepath.Join(dir, "stdout"))
			if err != nil || json.Unmarshal(mb, &meta) != nil {
				t.Fatal(err)
			}
			r := parseAll(t, string(body), Options{HTTPStatus: meta.HTTPStatus, ContentType: meta.ContentType})
			w := want[name]
			f := r.Response.Failure
			if w.code == "" {
				if f != nil || r.Response.Finish == nil || r.Response.Finish.Reason != w.reason {
					t.Fatalf("failure %+v finish %+v", f, r.Response.Finish)
				}
				return
			}
			if f == nil || f.Code != w.code || f.ErrorType != w.errType || (w.code == driver.FailureProviderError) != (r.Response.Finish != nil) ||
				r.Response.Finish != nil && *r.Response.Finish != (driver.Finish{Reason: driver.FinishError, Raw: w.errType}) {
				t.Fatalf("failure %+v finish %+v", f, r.Response.Finish)
			}
		})
	}
}

// TestBareErrorBody: without status and content type, a JSON body is the
// error document it looks like.
func TestBareErrorBody(t *testing.T) {
	r := parseAll(t, "\n{\n  \"type\": \"error\",\n  \"error\": {\"type\": \"not_found_error\", \"message\": \"model: x\"}\n}\n", Options{})
	if f := r.Response.Failure; f == nil || f.Code != driver.FailureProviderError || f.ErrorType != "not_found_error" || f.HTTPStatus != 0 {
		t.Fatalf("failure %+v", f)
	}
}
