package openai

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
)

// events frames Responses events the way OpenAI does: an event: line with
// the type, the JSON with "type" and sequence_number first.
func events(evs ...string) string {
	var b strings.Builder
	for i, e := range evs {
		typ, body, _ := strings.Cut(e, " ")
		sep := ","
		if body == "" {
			sep = ""
		}
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d%s%s}\n\n", typ, typ, i, sep, body)
	}
	return b.String()
}

const (
	created   = `response.created "response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[],"usage":null}`
	completed = `response.completed "response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":64},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":120}}`
)

func msgEvents(idx int, id string, deltas ...string) []string {
	evs := []string{
		fmt.Sprintf(`response.output_item.added "output_index":%d,"item":{"id":%q,"type":"message","status":"in_progress","content":[],"role":"assistant"}`, idx, id),
		fmt.Sprintf(`response.content_part.added "item_id":%q,"output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`, id, idx),
	}
	for _, d := range deltas {
		evs = append(evs, fmt.Sprintf(`response.output_text.delta "item_id":%q,"output_index":%d,"content_index":0,"delta":%q`, id, idx, d))
	}
	text := strings.Join(deltas, "")
	return append(evs,
		fmt.Sprintf(`response.output_text.done "item_id":%q,"output_index":%d,"content_index":0,"text":%q`, id, idx, text),
		fmt.Sprintf(`response.output_item.done "output_index":%d,"item":{"id":%q,"type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":%q}],"role":"assistant"}`, idx, id, text))
}

func callEvents(idx int, callID, name string, pieces ...string) []string {
	id := "fc_" + callID
	evs := []string{fmt.Sprintf(`response.output_item.added "output_index":%d,"item":{"id":%q,"type":"function_call","status":"in_progress","arguments":"","call_id":%q,"name":%q}`, idx, id, callID, name)}
	for _, p := range pieces {
		evs = append(evs, fmt.Sprintf(`response.function_call_arguments.delta "item_id":%q,"output_index":%d,"delta":%q`, id, idx, p))
	}
	args := strings.Join(pieces, "")
	return append(evs,
		fmt.Sprintf(`response.function_call_arguments.done "item_id":%q,"output_index":%d,"arguments":%q`, id, idx, args),
		fmt.Sprintf(`response.output_item.done "output_index":%d,"item":{"id":%q,"type":"function_call","status":"completed","arguments":%q,"call_id":%q,"name":%q}`, idx, id, args, callID, name))
}

