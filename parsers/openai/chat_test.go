package openai

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
)

// chunk builds a Chat chunk with the OpenAI envelope around choices.
func chunk(choices string, extra ...string) string {
	s := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[` + choices + `]`
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

func delta(d string) string { return `{"index":0,"delta":` + d + `,"finish_reason":null}` }

func finished(reason string) string {
	return `{"index":0,"delta":{},"finish_reason":"` + reason + `"}`
}

const done = "data: [DONE]\n\n"

func toolCalls(items []driver.TranscriptItem) []driver.TranscriptItem {
	var out []driver.TranscriptItem
	for _, it := range items {
		if it.Kind == driver.TranscriptToolCall {
			out = append(out, it)
		}
	}
	return out
}

func TestChatText(t *testing.T) {
	body := sseOf(
		chunk(delta(`{"role":"assistant","content":"","refusal":null}`)),
		chunk(delta(`{"content":"Hel"}`)),
		chunk(delta(`{"content":"lo \u00e9\n"}`)),
		chunk(finished("stop")),
		chunk(``, `"usage":{"prompt_tokens":16,"completion_tokens":3,"total_tokens":19,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":1}}`),
	) + done
	r := replay(t, body, Options{Format: Chat})
	resp := r.Response
	if resp.Output != "Hello é\n" {
		t.Errorf("Output = %q", resp.Output)
	}
	if f := finishOf(r); f != (driver.Finish{Reason: driver.FinishStop, Raw: "stop"}) {
		t.Errorf("Finish = %+v", f)
	}
	want := &driver.Usage{InputTokens: 16, OutputTokens: 3, CachedInputTokens: 8, ReasoningTokens: 1}
	if d := cmp.Diff(want, resp.Usage); d != "" {
		t.Errorf("Usage (-want +got):\n%s", d)
	}
	if resp.Failure != nil || resp.Metadata[MetaDone] != "seen" || resp.Model != "gpt-x" {
		t.Errorf("Failure %+v, metadata %v, model %q", resp.Failure, resp.Metadata, resp.Model)
	}
	wantKinds := []string{"run.started", "text.start:chatcmpl-1:0", "text.content:chatcmpl-1:0", "text.content:chatcmpl-1:0", "text.end:chatcmpl-1:0", "run.finished"}
	if d := cmp.Diff(wantKinds, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"init", "assistant"}, itemKinds(r.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if resp.RawStreams == nil || resp.RawStreams.Stdout != body || resp.RawStreams.Terminal == nil {
		t.Fatalf("raw streams %+v", resp.RawStreams)
	}
}

// A stream without [DONE] (several providers; the vercel/ai recordings
// strip it) is a success when the Output choice's finish_reason arrived.
func TestChatNoDoneFinishAuthoritative(t *testing.T) {
	r := replay(t, sseOf(chunk(delta(`{"content":"hi"}`)), chunk(finished("length"))), Options{})
	if r.Response.Failure != nil || finishOf(r).Reason != driver.FinishLength || r.Response.Metadata[MetaDone] != "absent" {
		t.Fatalf("failure %+v finish %+v metadata %v", r.Response.Failure, r.Response.Finish, r.Response.Metadata)
	}
}

// A stream cut before any finish_reason is incomplete, never a success;
// a call cut inside its arguments is kept with the raw string, flagged.
func TestChatTruncatedInsideArguments(t *testing.T) {
	body := sseOf(
		chunk(delta(`{"content":"Let me look."}`)),
		chunk(delta(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]}`)),
		chunk(delta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\": \"a."}}]}`)),
	)
	r := replay(t, body, Options{Format: Chat})
	f := r.Response.Failure
	if f == nil || f.Code != driver.FailureIncomplete || !strings.Contains(f.Message, "call_a") {
		t.Fatalf("failure %+v", f)
	}
	if r.Response.Finish != nil || r.Response.Usage != nil {
		t.Errorf("finish %+v usage %+v on an incomplete run", r.Response.Finish, r.Response.Usage)
	}
	calls := toolCalls(r.Items)
	if len(calls) != 1 || calls[0].Input != `{"path": "a.` || !calls[0].IsError || calls[0].Metadata["invalid_arguments"] == "" {
		t.Fatalf("calls %+v", calls)
	}
	if r.Response.Output != "Let me look." {
		t.Errorf("Output %q", r.Response.Output)
	}
	// Cut in the middle of an event (no blank line, invalid JSON).
	cut := body + `data: {"id":"chatcmpl-1","choi`
	r = replay(t, cut, Options{Format: Chat})
	if f := r.Response.Failure; f == nil || f.Code != driver.FailureIncomplete || r.Response.Metadata[MetaMalformed] != "1" {
		t.Fatalf("cut mid-event: failure %+v metadata %v", f, r.Response.Metadata)
	}
}

