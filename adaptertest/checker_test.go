package adaptertest

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/driver"
)

// genEmissions draws an arbitrary run, conforming or not: stream payloads
// of every kind (and a few that are no kind) over a handful of ids, with
// and without the members the clauses look at, interleaved with run events
// of every type (chunks of both streams and of none, items of every kind
// and none), each emission told an origin; then a response whose
// transcript and raw streams mirror the emissions or differ from them.
func genEmissions(t *rapid.T, sink interface {
	driver.EventSink
	At(int64, int)
}) driver.Response {
	ids := []string{"", "a", "b"}
	kinds := append(append([]driver.StreamKind(nil), driver.StreamKinds...), "codex/custom", "bogus")
	finishes := []*driver.Finish{nil, {Reason: driver.FinishStop}, {Reason: driver.FinishError}, {Reason: "nonsense"}}
	itemKinds := []driver.TranscriptKind{driver.TranscriptAssistant, driver.TranscriptToolCall, driver.TranscriptToolResult, driver.TranscriptInit, "bogus"}
	var items []driver.TranscriptItem
	var stdout, stderr []byte
	n := rapid.IntRange(0, 40).Draw(t, "n")
	var off int64
	for i := range n {
		if rapid.IntRange(0, 3).Draw(t, "move") == 0 {
			off += int64(rapid.IntRange(1, 100).Draw(t, "advance"))
			sink.At(off, i+1)
		}
		if rapid.Bool().Draw(t, "payload") {
			p := driver.StreamPayload{
				Kind:       rapid.SampledFrom(kinds).Draw(t, "kind"),
				MessageID:  rapid.SampledFrom(ids).Draw(t, "message"),
				ToolCallID: rapid.SampledFrom(ids).Draw(t, "tool"),
				ScopeID:    rapid.SampledFrom([]string{"", "", "s"}).Draw(t, "scope"),
				Name:       rapid.SampledFrom([]string{"", "plan"}).Draw(t, "name"),
				Delta:      rapid.SampledFrom([]string{"", "d"}).Draw(t, "delta"),
				Finish:     rapid.SampledFrom(finishes).Draw(t, "finish"),
			}
			if rapid.Bool().Draw(t, "args") {
				p.Args = map[string]any{"x": 1}
			}
			if p.Kind == driver.StreamRunError && rapid.Bool().Draw(t, "error") {
				p.Error = &driver.RunFailure{Message: "failed"}
			}
			if rapid.IntRange(0, 9).Draw(t, "seq") == 0 {
				p.Seq = 3
			}
			_ = sink.EmitStream(p)
			continue
		}
		ev := driver.RunEvent{Type: rapid.SampledFrom([]driver.RunEventType{driver.RunEventChunk, driver.RunEventItem, driver.RunEventRuntime, "bogus"}).Draw(t, "type")}
		switch ev.Type {
		case driver.RunEventChunk:
			ev.Stream = rapid.SampledFrom([]string{driver.StreamStdout, driver.StreamStderr, "other"}).Draw(t, "stream")
			ev.Bytes = []byte(fmt.Sprint("chunk", i))
			switch ev.Stream {
			case driver.StreamStdout:
				stdout = append(stdout, ev.Bytes...)
			case driver.StreamStderr:
				stderr = append(stderr, ev.Bytes...)
			}
		case driver.RunEventItem:
			if rapid.IntRange(0, 5).Draw(t, "nil_item") > 0 {
				it := driver.TranscriptItem{Kind: rapid.SampledFrom(itemKinds).Draw(t, "item_kind"), Text: rapid.SampledFrom([]string{"", "t"}).Draw(t, "text"),
					ToolName: rapid.SampledFrom([]string{"", "sh"}).Draw(t, "tool_name"), Delta: rapid.Bool().Draw(t, "delta_item")}
				items = append(items, it)
				ev.Item = &it
			}
		}
		if rapid.IntRange(0, 9).Draw(t, "event_seq") == 0 {
			ev.Seq = 2
		}
		_ = sink.Emit(ev)
	}
	sink.At(off+1, 0)
	resp := driver.Response{Finish: rapid.SampledFrom(finishes).Draw(t, "resp_finish"), Transcript: items}
	switch rapid.IntRange(0, 3).Draw(t, "transcript") {
	case 1:
		if len(items) > 0 {
			tr := append([]driver.TranscriptItem(nil), items...)
			tr[rapid.IntRange(0, len(tr)-1).Draw(t, "changed")].Text = "other"
			resp.Transcript = tr
		}
	case 2:
		resp.Transcript = append(append([]driver.TranscriptItem(nil), items...), driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "x"})
	}
	if rapid.Bool().Draw(t, "raw") {
		resp.RawStreams = &driver.RawStreams{Stdout: string(stdout), Stderr: string(stderr)}
		if rapid.Bool().Draw(t, "raw_differs") {
			resp.RawStreams.Stdout += "x"
		}
	}
	if rapid.Bool().Draw(t, "failure") {
		resp.Failure = &driver.RunFailure{Code: driver.FailureProviderError, Message: "m"}
	}
	return resp
}

