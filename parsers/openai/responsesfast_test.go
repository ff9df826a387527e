package openai

import (
	"strconv"
	"strings"
	"testing"
)

// TestResponsesFastTakesTheCommonShape checks that fastREvent takes every
// event of the benchmark stream and holds the two paths to the same result
// on it and on the corpus's Responses cases.
func TestResponsesFastTakesTheCommonShape(t *testing.T) {
	stream := responsesStream()
	took, events := 0, 0
	var p Parser
	for l := range strings.SplitSeq(stream, "\n") {
		d, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			continue
		}
		events++
		var ev rEvent
		if p.fastREvent([]byte(d), 0, &ev) {
			took++
		}
	}
	if took != events || events == 0 {
		t.Errorf("fastREvent took %d of the %d benchmark events", took, events)
	}
	sameWithoutFastR(t, stream)
	n := 0
	for _, c := range corpusCases(t) {
		if strings.HasPrefix(c.name, ProviderResponses+"/") {
			sameWithoutFastR(t, c.body)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no Responses corpus case")
	}
}

// responsesFastDeclines are events fastREvent must leave to checkREvent.
var responsesFastDeclines = []string{
	`{"ty\u0070e":"response.output_text.delta","delta":"a"}`,
	`{"type":"response.output_text.delta","delta":"a` + "\x01" + `"}`,
	`{"type":"response.output_text.delta","delta":"a"} x`,
	`{"type":"response.output_text.delta","delta":"a",}`,
	`{"type":"response.output_text.delta","delta":01}`,
	`{"type":"response.completed","response":` + strings.Repeat("[", fastDepth+1) + strings.Repeat("]", fastDepth+1) + `}`,
	`{"type":"response.output_text.delta" "delta":"a"}`,
	`{"type":"response.output_text.delta","delta":"a"`,
}

func TestResponsesFastDeclines(t *testing.T) {
	for _, d := range responsesFastDeclines {
		var ev rEvent
		var p Parser
		if p.fastREvent([]byte(d), 0, &ev) {
			t.Errorf("fastREvent took %s", d)
		}
	}
	// What it declines the full path reads the same as without it, and a
	// duplicate member (taken: the last one wins either way) too.
	sameWithoutFastR(t, chatLines([]byte(strings.Join(append(responsesFastDeclines,
		`{"type":"response.output_text.delta","type":1,"item_id":"m","item_id":"n","delta":"b","delta":"c"}`,
		` {"type":"response.output_text.delta", "delta" : "caf\u00e9 \ud800"} `,
		`{"delta":"no type"}`), "\n"))))
	// An event without a type is read by its SSE event name.
	sameWithoutFastR(t, "event: response.output_text.delta\ndata: {\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,\"delta\":\"named\"}\n\n")
}

// FuzzResponsesFast holds the Responses fast path to the full path
// (jsonguard's validating pass and the member reading): a stream of
// events, one per line of the input, gives the same result either way.
func FuzzResponsesFast(f *testing.F) {
	for _, c := range corpusCases(f) {
		if strings.HasPrefix(c.name, ProviderResponses+"/") && len(c.body) <= 8<<10 {
			f.Add([]byte(c.body))
		}
	}
	var lines []string
	for l := range strings.SplitSeq(responsesStream(), "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok && len(lines) < 30 && len(d) < 2000 {
			lines = append(lines, d)
		}
	}
	f.Add([]byte(strings.Join(lines, "\n")))
	f.Add([]byte(strings.Join(responsesFastDeclines, "\n")))
	f.Add([]byte(`{"type":"response.output_text.delta","sequence_number":1,"item_id":"m","output_index":1,"delta":"a"}
{"type":"response.output_text.delta","sequence_number":22,"item_id":"m","output_index":1,"delta":"\u00e9\""}
{"type":"response.output_text.delta","sequence_number":-3.5,"item_id":"m","output_index":1,"delta":""}
{"type":"response.output_text.delta","sequence_number":4,"item_id":"mm","output_index":10,"delta":"b"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		sameWithoutFastR(t, string(data))
		sameWithoutFastR(t, chatLines(data))
	})
}

// TestResponsesFastShape checks the shape memo: an event that differs
// from the one learnt only in string values and numbers is read from the
// shape, its numbers and type read again; one that differs elsewhere is
// read whole; the two paths agree on streams that go in and out of the
// shape, with escapes, odd numbers and invalid values where they vary.
func TestResponsesFastShape(t *testing.T) {
	var p Parser
	e := func(seq, delta string) []byte {
		return []byte(`{"type":"response.output_text.delta","sequence_number":` + seq + `,"item_id":"m","output_index":1,"delta":"` + delta + `"}`)
	}
	var ev rEvent
	if !p.fastREvent(e("1", "a"), 0, &ev) || !p.rshape.s.Match(e("2", "b")) {
		t.Fatal("the first event was not learnt")
	}
	for n, delta := range []string{"bb", `\"`, `\ud800`, ""} {
		if !p.fastREvent(e(strconv.Itoa(20+n), delta), 0, &ev) || p.rshape.misses != 0 || string(ev.delta) != `"`+delta+`"` ||
			ev.seq != 20+n || !ev.hasSeq || ev.typ != evTextDelta || string(ev.itemID) != `"m"` || ev.outIdx != 1 {
			t.Fatalf("event %s: misses %d, read %+v", e(strconv.Itoa(20+n), delta), p.rshape.misses, ev)
		}
	}
	if !p.fastREvent([]byte(`{"type":"response.refusal.delta","sequence_number":7,"item_id":"m","output_index":1,"delta":"x"}`), 0, &ev) ||
		p.rshape.misses != 0 || ev.typ != evRefusalDelta {
		t.Fatalf("another type: misses %d, read %+v", p.rshape.misses, ev)
	}
	for _, bad := range [][]byte{e("01", "a"), e("-", "a"), e("1", "\x01"), e("1", `\q`)} {
		if p.fastREvent(bad, 0, &ev) {
			t.Fatalf("took %s", bad)
		}
	}
	sameWithoutFastR(t, chatLines([]byte(strings.Join([]string{
		`{"type":"response.output_item.added","sequence_number":0,"output_index":1,"item":{"id":"m","type":"message","status":"in_progress","content":[],"role":"assistant"}}`,
		string(e("1", "a")), string(e("2", "b")), string(e("3.5", `\"`)), string(e("-4", "c")), string(e("1e3", "d")),
		string(e("01", "e")), string(e("6", "\x01")), string(e("7", `\ud83d\ude00`)),
		`{"type":"response.output_text.delta","sequence_number":8,"item_id":"m","output_index":2,"delta":"f"}`,
		`{"type":"response.output_text.delta","sequence_number":9,"item_id":"m","output_index":"1","delta":"g"}`,
		`{"type":"response.output_text.delta","sequence_number":10,"item_id":"m","output_index":1,"delta":"h","delta":"i"}`,
		string(e("11", "j")), string(e("12", "k")),
		`{"type":"response.output_text.done","sequence_number":13,"item_id":"m","output_index":1,"text":"abcdefghijk"}`,
		`{"type":"response.completed","sequence_number":14,"response":{"id":"r","status":"completed","output":[]}}`,
	}, "\n"))))
}