func TestChatToolCallAssembly(t *testing.T) {
	type call struct {
		ID, Name string
		Input    any
	}
	calls := func(r result) []call {
		var out []call
		for _, it := range toolCalls(r.Items) {
			if it.IsError {
				t.Errorf("call %s flagged: %v", it.ToolUseID, it.Metadata)
			}
			out = append(out, call{it.ToolUseID, it.ToolName, it.Input})
		}
		return out
	}
	args := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tcs := []struct {
		name   string
		deltas []string
		want   []call
	}{
		{"openai parallel by index", []string{
			`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":""}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}`,
			`{"tool_calls":[{"index":1,"id":"c2","type":"function","function":{"name":"b","arguments":"{\"y\":"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"\"1\"}"}},{"index":1,"function":{"arguments":"\"2\"}"}}]}`,
		}, []call{{"c1", "a", args("x", "1")}, {"c2", "b", args("y", "2")}}},
		{"no index, matched by id then latest", []string{
			`{"tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{\"x\""}}]}`,
			`{"tool_calls":[{"function":{"arguments":":\"1\"}"}}]}`,
			`{"tool_calls":[{"id":"c2","type":"function","function":{"name":"b","arguments":"{}"}}]}`,
			`{"tool_calls":[{"id":"c1","function":{"arguments":""}}]}`,
		}, []call{{"c1", "a", args("x", "1")}, {"c2", "b", map[string]any{}}}},
		{"one index reused with a new id", []string{
			`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":"{\"x\":"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"\"1\"}"}}]}`,
			`{"tool_calls":[{"index":0,"id":"c2","type":"function","function":{"name":"a","arguments":"{\"x\":"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"\"2\"}"}}]}`,
		}, []call{{"c1", "a", args("x", "1")}, {"c2", "a", args("x", "2")}}},
		{"whole call in one fragment (groq)", []string{
			`{"tool_calls":[{"id":"tk85n1k4m","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"},"index":0}]}`,
		}, []call{{"tk85n1k4m", "weather", args("city", "Oslo")}}},
		{"repeated type and empty name (mistral)", []string{
			`{"tool_calls":[{"id":"m1","type":"function","function":{"name":"search","arguments":""},"index":0}],"index":0,"content":""}`,
			`{"tool_calls":[{"type":"function","function":{"name":"","arguments":"{\"q\": \"x\"}"},"index":0}],"index":0,"content":""}`,
		}, []call{{"m1", "search", args("q", "x")}}},
		{"index 1 after text, empty fragments (anthropic)", []string{
			`{"content":"Reading it."}`,
			`{"tool_calls":[{"index":1,"id":"toolu_1","type":"function","function":{"name":"read_file","arguments":""}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":""}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":"{\"path\": \"a.txt\"}"}}]}`,
		}, []call{{"toolu_1", "read_file", args("path", "a.txt")}}},
		{"no id at all", []string{
			`{"tool_calls":[{"index":0,"function":{"name":"a","arguments":"{}"}}]}`,
			`{"tool_calls":[{"index":1,"function":{"name":"b","arguments":"{}"}}]}`,
		}, []call{{"chatcmpl-1:0:call:0", "a", map[string]any{}}, {"chatcmpl-1:0:call:1", "b", map[string]any{}}}},
		{"arguments as an object, name after arguments", []string{
			`{"tool_calls":[{"index":0,"id":"o1","function":{"arguments":{"k":"v"}}}]}`,
			`{"tool_calls":[{"index":0,"function":{"name":"late"}}]}`,
		}, []call{{"o1", "late", args("k", "v")}}},
		{"legacy function_call", []string{
			`{"function_call":{"name":"f","arguments":"{\"a\":"}}`,
			`{"function_call":{"arguments":"\"b\"}"}}`,
		}, []call{{"chatcmpl-1:0:call:0", "f", args("a", "b")}}},
	}
	for _, tc := range tcs {
		t.Run(tc.name, func(t *testing.T) {
			var ps []string
			for _, d := range tc.deltas {
				ps = append(ps, chunk(delta(d)))
			}
			ps = append(ps, chunk(finished("tool_calls")))
			r := replay(t, sseOf(ps...)+done, Options{Format: Chat})
			if d := cmp.Diff(tc.want, calls(r)); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			if finishOf(r).Reason != driver.FinishToolCalls {
				t.Errorf("finish %+v", r.Response.Finish)
			}
		})
	}
}