// TestCheckerMatchesBatch: the Checker, fed emissions as they come, finds
// exactly what the batch validators find over the same emissions recorded,
// and places each violation at the position of its emission among the
// non-chunk emissions and that emission's origin.
func TestCheckerMatchesBatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		streaming := rapid.Bool().Draw(t, "streaming")
		capability := driver.StreamCapability{
			Reasoning: rapid.Bool().Draw(t, "reasoning"), ToolCallArgs: rapid.Bool().Draw(t, "tool_call_args"),
			HITL: rapid.Bool().Draw(t, "hitl"), Finish: rapid.Bool().Draw(t, "finish_cap"),
		}
		rec := &RecordingSink{}
		k := NewChecker(streaming, capability)
		k.Next = rec
		resp := genEmissions(t, k)
		got := k.Report(resp, nil, nil)
		want := rec.Check(streaming, capability, resp, nil, nil)
		if !reflect.DeepEqual(got.All(), want) {
			t.Fatalf("checker:\n%s\nbatch:\n%s", got.All(), want)
		}
		// The places: the document position and origin of each emission.
		payloadAt := map[int]Place{}
		eventAt := map[int]Place{}
		n := 0
		for _, e := range rec.Order {
			switch {
			case e.Stream:
				payloadAt[e.Index] = Place{Index: n, Origin: e.Origin}
			case rec.Events[e.Index].Type == driver.RunEventChunk:
				eventAt[e.Index] = Place{Index: -1}
				continue
			default:
				eventAt[e.Index] = Place{Index: n, Origin: e.Origin}
			}
			n++
		}
		check := func(part string, vs []Placed, at map[int]Place) {
			for _, v := range vs {
				want := Place{Index: -1}
				if v.Index >= 0 {
					want = at[v.Index]
				}
				if v.Place != want {
					t.Fatalf("%s violation %s placed at %+v, want %+v", part, v.Violation, v.Place, want)
				}
			}
		}
		check("stream", got.Stream, payloadAt)
		check("finish", got.Finish, payloadAt)
		check("run", got.Run, eventAt)
		check("response", got.Response, nil)
	})
}

// TestCheckerNextRefuses: an emission the next sink refuses is not judged.
func TestCheckerNextRefuses(t *testing.T) {
	rec := &RecordingSink{FailAfter: 1}
	k := NewChecker(true, driver.StreamCapability{})
	k.Next = rec
	if err := k.EmitStream(runStarted()); err != nil {
		t.Fatal(err)
	}
	if err := k.EmitStream(runStarted()); err != ErrSinkFailed {
		t.Fatalf("second emission: %v, want ErrSinkFailed", err)
	}
	got := k.Report(driver.Response{}, nil, nil).All()
	want := rec.Check(true, driver.StreamCapability{}, driver.Response{}, nil, nil)
	if !reflect.DeepEqual(got, want) || !got.Has("EVT-02") || got.Has("EVT-01") {
		t.Fatalf("got %s\nwant %s (a missing terminal, no second run.started)", got, want)
	}
}

// TestSameItemFields: sameItem compares each of TranscriptItem's fields
// (a new field must be added to it, or RUN-04 could miss a difference in
// it), and is a sufficient condition of reflect.DeepEqual: each field
// changed on its own makes two items differ for it.
func TestSameItemFields(t *testing.T) {
	cost := 1.5
	base := driver.TranscriptItem{ScopeID: "s", ParentScopeID: "p", ParentToolCallID: "c", Kind: driver.TranscriptToolCall,
		Text: "t", Delta: true, ToolUseID: "u", ToolName: "n", Input: map[string]any{"a": 1.0}, IsError: true, Model: "m",
		SessionID: "i", Usage: &driver.Usage{InputTokens: 1}, CostUSD: &cost, Subtype: "b", Errors: []string{"e"},
		Metadata: map[string]string{"k": "v"}, Data: map[string]any{"d": true}}
	typ := reflect.TypeOf(base)
	if typ.NumField() != 18 {
		t.Fatalf("TranscriptItem has %d fields, sameItem compares 18: add the new ones to it and here", typ.NumField())
	}
	cp := base
	if !sameItem(&base, &cp) || !sameItem(&base, &base) {
		t.Fatal("a shallow copy is not the same item")
	}
	for i := range typ.NumField() {
		other := base
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Bool:
			f.SetBool(!f.Bool())
		default:
			// Another reference to an equal value: no longer the same
			// reference, still deeply equal.
			f.Set(reflect.ValueOf(deepCopy(f.Interface())))
			if !reflect.DeepEqual(base, other) {
				t.Fatalf("field %s: the copy differs", typ.Field(i).Name)
			}
		}
		if sameItem(&base, &other) {
			t.Errorf("field %s changed, but sameItem holds the items the same", typ.Field(i).Name)
		}
	}
}

// deepCopy returns a new reference to a value equal to v (one of the
// reference fields of TestSameItemFields' item).
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return maps.Clone(x)
	case map[string]string:
		return maps.Clone(x)
	case []string:
		return slices.Clone(x)
	case *driver.Usage:
		c := *x
		return &c
	case *float64:
		c := *x
		return &c
	}
	panic(fmt.Sprintf("no copy of %T", v))
}

