package gemini

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/sse"
)

const (
	evText1 = `{"candidates": [{"content": {"parts": [{"text": "Hel"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 5,"totalTokenCount": 5},"modelVersion": "gemini-2.5-flash","responseId": "r-1"}`
	evText2 = `{"candidates": [{"content": {"parts": [{"text": "lo"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 5,"candidatesTokenCount": 2,"totalTokenCount": 10,"thoughtsTokenCount": 3,"cachedContentTokenCount": 4,"toolUsePromptTokenCount": 1},"modelVersion": "gemini-2.5-flash","responseId": "r-1"}`
)

func TestTextAndUsage(t *testing.T) {
	r := mustRun(t, 200, sseBody(evText1, evText2))
	resp := r.Response
	if resp.Output != "Hello" || resp.Failure != nil || resp.Model != "gemini-2.5-flash" || resp.Metadata[MetaResponseID] != "r-1" {
		t.Fatalf("response %+v", resp)
	}
	if d := cmp.Diff(&driver.Finish{Reason: driver.FinishStop, Raw: "STOP"}, resp.Finish); d != "" {
		t.Error(d)
	}
	// input = prompt + tool-use prompt; output = candidates + thoughts.
	if d := cmp.Diff(&driver.Usage{InputTokens: 6, CachedInputTokens: 4, OutputTokens: 5, ReasoningTokens: 3}, resp.Usage); d != "" {
		t.Error(d)
	}
	want := []string{"run.started", "text.start:text-1", "text.content:text-1", "text.content:text-1", "text.end:text-1", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Error(d)
	}
	if r.Payloads[0].RunID != "r-1" {
		t.Errorf("run.started %+v", r.Payloads[0])
	}
	if d := cmp.Diff([]string{"assistant", "result"}, itemKinds(r.Items)); d != "" || r.Items[0].Text != "Hello" {
		t.Errorf("items %+v", r.Items)
	}
}

func TestFinishMapping(t *testing.T) {
	for raw, want := range map[string]driver.FinishReason{
		"STOP": driver.FinishStop, "MAX_TOKENS": driver.FinishLength, "SAFETY": driver.FinishContentFilter,
		"RECITATION": driver.FinishOther, "BLOCKLIST": driver.FinishContentFilter, "PROHIBITED_CONTENT": driver.FinishContentFilter,
		"SPII": driver.FinishContentFilter, "MALFORMED_FUNCTION_CALL": driver.FinishOther, "OTHER": driver.FinishOther,
		"LANGUAGE": driver.FinishOther, "IMAGE_SAFETY": driver.FinishContentFilter, "UNEXPECTED_TOOL_CALL": driver.FinishOther,
		"FINISH_REASON_UNSPECIFIED": driver.FinishUnknown, "SOMETHING_NEW": driver.FinishUnknown,
	} {
		body := sseBody(`{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"` + raw + `"}]}`)
		r := mustRun(t, 200, body)
		if f := r.Response.Finish; f == nil || f.Reason != want || f.Raw != raw || r.Response.Failure != nil {
			t.Errorf("%s: finish %+v failure %+v, want %s", raw, f, r.Response.Failure, want)
		}
	}
}

func TestFunctionCalls(t *testing.T) {
	// Two calls in one event, no ids, a signature on the first; then a
	// server id on a later call.
	body := sseBody(
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"sum","args":{"a":1}},"thoughtSignature":"sig"},{"functionCall":{"name":"sum","args":{"a":2}}}],"role":"model"}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"srv-9","name":"now","args":{}}}],"role":"model"},"finishReason":"STOP"}]}`)
	r := mustRun(t, 200, body)
	want := []string{"run.started", "tool_call.start:call-1", "tool_call.end:call-1", "tool_call.start:call-2", "tool_call.end:call-2",
		"tool_call.start:srv-9", "tool_call.end:srv-9", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Error(d)
	}
	if f := r.Response.Finish; f.Reason != driver.FinishToolCalls || f.Raw != "STOP" {
		t.Errorf("finish %+v", f)
	}
	if it := r.Items[0]; it.ToolName != "sum" || it.Data["thought_signature"] != "sig" || cmp.Diff(map[string]any{"a": 1.0}, it.Input) != "" {
		t.Errorf("item %+v", it)
	}
	if r.Payloads[1].Args["a"] != 1.0 {
		t.Errorf("start %+v", r.Payloads[1])
	}
}

func TestStreamedArgs(t *testing.T) {
	body := sseBody(
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.loc","stringValue":"Bos","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.loc","stringValue":"ton"},{"jsonPath":"$.opts.days[1]","numberValue":3},{"jsonPath":"$['a b']","boolValue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`)
	r := mustRun(t, 200, body)
	want := []string{"run.started", "tool_call.start:call-1", "tool_call.args:call-1", "tool_call.end:call-1", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Fatal(d)
	}
	if got := r.Payloads[2].Delta; got != `{"a b":true,"loc":"Boston","opts":{"days":[null,3]}}` {
		t.Errorf("args delta %s", got)
	}
	if r.Response.Finish.Reason != driver.FinishToolCalls {
		t.Errorf("finish %+v", r.Response.Finish)
	}
}

