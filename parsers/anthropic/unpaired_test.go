package anthropic

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
)

// TestUnpaired: content before message_start, a delta and a stop without
// their content_block_start and a block left open at message_stop are
// findings at the line of the event (its event: field); the stream is still repaired and succeeds.
func TestUnpaired(t *testing.T) {
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
	body := ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"early"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":3}`) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" late"}}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	type finding struct {
		line int
		msg  string
	}
	var got []finding
	opts := Options{Unpaired: func(_ int64, line int, msg string) { got = append(got, finding{line, msg}) }}
	r, err := Parse(strings.NewReader(body), &countSink{}, opts, Outcome{})
	if err != nil || r.Failure != nil || r.Output != "early late" {
		t.Fatalf("err %v failure %+v output %q", err, r.Failure, r.Output)
	}
	want := []finding{
		{1, "event before any message_start"},
		{1, "content_block_delta at index 0 without its content_block_start"},
		{7, "content_block_stop at index 3 without its content_block_start"},
		{10, "content block 1 (text) started but not stopped before message_stop"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings %+v\nwant %+v", got, want)
	}
}

// TestDeltaAfterItsStop: a text delta for the block the last delta went
// to, after that block's content_block_stop, is one without its
// content_block_start: a finding, and its text a new block's (a second
// lifecycle of the index), not the stopped block's.
func TestDeltaAfterItsStop(t *testing.T) {
	var got []string
	opts := Options{Unpaired: func(_ int64, _ int, msg string) { got = append(got, msg) }}
	body := events(evStart, evText0, textDelta("0", "first"), evStop0, textDelta("0", "again"), evEndTurn, evMsgStop)
	r, err := Parse(strings.NewReader(body), &countSink{}, opts, Outcome{})
	if err != nil || r.Output != "firstagain" || r.Metadata[MetaMalformed] != "1" {
		t.Fatalf("err %v output %q meta %v", err, r.Output, r.Metadata)
	}
	want := []string{"content_block_delta at index 0 without its content_block_start", "content block 0 (text) started but not stopped before message_stop"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	var texts []string
	for _, it := range r.Transcript {
		if it.Kind == driver.TranscriptAssistant {
			texts = append(texts, it.Text)
		}
	}
	if !reflect.DeepEqual(texts, []string{"first", "again"}) {
		t.Errorf("assistant texts %q: want the two blocks' own", texts)
	}
}