// TestCheckerBounded: a Checker with Bounded forgets each
// lifecycle once it is over, so 20,000 closed text, reasoning and tool
// lifecycles (the calls given their result after tool_call.end, every
// other one never) leave only the calls without a result among the last
// maxAwaiting closed, and an id reused after its end is a new lifecycle;
// the exact Checker keeps every id and reports the reuse (EVT-03, EVT-06,
// EVT-05, and EVT-14 for its second result).
func TestCheckerBounded(t *testing.T) {
	const n = 20_000
	run := func(bounded bool) (*Checker, Report) {
		k := NewChecker(true, driver.StreamCapability{Reasoning: true})
		k.Bounded = bounded
		emit := func(p driver.StreamPayload) { _ = k.EmitStream(p) }
		emit(driver.StreamPayload{Kind: driver.StreamRunStarted})
		for i := range n + 1 {
			id := fmt.Sprint("item_", i%n) // item_0 twice
			emit(driver.StreamPayload{Kind: driver.StreamTextStart, MessageID: id})
			emit(driver.StreamPayload{Kind: driver.StreamTextEnd, MessageID: id})
			emit(driver.StreamPayload{Kind: driver.StreamReasoningStart, MessageID: id})
			emit(driver.StreamPayload{Kind: driver.StreamReasoningEnd, MessageID: id})
			emit(driver.StreamPayload{Kind: driver.StreamToolCallStart, ToolCallID: id, Name: "shell"})
			emit(driver.StreamPayload{Kind: driver.StreamToolCallEnd, ToolCallID: id})
			if i%2 == 0 {
				emit(driver.StreamPayload{Kind: driver.StreamToolCallResult, ToolCallID: id})
			}
		}
		emit(driver.StreamPayload{Kind: driver.StreamRunFinished})
		return k, k.Report(driver.Response{}, nil, nil)
	}
	k, r := run(true)
	if len(r.Stream) != 0 {
		t.Errorf("bounded: %v", r.Stream)
	}
	if s := k.stream; len(s.text.m)+len(s.reasoning.m) != 0 || len(s.tools) != maxAwaiting/2 {
		t.Errorf("bounded: %d text, %d reasoning and %d tool lifecycles kept, want the %d without a result among the last calls closed", len(s.text.m), len(s.reasoning.m), len(s.tools), maxAwaiting/2)
	}
	k, r = run(false)
	var vs Violations
	for _, p := range r.Stream {
		vs = append(vs, p.Violation)
	}
	if want := []string{"EVT-03", "EVT-06", "EVT-05", "EVT-14"}; !reflect.DeepEqual(vs.Clauses(), want) {
		t.Errorf("exact: %v, want the reused item_0 reported: %v", r.Stream, want)
	}
	if s := k.stream; len(s.text.m) != n || len(s.tools) != n {
		t.Errorf("exact: %d text and %d tool lifecycles kept, want %d", len(s.text.m), len(s.tools), n)
	}
}

// TestRunItemsAcrossChunks: RUN-04 over more item events than the
// Checker's first chunks and several of its largest hold (runChunk):
// a transcript equal to them passes, one item changed anywhere is
// reported at its own event and place, and a transcript one item
// shorter or longer is reported for the run as a whole.
func TestRunItemsAcrossChunks(t *testing.T) {
	const n = 3*runChunk + 100
	items := make([]driver.TranscriptItem, n)
	for i := range items {
		items[i] = driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: fmt.Sprint("t", i)}
	}
	feed := func() *Checker {
		k := NewChecker(false, driver.StreamCapability{})
		for i := range items {
			k.At(int64(10*i), i+1)
			if err := k.Emit(driver.RunEvent{Type: driver.RunEventItem, Item: &items[i]}); err != nil {
				t.Fatal(err)
			}
		}
		return k
	}
	if got := feed().Report(driver.Response{Transcript: items}, nil, nil).Run; len(got) != 0 {
		t.Fatalf("equal transcript: %v", got)
	}
	for _, j := range []int{0, 15, 16, 47, 48, runChunk - 1, runChunk, 2*runChunk + 7, n - 1} {
		tr := slices.Clone(items)
		tr[j].Text += "x"
		got := feed().Report(driver.Response{Transcript: tr}, nil, nil).Run
		if len(got) != 1 || got[0].Clause != "RUN-04" || got[0].Index != j || got[0].Place.Index != j || got[0].Place.Origin != (Origin{Offset: int64(10 * j), Line: j + 1}) {
			t.Fatalf("item %d changed: %+v", j, got)
		}
	}
	for _, tr := range [][]driver.TranscriptItem{items[:n-1], append(slices.Clone(items), items[0])} {
		got := feed().Report(driver.Response{Transcript: tr}, nil, nil).Run
		if len(got) != 1 || got[0].Clause != "RUN-04" || got[0].Index != -1 {
			t.Fatalf("transcript of %d items for %d events: %+v", len(tr), n, got)
		}
	}
}