func TestThoughtsAndSignatures(t *testing.T) {
	body := sseBody(
		`{"candidates":[{"content":{"parts":[{"text":"**Plan**","thought":true}],"role":"model"}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"Answer"}],"role":"model"}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"S1"}],"role":"model"},"finishReason":"STOP"}]}`)
	r := mustRun(t, 200, body)
	want := []string{"run.started", "reasoning.start:thought-1", "reasoning.content:thought-1", "reasoning.end:thought-1",
		"text.start:text-1", "text.content:text-1", "text.end:text-1", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Error(d)
	}
	if r.Response.Output != "Answer" || r.Items[1].Data["thought_signature"] != "S1" || r.Items[0].Kind != driver.TranscriptThinking {
		t.Errorf("output %q items %+v", r.Response.Output, r.Items)
	}
	// A signature with no block open is kept on its own.
	r = mustRun(t, 200, sseBody(`{"candidates":[{"content":{"parts":[{"thoughtSignature":"S2"}]},"finishReason":"STOP"}]}`))
	if r.Items[0].Kind != driver.TranscriptSystem || r.Items[0].Data["thought_signature"] != "S2" {
		t.Errorf("items %+v", r.Items)
	}
}

func TestErrors(t *testing.T) {
	errBody := `{"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}`
	cases := []struct {
		name    string
		status  int
		body    string
		code    driver.FailureCode
		typ     string
		http    int
		payload bool // run.error expected
	}{
		{"mid-stream error event", 200, sseBody(evText1, errBody), driver.FailureProviderError, "RESOURCE_EXHAUSTED", 200, true},
		{"error beside candidates", 200, sseBody(`{"candidates":[{"content":{"parts":[{"text":"Hel"}]},"finishReason":"STOP"}],"error":{"code":500,"message":"internal","status":"INTERNAL"}}`),
			driver.FailureProviderError, "INTERNAL", 200, true},
		{"error body", 429, errBody, driver.FailureProviderError, "RESOURCE_EXHAUSTED", 429, true},
		{"error body in an array", 503, `[` + errBody + `]`, driver.FailureProviderError, "RESOURCE_EXHAUSTED", 503, true},
		{"HTML error body", 502, "<html>Bad Gateway</html>", driver.FailureProviderError, "http_502", 502, true},
		{"empty error body", 500, "", driver.FailureProviderError, "http_500", 500, true},
		{"no finishReason", 200, sseBody(evText1), driver.FailureIncomplete, "", 0, true},
		{"empty 200 body", 200, "", driver.FailureIncomplete, "", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustRun(t, c.status, c.body)
			f := r.Response.Failure
			if f == nil || f.Code != c.code || f.ErrorType != c.typ || f.HTTPStatus != c.http || f.Message == "" {
				t.Fatalf("failure %+v", f)
			}
			if c.code == driver.FailureProviderError && (r.Response.Usage != nil || r.Response.Finish.Reason != driver.FinishError) {
				t.Errorf("usage %+v finish %+v", r.Response.Usage, r.Response.Finish)
			}
			if c.code == driver.FailureIncomplete && r.Response.Finish != nil {
				t.Errorf("incomplete with finish %+v", r.Response.Finish)
			}
			if last := r.Payloads[len(r.Payloads)-1]; last.Kind != driver.StreamRunError {
				t.Errorf("terminal %s", last.Kind)
			}
		})
	}
}