// Providers that send cumulative usage on every chunk: the last report
// replaces the earlier ones.
func TestChatCumulativeUsageReplaces(t *testing.T) {
	body := sseOf(
		chunk(delta(`{"content":"a"}`), `"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}`),
		chunk(delta(`{"content":"b"}`), `"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}`),
		chunk(finished("stop"), `"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}`),
	) + done
	r := replay(t, body, Options{})
	if d := cmp.Diff(&driver.Usage{InputTokens: 10, OutputTokens: 3}, r.Response.Usage); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
	// Groq puts it under x_groq on the last chunk; DeepSeek names its cache
	// hits apart.
	body = sseOf(chunk(finished("stop"), `"x_groq":{"id":"req_1","usage":{"prompt_tokens":210,"completion_tokens":15,"total_tokens":225,"prompt_time":0.01}}`))
	if r := replay(t, body, Options{}); r.Response.Usage == nil || r.Response.Usage.InputTokens != 210 {
		t.Errorf("x_groq usage %+v", r.Response.Usage)
	}
	body = sseOf(chunk(finished("stop"), `"usage":{"prompt_tokens":339,"completion_tokens":83,"prompt_cache_hit_tokens":320,"prompt_cache_miss_tokens":19}`))
	if r := replay(t, body, Options{}); r.Response.Usage == nil || r.Response.Usage.CachedInputTokens != 320 {
		t.Errorf("deepseek usage %+v", r.Response.Usage)
	}
}

// An error chunk after text (OpenRouter) and an event: error frame (Groq)
// are provider errors: typed, no usage, finish error, later chunks do not
// undo them.
func TestChatErrors(t *testing.T) {
	body := sseOf(
		chunk(delta(`{"content":"partial"}`)),
		chunk(finished("length")),
		`{"id":"gen-1","object":"chat.completion.chunk","error":{"code":400,"message":"Token limit reached"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}],"usage":{"prompt_tokens":43,"completion_tokens":10}}`,
	) + done
	r := replay(t, body, Options{}, 200)
	f := r.Response.Failure
	if f == nil || f.Code != driver.FailureProviderError || f.Message != "Token limit reached" || f.HTTPStatus != 200 {
		t.Fatalf("failure %+v", f)
	}
	if r.Response.Usage != nil || finishOf(r).Reason != driver.FinishError || r.Response.Output != "partial" {
		t.Errorf("usage %+v finish %+v output %q", r.Response.Usage, r.Response.Finish, r.Response.Output)
	}
	last := r.Payloads[len(r.Payloads)-1]
	if last.Kind != driver.StreamRunError || last.Usage != nil || last.Finish == nil || last.Finish.Reason != driver.FinishError {
		t.Errorf("terminal payload %+v", last)
	}

	body = sseOf(chunk(delta(`{"reasoning":"Let me","channel":"analysis"}`))) +
		"event: error\ndata: {\"error\":{\"message\":\"Tool call validation failed\",\"type\":\"invalid_request_error\",\"code\":\"tool_use_failed\",\"status_code\":400}}\n\n"
	r = replay(t, body, Options{})
	f = r.Response.Failure
	if f == nil || f.ErrorType != "tool_use_failed" || f.Metadata["type"] != "invalid_request_error" || f.Metadata["status_code"] != 400 {
		t.Fatalf("failure %+v", f)
	}
}

