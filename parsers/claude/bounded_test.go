package claude

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/ndjson"
)

// TestBoundedSameRun: on a long stream whose ids are never reused (300
// streamed messages with their snapshots and tool results, then 300
// messages that were not streamed, a tool_use never answered, a stray
// content_block_stop, a result without usage), Bounded gives
// the emissions, the fallback usage and the pairing reports of the exact
// parse, while it keeps only the latest messages, no tool scope of a call
// answered and no pairing line: its state is what is open, not every id.
func TestBoundedSameRun(t *testing.T) {
	partial, _ := partialStream(300, 3)
	partial = partial[:bytes.LastIndex(partial[:len(partial)-1], []byte("\n"))+1] // its result
	var lines [][]byte
	lines = append(lines, bytes.SplitAfter(partial, []byte("\n"))...)
	for i := range 300 {
		id := strconv.Itoa(i)
		lines = append(lines, []byte(asstL("", "coarse_"+id, toolB("toolu_c"+id, "Read", `{"file_path":"/f"}`))), []byte(userResultL("", "toolu_c"+id, "ok", false)))
	}
	lines = append(lines, []byte(asstL("", "last", toolB("toolu_unanswered", "Read", `{}`))),
		[]byte(evL("", `{"type":"content_block_stop","index":7}`)),
		[]byte(`{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"`+sid+`","num_turns":1,"uuid":"u"}`))
	type outcome struct {
		sink     adaptertest.RecordingSink
		resp     driver.Response
		unpaired []string
		p        *Parser
	}
	run := func(bounded bool) *outcome {
		o := &outcome{}
		opts := Options{Streaming: true, PartialMessages: true, Bounded: bounded,
			Unpaired: func(off int64, line int, msg string) { o.unpaired = append(o.unpaired, strconv.Itoa(line)+" "+msg) }}
		o.p = New(&o.sink, opts)
		rd := ndjson.NewReader(bytes.NewReader(bytes.Join(lines, []byte("\n"))), ndjson.Options{})
		parsertest.FeedAll(t, rd.Next, o.p.Feed)
		var err error
		if o.resp, err = o.p.Finish(Outcome{}); err != nil {
			t.Fatal(err)
		}
		return o
	}
	b, e := run(true), run(false)
	if !reflect.DeepEqual(b.sink.Payloads, e.sink.Payloads) {
		t.Error("bounded: the payloads differ")
	}
	if !reflect.DeepEqual(b.sink.Items(), e.sink.Items()) {
		t.Error("bounded: the items differ")
	}
	if !reflect.DeepEqual(b.unpaired, e.unpaired) || len(e.unpaired) != 2 {
		t.Errorf("pairing reports: bounded %q, exact %q", b.unpaired, e.unpaired)
	}
	if u := e.sink.Items()[len(e.sink.Items())-1].Usage; u == nil || u.InputTokens != 301*10+300*120+301*(3+5) {
		t.Errorf("exact fallback usage %+v", u)
	}
	if n := len(b.p.msgs); n > 2*keptMessages {
		t.Errorf("bounded: %d messages kept, want at most %d", n, 2*keptMessages)
	}
	if n := len(b.p.toolScope); n != 1 {
		t.Errorf("bounded: %d tool scopes kept, want the unanswered call's", n)
	}
	if b.p.pairs.recs != nil || len(b.p.pairs.on.tools) != 1 {
		t.Errorf("bounded: %d pairing lines and %d tool_use kept", len(b.p.pairs.recs), len(b.p.pairs.on.tools))
	}
	if len(e.p.msgs) != 601 || len(e.p.toolScope) != 601 {
		t.Errorf("exact: %d messages and %d tool scopes kept, want every one", len(e.p.msgs), len(e.p.toolScope))
	}
}