// TestJSONArrayBody: streamGenerateContent without alt=sse answers with a
// JSON array of the same responses; it parses as the SSE stream does.
func TestJSONArrayBody(t *testing.T) {
	a := mustRun(t, 200, sseBody(evText1, evText2))
	b := mustRun(t, 200, "[\r\n"+evText1+",\r\n"+evText2+"\r\n]")
	if d := cmp.Diff(a.Payloads, b.Payloads); d != "" {
		t.Error(d)
	}
	if a.Response.Output != b.Response.Output || cmp.Diff(a.Response.Usage, b.Response.Usage) != "" {
		t.Errorf("%+v vs %+v", a.Response, b.Response)
	}
}

func TestMalformedAndUnknown(t *testing.T) {
	body := sseBody(evText1, `{"candidates": [`, "not json",
		`{"candidates":[{"content":{"parts":[{"newPartType":{"x":1}},{"text":5},{"inlineData":{"mimeType":"image/png","data":"iVBO"}}]},"futureMember":1}],"turnToken":"t"}`,
		`[DONE]`, evText2)
	r := mustRun(t, 200, body)
	resp := r.Response
	if resp.Failure != nil || resp.Output != "Hello" || resp.Metadata[MetaMalformed] != "3" || resp.Metadata[MetaUnknown] != "3" {
		t.Fatalf("failure %+v output %q meta %v", resp.Failure, resp.Output, resp.Metadata)
	}
	var custom []string
	for _, p := range r.Payloads {
		if p.Kind.IsCustom() {
			custom = append(custom, string(p.Kind))
		}
	}
	want := []string{"gemini/malformed", "gemini/malformed", "gemini/newPartType", "gemini/part_fields", "gemini/inlineData", "gemini/futureMember", "gemini/turnToken"}
	if d := cmp.Diff(want, custom); d != "" {
		t.Error(d)
	}
	var offsets []string
	for _, it := range r.Items {
		if it.Kind == driver.TranscriptStdout {
			offsets = append(offsets, it.Metadata["line"]+"@"+it.Metadata["offset"])
		}
	}
	if d := cmp.Diff([]string{"3@" + strconv.Itoa(len(sseBody(evText1))), "5@" + strconv.Itoa(len(sseBody(evText1, `{"candidates": [`)))}, offsets); d != "" {
		t.Errorf("positions: %s", d)
	}
}

func TestPromptBlocked(t *testing.T) {
	r := mustRun(t, 200, sseBody(`{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},"usageMetadata": {"promptTokenCount": 7,"totalTokenCount": 7}}`))
	if f := r.Response.Finish; r.Response.Failure != nil || f.Reason != driver.FinishContentFilter || f.Raw != "blockReason: PROHIBITED_CONTENT" {
		t.Errorf("finish %+v failure %+v", f, r.Response.Failure)
	}
}

func TestUsageSnapshotReplaces(t *testing.T) {
	body := sseBody(
		`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":10,"totalTokenCount":10}}`,
		`{"candidates":[{"content":{"parts":[{"text":"b"}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"}}`,
		`{"candidates":[{"content":{"parts":[{"text":"c"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":3,"totalTokenCount":12}}`)
	r := mustRun(t, 200, body)
	if d := cmp.Diff(&driver.Usage{InputTokens: 9, OutputTokens: 3}, r.Response.Usage); d != "" {
		t.Error(d)
	}
	// The Vertex snapshot without counts does not clear a report.
	r = mustRun(t, 200, sseBody(
		`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":10,"totalTokenCount":10}}`,
		`{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP"}],"usageMetadata":{"trafficType":"ON_DEMAND"}}`))
	if r.Response.Usage == nil || r.Response.Usage.InputTokens != 10 {
		t.Errorf("usage %+v", r.Response.Usage)
	}
}

func TestTwoCandidates(t *testing.T) {
	body := sseBody(
		`{"candidates":[{"content":{"parts":[{"text":"A"}]},"index":0},{"content":{"parts":[{"text":"B"}]},"index":1}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"STOP","index":0},{"content":{"parts":[{"text":"b"}]},"finishReason":"MAX_TOKENS","index":1}]}`)
	r := mustRun(t, 200, body)
	if r.Response.Output != "Aa" || r.Response.Finish.Reason != driver.FinishStop {
		t.Errorf("output %q finish %+v", r.Response.Output, r.Response.Finish)
	}
	want := []string{"run.started", "text.start:text-1", "text.content:text-1", "text.start:c1-text-1", "text.content:c1-text-1",
		"text.content:text-1", "text.content:c1-text-1", "text.end:text-1", "text.end:c1-text-1", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Error(d)
	}
}