func TestChatHTTPErrors(t *testing.T) {
	r := replay(t, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, Options{Format: Chat}, 429)
	f := r.Response.Failure
	if f == nil || f.Code != driver.FailureProviderError || f.HTTPStatus != 429 || f.ErrorType != "rate_limit_exceeded" || f.Message != "Rate limit reached" {
		t.Fatalf("failure %+v", f)
	}
	if r.Response.Metadata[MetaTransport] != "openai-chat-json" {
		t.Errorf("metadata %v", r.Response.Metadata)
	}
	// Google's OpenAI endpoint wraps it in an array; a proxy answers HTML.
	r = replay(t, `[{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}]`, Options{}, 400)
	if f := r.Response.Failure; f == nil || f.ErrorType != "INVALID_ARGUMENT" || f.Message != "API key not valid" {
		t.Fatalf("failure %+v", f)
	}
	r = replay(t, "<html>502 Bad Gateway</html>", Options{}, 502)
	if f := r.Response.Failure; f == nil || f.HTTPStatus != 502 || !strings.Contains(f.Message, "Bad Gateway") {
		t.Fatalf("failure %+v", f)
	}
}

// n > 1: every choice is its own message; Output and Finish are choice
// 0's.
func TestChatSeveralChoices(t *testing.T) {
	body := sseOf(
		chunk(`{"index":0,"delta":{"content":"zero"},"finish_reason":null},{"index":1,"delta":{"content":"one"},"finish_reason":null}`),
		chunk(`{"index":1,"delta":{},"finish_reason":"length"}`),
		chunk(`{"index":0,"delta":{},"finish_reason":"stop"}`),
	) + done
	r := replay(t, body, Options{})
	if r.Response.Output != "zero" || finishOf(r).Reason != driver.FinishStop || r.Response.Metadata[MetaChoices] != "2" {
		t.Fatalf("output %q finish %+v metadata %v", r.Response.Output, r.Response.Finish, r.Response.Metadata)
	}
	var texts []string
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptAssistant {
			texts = append(texts, it.Metadata["choice"]+"="+it.Text)
		}
	}
	if d := cmp.Diff([]string{"1=one", "0=zero"}, texts); d != "" {
		t.Errorf("assistant items (-want +got):\n%s", d)
	}
}

func TestChatReasoningAndRefusal(t *testing.T) {
	body := sseOf(
		chunk(delta(`{"reasoning_content":"think","reasoning":"think"}`)),
		chunk(delta(`{"reasoning":" more"}`)),
		chunk(delta(`{"content":"answer"}`)),
		chunk(delta(`{"refusal":"I can't"}`)),
		chunk(finished("stop")),
	) + done
	r := replay(t, body, Options{})
	if r.Response.Output != "answer" {
		t.Errorf("Output %q", r.Response.Output)
	}
	var thinking, refusal string
	for _, it := range r.Items {
		switch {
		case it.Kind == driver.TranscriptThinking:
			thinking += it.Text
		case it.Metadata["refusal"] == "true":
			refusal = it.Text
		}
	}
	if thinking != "think more" || refusal != "I can't" {
		t.Errorf("thinking %q refusal %q", thinking, refusal)
	}
}

// Azure's first chunk has no choices, an empty id and
// prompt_filter_results: kept as a custom payload.
func TestChatAzureExtraChunk(t *testing.T) {
	body := sseOf(
		`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`,
		`{"choices":[{"content_filter_results":{},"delta":{"content":"Hi"},"finish_reason":null,"index":0,"logprobs":null}],"created":1,"id":"chatcmpl-2","model":"gpt-5","object":"chat.completion.chunk"}`,
		`{"choices":[{"content_filter_results":{},"delta":{},"finish_reason":"stop","index":0,"logprobs":null}],"created":1,"id":"chatcmpl-2","model":"gpt-5","object":"chat.completion.chunk"}`,
	)
	r := replay(t, body, Options{})
	if r.Response.Output != "Hi" || r.Response.Model != "gpt-5" {
		t.Fatalf("output %q model %q", r.Response.Output, r.Response.Model)
	}
	if k := kinds(r.Payloads); k[1] != "openai-chat/chunk" {
		t.Errorf("payloads %v", k)
	}
}