func seq(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

func TestResponsesText(t *testing.T) {
	r := replay(t, events(seq(created, msgEvents(0, "msg_1", "Hel", "lo"), completed)...), Options{Format: Responses})
	resp := r.Response
	if resp.Output != "Hello" || resp.Failure != nil {
		t.Fatalf("output %q failure %+v", resp.Output, resp.Failure)
	}
	if f := finishOf(r); f != (driver.Finish{Reason: driver.FinishStop, Raw: "completed"}) {
		t.Errorf("finish %+v", f)
	}
	if d := cmp.Diff(&driver.Usage{InputTokens: 100, CachedInputTokens: 64, OutputTokens: 20, ReasoningTokens: 12}, resp.Usage); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
	if r.Payloads[0].RunID != "resp_1" || resp.Metadata[MetaSequence] != "7" || resp.RawStreams.Terminal.Event != "response.completed" {
		t.Errorf("run.started %+v metadata %v", r.Payloads[0], resp.Metadata)
	}
	if d := cmp.Diff([]string{"init", "assistant"}, itemKinds(r.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if r.Items[0].SessionID != "resp_1" {
		t.Errorf("init %+v", r.Items[0])
	}
}

func TestResponsesToolCalls(t *testing.T) {
	body := events(seq(created,
		callEvents(0, "call_a", "get_weather", `{"city":`, `"Paris"}`),
		callEvents(1, "call_b", "get_weather", `{"city":"Oslo"}`),
		completed)...)
	r := replay(t, body, Options{})
	if finishOf(r).Reason != driver.FinishToolCalls {
		t.Errorf("finish %+v", r.Response.Finish)
	}
	calls := toolCalls(r.Items)
	if len(calls) != 2 || calls[0].ToolUseID != "call_a" || cmp.Diff(map[string]any{"city": "Paris"}, calls[0].Input) != "" || calls[1].ToolUseID != "call_b" {
		t.Fatalf("calls %+v", calls)
	}
	want := []string{"run.started", "tool_call.start:call_a", "tool_call.args:call_a", "tool_call.args:call_a", "tool_call.end:call_a",
		"tool_call.start:call_b", "tool_call.args:call_b", "tool_call.end:call_b", "run.finished"}
	if d := cmp.Diff(want, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
}

// response.incomplete is a successful stream whose finish says why: here
// max_output_tokens cut a function call inside its arguments, which stay
// the raw string, flagged.
func TestResponsesIncompleteInsideArguments(t *testing.T) {
	id := "fc_1"
	body := events(created,
		`response.output_item.added "output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"write"}`,
		`response.function_call_arguments.delta "item_id":"`+id+`","output_index":0,"delta":"{\"text\": \"abc"`,
		`response.incomplete "response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"id":"fc_1","type":"function_call","status":"incomplete","arguments":"{\"text\": \"abc","call_id":"call_1","name":"write"}],"usage":{"input_tokens":5,"output_tokens":16}}`)
	r := replay(t, body, Options{})
	if f := finishOf(r); f != (driver.Finish{Reason: driver.FinishLength, Raw: "incomplete: max_output_tokens"}) || r.Response.Failure != nil {
		t.Fatalf("finish %+v failure %+v", f, r.Response.Failure)
	}
	calls := toolCalls(r.Items)
	if len(calls) != 1 || calls[0].Input != `{"text": "abc` || !calls[0].IsError {
		t.Fatalf("calls %+v", calls)
	}
	if r.Response.Usage == nil || r.Response.Usage.OutputTokens != 16 {
		t.Errorf("usage %+v", r.Response.Usage)
	}
}

// A stream cut before its terminal (here inside a call's arguments) is
// incomplete, never a success.
func TestResponsesTruncated(t *testing.T) {
	body := events(seq(created, msgEvents(0, "msg_1", "Hi"),
		`response.output_item.added "output_index":1,"item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"call_1","name":"write"}`,
		`response.function_call_arguments.delta "item_id":"fc_1","output_index":1,"delta":"{\"a"`)...)
	r := replay(t, body, Options{})
	f := r.Response.Failure
	if f == nil || f.Code != driver.FailureIncomplete || !strings.Contains(f.Message, "call_1") || r.Response.Finish != nil {
		t.Fatalf("failure %+v finish %+v", f, r.Response.Finish)
	}
	if r.Response.Output != "Hi" {
		t.Errorf("output %q", r.Response.Output)
	}
	if calls := toolCalls(r.Items); len(calls) != 1 || !calls[0].IsError || calls[0].Metadata["incomplete"] != "true" {
		t.Errorf("calls %+v", calls)
	}
}

func TestResponsesErrors(t *testing.T) {
	body := events(created,
		`error "error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your current quota","param":null}`,
		`response.failed "response":{"id":"resp_1","status":"failed","error":{"code":"insufficient_quota","message":"You exceeded your current quota"},"usage":null}`)
	r := replay(t, body, Options{}, 200)
	f := r.Response.Failure
	if f == nil || f.Code != driver.FailureProviderError || f.ErrorType != "insufficient_quota" || f.HTTPStatus != 200 {
		t.Fatalf("failure %+v", f)
	}
	if fin := finishOf(r); fin.Reason != driver.FinishError || r.Response.Usage != nil {
		t.Errorf("finish %+v usage %+v", fin, r.Response.Usage)
	}
	// The SDK's flat shape, alone, after text.
	body = events(seq(created, msgEvents(0, "msg_1", "partial"), `error "code":"server_error","message":"The server had an error","param":null`)...)
	r = replay(t, body, Options{})
	if f := r.Response.Failure; f == nil || f.ErrorType != "server_error" || f.Message != "The server had an error" || r.Response.Output != "partial" {
		t.Fatalf("failure %+v output %q", f, r.Response.Output)
	}
	// response.failed alone.
	r = replay(t, events(created, `response.failed "response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"boom"}}`), Options{})
	if f := r.Response.Failure; f == nil || f.ErrorType != "server_error" || f.Message != "boom" {
		t.Fatalf("failure %+v", f)
	}
	// An HTTP error before the stream.
	r = replay(t, `{"error":{"message":"Invalid model","type":"invalid_request_error","param":"model","code":"model_not_found"}}`, Options{Format: Responses}, 400)
	if f := r.Response.Failure; f == nil || f.HTTPStatus != 400 || f.ErrorType != "model_not_found" || f.Metadata["param"] != "model" {
		t.Fatalf("failure %+v", f)
	}
}

// A server that sends only the final snapshot (or an item whose events
// went missing): the terminal's output completes the items.
func TestResponsesSnapshotOnly(t *testing.T) {
	body := events(created, `response.completed "response":{"id":"resp_1","status":"completed","output":[{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"thought"}]},{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hello","annotations":[{"type":"url_citation","url":"https://example.com"}]},{"type":"refusal","refusal":"no"}]},{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1}"}],"usage":{"input_tokens":1,"output_tokens":2}}`)
	r := replay(t, body, Options{})
	if r.Response.Output != "Hello" || finishOf(r).Reason != driver.FinishToolCalls {
		t.Fatalf("output %q finish %+v", r.Response.Output, r.Response.Finish)
	}
	if d := cmp.Diff([]string{"init", "thinking", "assistant", "assistant", "tool_call"}, itemKinds(r.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if a := r.Items[2].Data["annotations"]; a == nil {
		t.Errorf("annotations lost: %+v", r.Items[2])
	}
	// The same as a non-streamed body.
	doc := `{"id":"resp_2","object":"response","status":"completed","output":[{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi"}]}],"usage":{"input_tokens":1,"output_tokens":1}}`
	sink := newRecorder()
	resp, err := Parse(200, "application/json", strings.NewReader(doc), sink, Options{Streaming: true})
	if err != nil || resp.Output != "Hi" || resp.Failure != nil || resp.Finish == nil {
		t.Fatalf("err %v resp %+v", err, resp)
	}
	if v := sink.Check(true, Capability, resp, err, nil); len(v) > 0 {
		t.Fatal(v)
	}
}

// Copilot's endpoint rotates item_id between the events of one item; the
// output_index keeps them together.
func TestResponsesRotatingItemIDs(t *testing.T) {
	body := events(created,
		`response.output_item.added "output_index":0,"item":{"id":"id-1","type":"message","content":[]}`,
		`response.output_text.delta "item_id":"id-2","output_index":0,"content_index":0,"delta":"a"`,
		`response.output_text.delta "item_id":"id-3","output_index":0,"content_index":0,"delta":"b"`,
		`response.output_item.done "output_index":0,"item":{"id":"id-4","type":"message","content":[{"type":"output_text","text":"ab"}]}`,
		completed)
	r := replay(t, body, Options{})
	if r.Response.Output != "ab" {
		t.Fatalf("output %q", r.Response.Output)
	}
	if d := cmp.Diff([]string{"run.started", "text.start:id-1", "text.content:id-1", "text.content:id-1", "text.end:id-1", "run.finished"}, kinds(r.Payloads)); d != "" {
		t.Errorf("payloads (-want +got):\n%s", d)
	}
}

func TestResponsesReasoningAndProviderTools(t *testing.T) {
	body := events(created,
		`response.output_item.added "output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`,
		`response.reasoning_summary_part.added "item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`,
		`response.reasoning_summary_text.delta "item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Plan**"`,
		`response.reasoning_summary_text.delta "item_id":"rs_1","output_index":0,"summary_index":1,"delta":"Second"`,
		`response.output_item.done "output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":"Second"}],"encrypted_content":"gAAAA"}`,
		`response.output_item.added "output_index":1,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}`,
		`response.web_search_call.searching "output_index":1,"item_id":"ws_1"`,
		`response.output_item.done "output_index":1,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"news"}}`,
		`response.brand_new.event "output_index":2`,
		`response.output_item.done "output_index":3,"item":{"id":"x_1","type":"compaction","data":"..."}`,
		completed)
	r := replay(t, body, Options{})
	if finishOf(r).Reason != driver.FinishStop {
		t.Errorf("a provider-executed tool made the finish %+v", r.Response.Finish)
	}
	if d := cmp.Diff([]string{"init", "thinking", "thinking", "tool_call", "tool_result"}, itemKinds(r.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if r.Items[2].Data["encrypted_content"] != "gAAAA" || r.Items[3].ToolName != "web_search" {
		t.Errorf("items %+v", r.Items)
	}
	ks := strings.Join(kinds(r.Payloads), " ")
	for _, k := range []string{"reasoning.start:rs_1:0", "reasoning.start:rs_1:1", "openai-responses/reasoning.encrypted_content",
		"tool_call.start:ws_1", "openai-responses/response.web_search_call.searching", "openai-responses/response.brand_new.event",
		"openai-responses/item.compaction"} {
		if !strings.Contains(ks, k) {
			t.Errorf("no %s in %s", k, ks)
		}
	}
	if r.Response.Metadata[MetaUnknown] != "2" {
		t.Errorf("metadata %v", r.Response.Metadata)
	}
}

func TestResponsesRefusalAndDone(t *testing.T) {
	body := events(created,
		`response.output_item.added "output_index":0,"item":{"id":"msg_1","type":"message","content":[]}`,
		`response.content_part.added "item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"refusal","refusal":""}`,
		`response.refusal.delta "item_id":"msg_1","output_index":0,"content_index":0,"delta":"I can't help"`,
		`response.refusal.done "item_id":"msg_1","output_index":0,"content_index":0,"refusal":"I can't help"`,
		`response.output_item.done "output_index":0,"item":{"id":"msg_1","type":"message","content":[{"type":"refusal","refusal":"I can't help"}]}`,
		completed) + "data: [DONE]\n\n"
	r := replay(t, body, Options{})
	if r.Response.Output != "" || r.Response.Failure != nil || r.Response.Metadata[MetaMalformed] != "" {
		t.Fatalf("output %q failure %+v metadata %v", r.Response.Output, r.Response.Failure, r.Response.Metadata)
	}
	if it := r.Items[1]; it.Text != "I can't help" || it.Metadata["refusal"] != "true" {
		t.Errorf("refusal item %+v", it)
	}
}