// TestTruncation cuts every successful public capture at every byte before
// its first finishReason: always a failure (incomplete), never a finish,
// zero violations.
func TestTruncation(t *testing.T) {
	for _, c := range publicCases(t) {
		end := strings.Index(c.body, `"finishReason"`)
		if c.status != 200 || end < 0 {
			continue
		}
		step := 1
		if end > 4096 {
			step = 7
		}
		for n := 0; n < end; n += step {
			r, v := run(200, c.body[:n], Options{Streaming: true}, nil)
			if len(v) > 0 {
				t.Fatalf("%s cut at %d: violations:\n%s", c.name, n, v)
			}
			if f := r.Response.Failure; f == nil || f.Code != driver.FailureIncomplete || r.Response.Finish != nil {
				t.Fatalf("%s cut at %d: failure %+v finish %+v", c.name, n, f, r.Response.Finish)
			}
		}
	}
}

// errReader fails after its data, as a connection reset does.
type errReader struct{ r io.Reader }

var errReset = errors.New("connection reset by peer")

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errReset
	}
	return n, err
}

func TestReadErrorAndCancel(t *testing.T) {
	body := sseBody(evText1, evText2)
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(200, "text/event-stream", &errReader{strings.NewReader(body)}, sink, Options{Streaming: true})
	if !errors.Is(err, errReset) || resp.Failure == nil || resp.Failure.Code != driver.FailureIncomplete || resp.RawStreams.Stdout != body {
		t.Fatalf("err %v failure %+v", err, resp.Failure)
	}
	if v := sink.Check(true, Capability, resp, err, nil); len(v) > 0 {
		t.Fatal(v)
	}
	p := New(&adaptertest.RecordingSink{}, Options{})
	resp, err = p.Finish(Outcome{Cancelled: true})
	if err != nil || resp.Failure.Code != driver.FailureCancelled {
		t.Fatalf("err %v failure %+v", err, resp.Failure)
	}
	if _, err := p.Finish(Outcome{}); err != ErrFinished {
		t.Errorf("second Finish: %v", err)
	}
	if err := p.Feed(sse.Frame{}); err != ErrFinished {
		t.Errorf("Feed after Finish: %v", err)
	}
}

func TestOversizedEvent(t *testing.T) {
	big := `{"candidates":[{"content":{"parts":[{"text":"` + strings.Repeat("x", 2000) + `"}]}}]}`
	body := sseBody(evText1, big, evText2)
	sink := &adaptertest.RecordingSink{}
	resp, err := Parse(200, "", strings.NewReader(body), sink, Options{Streaming: true, MaxEventSize: 1024})
	if err != nil || resp.Failure != nil || resp.Output != "Hello" || resp.Metadata[MetaMalformed] != "1" {
		t.Fatalf("err %v failure %+v output %q meta %v", err, resp.Failure, resp.Output, resp.Metadata)
	}
	if v := sink.Check(true, Capability, resp, err, nil); len(v) > 0 {
		t.Fatal(v)
	}
}

func TestCodeExecutionAndServerTool(t *testing.T) {
	body := sseBody(
		`{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"print(1)"}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"codeExecutionResult":{"outcome":"OUTCOME_FAILED","output":"boom"}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"mcp_tool","args":{}}}]},"finishReason":"STOP"}]}`,
		`{"candidates":[{"content":{"parts":[{"functionResponse":{"name":"mcp_tool","response":{"ok":true}}}],"role":"model"}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"done"}]},"finishReason":"STOP"}]}`)
	r := mustRun(t, 200, body)
	want := []string{"run.started", "tool_call.start:code-1", "tool_call.end:code-1", "tool_call.start:call-1", "tool_call.end:call-1",
		"tool_call.result:call-1", "text.start:text-1", "text.content:text-1", "text.end:text-1", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Error(d)
	}
	// The server answered its own call: the turn stopped, it does not wait for tools.
	if r.Response.Finish.Reason != driver.FinishStop {
		t.Errorf("finish %+v", r.Response.Finish)
	}
	if it := r.Items[1]; it.Kind != driver.TranscriptToolResult || !it.IsError || it.Text != "boom" || it.ToolUseID != "code-1" {
		t.Errorf("code result item %+v", it)
	}
}