func TestChatNonStreamedBody(t *testing.T) {
	body := `{"id":"chatcmpl-3","object":"chat.completion","model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"Paris.","tool_calls":[{"id":"c9","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`
	sink := newRecorder()
	resp, err := Parse(200, "application/json", strings.NewReader(body), sink, Options{Streaming: true})
	if err != nil || resp.Failure != nil || resp.Output != "Paris." || finishOf(result{Response: resp}).Reason != driver.FinishToolCalls || resp.Usage == nil {
		t.Fatalf("err %v resp %+v", err, resp)
	}
	if v := sink.Check(true, Capability, resp, err, nil); len(v) > 0 {
		t.Fatal(v)
	}
	if len(toolCalls(sink.Items())) != 1 {
		t.Errorf("items %v", itemKinds(sink.Items()))
	}
}

// A frame that is not JSON is malformed and kept; parsing goes on.
func TestChatMalformedFrame(t *testing.T) {
	body := sseOf(chunk(delta(`{"content":"a"}`)), `{"broken`, `not json`, `[1]`, chunk(finished("stop"))) + done + done
	r := replay(t, body, Options{})
	if r.Response.Failure != nil || r.Response.Output != "a" || r.Response.Metadata[MetaMalformed] != "4" {
		t.Fatalf("failure %+v output %q metadata %v", r.Response.Failure, r.Response.Output, r.Response.Metadata)
	}
	var offsets []string
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptStdout {
			offsets = append(offsets, it.Metadata["offset"])
		}
	}
	if len(offsets) != 4 || offsets[0] == "" {
		t.Errorf("stdout items %v", offsets)
	}
}

// TestAzureContentFilter: Azure's per-chunk content_filter_results are
// kept on the choice's item, each value once while it repeats; a filtered
// category is also the custom payload openai-chat/content_filter, and a
// choice the filter stopped before any text keeps them on a system item.
func TestAzureContentFilter(t *testing.T) {
	safe := `{"hate":{"filtered":false,"severity":"safe"},"violence":{"filtered":false,"severity":"safe"}}`
	hit := `{"hate":{"filtered":false,"severity":"safe"},"violence":{"filtered":true,"severity":"high"}}`
	chunk := func(filters, delta, finish string) string {
		return `{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"content_filter_results":` + filters + `,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
	}
	body := sseOf(
		`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":`+safe+`}]}`,
		chunk(`{}`, `{"role":"assistant","content":""}`, "null"),
		chunk(safe, `{"content":"The"}`, "null"),
		chunk(safe, `{"content":" fight"}`, "null"),
		chunk(hit, `{}`, `"content_filter"`),
		`[DONE]`)
	r := replay(t, body, Options{Format: Chat})
	if f := finishOf(r); f.Reason != driver.FinishContentFilter || r.Response.Failure != nil || r.Response.Output != "The fight" {
		t.Fatalf("finish %+v failure %+v output %q", f, r.Response.Failure, r.Response.Output)
	}
	var kept []any
	for _, it := range r.Response.Transcript {
		if it.Kind == driver.TranscriptAssistant {
			kept, _ = it.Data["content_filter_results"].([]any)
		}
	}
	if len(kept) != 2 {
		t.Fatalf("content_filter_results kept: %v, want the safe and the filtered value", kept)
	}
	if n := parsertest.Counts(r.Payloads)["openai-chat/content_filter"]; n != 1 {
		t.Errorf("%d content_filter payloads, want 1", n)
	}

	body = sseOf(chunk(hit, `{"role":"assistant"}`, `"content_filter"`), `[DONE]`)
	r = replay(t, body, Options{Format: Chat})
	found := false
	for _, it := range r.Response.Transcript {
		found = found || it.Subtype == "content_filter" && it.Data["content_filter_results"] != nil
	}
	if !found || finishOf(r).Reason != driver.FinishContentFilter {
		t.Errorf("filtered at once: transcript %+v finish %+v", r.Response.Transcript, finishOf(r))
	}
}
