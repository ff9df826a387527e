package openai

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// finding is one Options.Unpaired report.
type finding struct {
	line int
	msg  string
}

func unpairedOf(t *testing.T, body string, format Format) []finding {
	t.Helper()
	var got []finding
	opts := Options{Format: format, Unpaired: func(_ int64, line int, msg string) { got = append(got, finding{line, msg}) }}
	if _, err := Parse(200, "text/event-stream", strings.NewReader(body), newRecorder(), opts); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSequenceGaps: a Responses sequence_number that skips numbers, repeats
// one or goes back is a positioned finding at the event; a stream that
// starts past 0 (a resumed stream) is not.
func TestSequenceGaps(t *testing.T) {
	ev := func(seq int, typ, body string) string {
		return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\",\"sequence_number\":" + strconv.Itoa(seq) + body + "}\n\n"
	}
	item := `,"output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}`
	delta := func(s string) string {
		return `,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"` + s + `"`
	}
	done := `,"response":{"id":"resp_1","status":"completed","output":[],"usage":null}`
	body := ev(7, "response.created", `,"response":{"id":"resp_1","status":"in_progress"}`) + // resumed: starts at 7
		ev(8, "response.output_item.added", item) +
		ev(9, "response.output_text.delta", delta("a")) +
		ev(12, "response.output_text.delta", delta("b")) + // 10, 11 lost
		ev(12, "response.output_text.delta", delta("b")) + // delivered twice
		ev(11, "response.output_text.delta", delta("c")) + // out of order
		ev(13, "response.output_item.done", item) +
		ev(14, "response.completed", done)
	want := []finding{
		{10, "sequence_number 12 after 9: 2 event(s) missing"},
		{13, "sequence_number 12 repeated: an event delivered twice"},
		{16, "sequence_number 11 after 12: events out of order"},
	}
	if got := unpairedOf(t, body, Responses); !reflect.DeepEqual(got, want) {
		t.Errorf("findings %+v\nwant %+v", got, want)
	}
	r := replay(t, body, Options{Format: Responses})
	if r.Response.Failure != nil || r.Response.Metadata[MetaSequence] != "14" {
		t.Errorf("failure %+v metadata %v", r.Response.Failure, r.Response.Metadata)
	}
}

// TestUnpairedItems: an event for an item never announced, a done item
// never added, and an item added but not done before the terminal are
// findings; the parser still repairs the stream.
func TestUnpairedItems(t *testing.T) {
	body := sseOf(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}`,
		`{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"hi"}`,
		`{"type":"response.output_item.done","sequence_number":2,"output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}}`,
		`{"type":"response.output_item.added","sequence_number":3,"output_index":2,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
		`{"type":"response.completed","sequence_number":4,"response":{"id":"resp_1","status":"completed","output":[],"usage":null}}`,
	)
	want := []finding{
		{3, "response.output_text.delta for output item msg_1 that no response.output_item.added announced"},
		{5, "output_item.done of call_1 (function_call) without its output_item.added"},
		{7, "output item rs_1 (reasoning) announced but never done before response.completed"},
	}
	if got := unpairedOf(t, body, Responses); !reflect.DeepEqual(got, want) {
		t.Errorf("findings %+v\nwant %+v", got, want)
	}
	replay(t, body, Options{Format: Responses})
}

// TestChatDoneWithoutFinish: [DONE] that ends a choice without its
// finish_reason is a finding at the [DONE] event.
func TestChatDoneWithoutFinish(t *testing.T) {
	body := sseOf(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}`, `[DONE]`)
	want := []finding{{3, "data: [DONE] ended choice 0 without its finish_reason"}}
	if got := unpairedOf(t, body, Chat); !reflect.DeepEqual(got, want) {
		t.Errorf("findings %+v, want %+v", got, want)
	}
	body = sseOf(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`, `[DONE]`)
	if got := unpairedOf(t, body, Chat); len(got) != 0 {
		t.Errorf("findings %+v on a paired stream", got)
	}
}
