package appserver

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/jsonrpc"
)

// TestBoundedSameRun: on a long session whose ids are never reused
// (synthSession), Bounded gives the emissions and pairing
// reports of the exact parse while it forgets an item once it is completed: its state is what
// is open, not every id.
func TestBoundedSameRun(t *testing.T) {
	data := synthSession(20000)
	type outcome struct {
		sink     adaptertest.RecordingSink
		unpaired []string
		p        *Parser
	}
	run := func(bounded bool) *outcome {
		o := &outcome{}
		opts := Options{Streaming: true, Bounded: bounded,
			Unpaired: func(_ int64, line int, msg string) { o.unpaired = append(o.unpaired, strconv.Itoa(line)+" "+msg) }}
		o.p = New(&o.sink, opts)
		rd := jsonrpc.NewReader(bytes.NewReader(data), jsonrpc.Options{})
		parsertest.FeedAll(t, rd.Next, o.p.Feed)
		if _, err := o.p.Finish(Outcome{}); err != nil {
			t.Fatal(err)
		}
		return o
	}
	b, e := run(true), run(false)
	if n := len(b.p.items); n > 1 || len(b.p.itemOrder) > 2*n+64 || len(b.p.pairs.pending) > 1 {
		t.Errorf("bounded: %d items (%d in order) and %d pending kept", n, len(b.p.itemOrder), len(b.p.pairs.pending))
	}
	if len(e.p.items) < 500 {
		t.Errorf("exact: %d items kept, want every one", len(e.p.items))
	}
	if !reflect.DeepEqual(b.sink.Payloads, e.sink.Payloads) || !reflect.DeepEqual(b.sink.Items(), e.sink.Items()) {
		t.Error("bounded: the emissions differ")
	}
	if !reflect.DeepEqual(b.unpaired, e.unpaired) {
		t.Errorf("pairing reports: bounded %q, exact %q", b.unpaired, e.unpaired)
	}
}
