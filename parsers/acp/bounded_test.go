package acp

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
// (synthSession, then 3,000 calls), Bounded gives the emissions and pairing
// reports of the exact parse while it forgets a tool call once it is over (but the last maxDone, for their late updates): its state is what
// is open, not every id.
func TestBoundedSameRun(t *testing.T) {
	// A short session, then 3,000 calls that end at once and a late
	// update of the last one, before the prompt response.
	data := synthSession(200_000)
	end := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	var calls bytes.Buffer
	call := func(id, status string) {
		calls.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"aa1be1cb-e083-47a3-8271-416a108c723d","update":{"sessionUpdate":"tool_call","toolCallId":"` + id + `","status":"` + status + `","title":"ls","kind":"execute"}}}` + "\n")
	}
	for i := range 3000 {
		call("call_"+strconv.Itoa(i), "completed")
	}
	call("call_2999", "completed")
	data = append(append(data[:end:end], calls.Bytes()...), data[end:]...)
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
	if n := len(b.p.tools); n > maxDone || len(b.p.toolOrder) > 2*n+64 || len(b.p.pairs.pending) > 1 {
		t.Errorf("bounded: %d calls (%d in order) and %d pending kept, want at most %d", n, len(b.p.toolOrder), len(b.p.pairs.pending), maxDone)
	}
	if len(e.p.tools) < 2*maxDone {
		t.Errorf("exact: %d calls kept, want every one (more than %d)", len(e.p.tools), 2*maxDone)
	}
	if !reflect.DeepEqual(b.sink.Payloads, e.sink.Payloads) || !reflect.DeepEqual(b.sink.Items(), e.sink.Items()) {
		t.Error("bounded: the emissions differ")
	}
	if !reflect.DeepEqual(b.unpaired, e.unpaired) {
		t.Errorf("pairing reports: bounded %q, exact %q", b.unpaired, e.unpaired)
	}
}
