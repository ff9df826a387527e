package openai

import (
	"strings"
	"testing"
)

// TestResponsesFastTakesTheCommonShape checks that fastREvent takes every
// event of the benchmark stream and holds the two paths to the same result
// on it and on the corpus's Responses cases.
func TestResponsesFastTakesTheCommonShape(t *testing.T) {
	stream := responsesStream()
	took, events := 0, 0
	for l := range strings.SplitSeq(stream, "\n") {
		d, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			continue
		}
		events++
		var ev rEvent
		if fastREvent([]byte(d), 0, &ev) {
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
		if fastREvent([]byte(d), 0, &ev) {
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
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		sameWithoutFastR(t, string(data))
		sameWithoutFastR(t, chatLines(data))
	})
}
