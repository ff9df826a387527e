package emit

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// TestPropertyAnyCallOrderIsValid drives an Emitter with random calls in any
// order (reused ids, deltas for closed ids, args after complete args,
// forbidden families, double closes, calls after Finish) and requires the
// emitted stream to pass CheckStream and the transcript to mirror the item
// events.
func TestPropertyAnyCallOrderIsValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capability := driver.StreamCapability{
			Reasoning:    rapid.Bool().Draw(t, "reasoning"),
			ToolCallArgs: rapid.Bool().Draw(t, "args"),
			HITL:         rapid.Bool().Draw(t, "hitl"),
		}
		sink := &adaptertest.RecordingSink{}
		e := New(sink, true, capability)
		bounded := rapid.Bool().Draw(t, "bounded")
		if bounded {
			e.Bounded()
		}
		ids := rapid.SampledFrom([]string{"a", "b", "c"})
		scopes := rapid.SampledFrom([]string{"", "sub"})
		fams := rapid.SampledFrom([]Family{Text, Reasoning, Tool})
		n := rapid.IntRange(0, 40).Draw(t, "calls")
		for range n {
			switch rapid.IntRange(0, 14).Draw(t, "call") {
			case 0:
				_ = e.Start("r", "th", "tu")
			case 1:
				_, _ = e.Open(fams.Draw(t, "fam"), scopes.Draw(t, "scope"), ids.Draw(t, "id"))
			case 2:
				var args map[string]any
				if rapid.Bool().Draw(t, "complete") {
					args = map[string]any{"cmd": "ls"}
				}
				_, _ = e.OpenTool(scopes.Draw(t, "scope"), ids.Draw(t, "id"), rapid.SampledFrom([]string{"", "shell"}).Draw(t, "name"), args, "", rapid.SampledFrom([]string{"", "a"}).Draw(t, "parent"))
			case 3:
				_ = e.Delta(rapid.SampledFrom([]Family{Text, Reasoning}).Draw(t, "fam"), scopes.Draw(t, "scope"), ids.Draw(t, "id"), rapid.SampledFrom([]string{"", "x", "é"}).Draw(t, "delta"))
			case 4:
				_ = e.ToolArgs(scopes.Draw(t, "scope"), ids.Draw(t, "id"), rapid.SampledFrom([]string{"", "{"}).Draw(t, "delta"))
			case 5:
				_ = e.Close(fams.Draw(t, "fam"), scopes.Draw(t, "scope"), ids.Draw(t, "id"), map[string]any{"ok": true})
			case 6:
				_, _ = e.ToolResult(scopes.Draw(t, "scope"), ids.Draw(t, "id"), nil)
			case 7:
				_ = e.StepStarted(rapid.SampledFrom([]string{"", "s", "t"}).Draw(t, "step"))
			case 8:
				_ = e.StepFinished(rapid.SampledFrom([]string{"s", "t"}).Draw(t, "step"))
			case 9:
				_ = e.HITLRequested(driver.HITLRequestedPayload{RequestID: "1"})
			case 10:
				_ = e.HITLResolved(driver.HITLResolvedPayload{RequestID: "1"})
			case 11:
				_ = e.Dropped(2, map[string]any{"why": "lag"})
			case 12:
				_ = e.Custom(rapid.SampledFrom([]string{"", "codex"}).Draw(t, "provider"), rapid.SampledFrom([]string{"", "todo"}).Draw(t, "event"), driver.StreamPayload{Seq: 3, Role: driver.RoleUser, Raw: map[string]any{"k": 1}})
			case 13:
				_ = e.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "x"})
			case 14:
				var f *driver.RunFailure
				if rapid.Bool().Draw(t, "fail") {
					f = &driver.RunFailure{Code: driver.FailureAgentError}
				}
				_ = e.Finish(&driver.Usage{OutputTokens: 1}, f)
			}
		}
		if !e.Finished() {
			if err := e.Finish(nil, nil); err != nil {
				t.Fatalf("Finish: %v", err)
			}
		}
		if bounded {
			// Judged as it was made: a bounded Checker.
			if vs := judgeBounded(capability, sink.Payloads); len(vs) != 0 {
				t.Fatalf("bounded emitter produced an invalid stream:\n%s", vs)
			}
			return
		}
		if vs := adaptertest.CheckStream(capability, sink.Payloads); len(vs) != 0 {
			t.Fatalf("emitter produced an invalid stream:\n%s", vs)
		}
		if !reflect.DeepEqual(sink.Items(), e.Transcript()) && !(len(sink.Items()) == 0 && len(e.Transcript()) == 0) {
			t.Fatalf("transcript does not mirror the item events")
		}
		if e.Payloads() != len(sink.Payloads) {
			t.Fatalf("Payloads() = %d, sink saw %d", e.Payloads(), len(sink.Payloads))
		}
	})
}

func TestReuseGetsFreshID(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, true, driver.StreamCapability{})
	_ = e.Delta(Text, "", "item_1", "a")
	_ = e.Close(Text, "", "item_1", nil)
	_ = e.Delta(Text, "", "item_1", "b")
	_ = e.Finish(nil, nil)
	var got []string
	for _, p := range sink.Payloads {
		got = append(got, string(p.Kind)+" "+p.MessageID)
	}
	want := []string{"run.started ", "text.start item_1", "text.content item_1", "text.end item_1", "text.start item_1#2", "text.content item_1#2", "text.end item_1#2", "run.finished "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestNotStreamingEmitsItemsOnly(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, false, driver.StreamCapability{Reasoning: true})
	_ = e.Delta(Text, "", "m", "hi")
	_ = e.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "hi"})
	_ = e.Finish(nil, nil)
	if len(sink.Payloads) != 0 || len(sink.Events) != 1 || e.Payloads() != 0 {
		t.Errorf("payloads %d events %d", len(sink.Payloads), len(sink.Events))
	}
	if err := e.Delta(Text, "", "m", "late"); !errors.Is(err, ErrFinished) {
		t.Errorf("after Finish: %v", err)
	}
}

func TestSinkErrorIsSticky(t *testing.T) {
	sink := &adaptertest.RecordingSink{FailAfter: 2}
	e := New(sink, true, driver.StreamCapability{})
	_ = e.Start("", "t", "")
	_, _ = e.Open(Text, "", "m")
	if err := e.Delta(Text, "", "m", "x"); !errors.Is(err, adaptertest.ErrSinkFailed) {
		t.Fatalf("Delta = %v", err)
	}
	if err := e.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "x"}); !errors.Is(err, adaptertest.ErrSinkFailed) {
		t.Errorf("Item after failure = %v", err)
	}
	if err := e.Event(driver.RunEvent{Type: driver.RunEventLifecycle}); !errors.Is(err, adaptertest.ErrSinkFailed) || !errors.Is(e.Err(), adaptertest.ErrSinkFailed) {
		t.Errorf("Event after failure = %v", err)
	}
}

// TestDeltaOfLastLifecycleAfterSinkError: a delta of the lifecycle opened
// last, which Delta takes without Open, returns the sticky sink error like
// any other call, also for a family the capability leaves out (no payload
// to send), and emits nothing more.
func TestDeltaOfLastLifecycleAfterSinkError(t *testing.T) {
	for _, f := range []Family{Text, Reasoning} {
		sink := &adaptertest.RecordingSink{FailAfter: 3}
		e := New(sink, true, driver.StreamCapability{})
		if err := e.Delta(f, "", "m", "a"); err != nil {
			t.Fatalf("%s: first delta = %v", f, err)
		}
		for e.Err() == nil {
			_ = e.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "a"})
		}
		n := len(sink.Payloads)
		if err := e.Delta(f, "", "m", "b"); !errors.Is(err, adaptertest.ErrSinkFailed) {
			t.Errorf("%s: delta after the sink failed = %v", f, err)
		}
		if len(sink.Payloads) != n {
			t.Errorf("%s: %d payloads after the failure", f, len(sink.Payloads)-n)
		}
	}
}

func TestFinishFailure(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, true, driver.StreamCapability{})
	_ = e.StepStarted("a")
	_ = e.StepStarted("b")
	_, _ = e.OpenTool("", "t", "", nil, "", "t")
	_ = e.Finish(nil, &driver.RunFailure{Code: driver.FailureCancelled})
	last := sink.Payloads[len(sink.Payloads)-1]
	if last.Kind != driver.StreamRunError || last.Error.Message != "run failed" {
		t.Errorf("terminal = %+v", last)
	}
	if vs := adaptertest.CheckStream(driver.StreamCapability{}, sink.Payloads); len(vs) != 0 {
		t.Errorf("invalid: %s", vs)
	}
	if sink.Payloads[1].Name != "a" || sink.Payloads[3].Name != "unknown" {
		t.Errorf("payloads %+v", sink.Payloads)
	}
	if Text.String() != "text" || Tool.String() != "tool" || Reasoning.String() != "reasoning" || Family(9).String() != "family(9)" {
		t.Errorf("Family.String")
	}
	if e.IsOpen(Tool, "", "t") || !e.Started() {
		t.Errorf("IsOpen/Started")
	}
}

// TestLifecyclesReleased: a closed text or reasoning lifecycle, and a tool
// call once closed and given its result, are forgotten but for their
// incarnation count, so a reused id still gets its fresh suffix; a closed
// tool call without a result stays, for its tool_call.result.
func TestLifecyclesReleased(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, true, driver.StreamCapability{Reasoning: true})
	for range 3 {
		_ = e.Delta(Text, "", "m", "x")
		_ = e.Close(Text, "", "m", nil)
	}
	_, _ = e.OpenTool("", "t", "shell", nil, "", "")
	_ = e.Close(Tool, "", "t", nil)
	if kept := e.kept(); kept != 1 {
		t.Errorf("%d lifecycles kept, want only the tool awaiting its result", kept)
	}
	if ok, _ := e.ToolResult("", "t", map[string]any{"ok": true}); !ok {
		t.Error("no result for the closed call")
	}
	if kept, n := e.kept(), e.lives.get(key{Text, "", "m"}).n; kept != 0 || n != 3 {
		t.Errorf("%d lifecycles kept, text m had %d incarnations", kept, n)
	}
	if ok, _ := e.ToolResult("", "t", nil); ok {
		t.Error("a second result for one call")
	}
	_ = e.Finish(nil, nil)
	var ids []string
	for _, p := range sink.Payloads {
		if p.Kind == driver.StreamTextStart {
			ids = append(ids, p.MessageID)
		}
	}
	if !reflect.DeepEqual(ids, []string{"m", "m#2", "m#3"}) {
		t.Errorf("text ids %v", ids)
	}
	if v := adaptertest.CheckStream(driver.StreamCapability{Reasoning: true}, sink.Payloads); len(v) > 0 {
		t.Errorf("violations %v", v)
	}
}

// judgeBounded is what a bounded Checker (Checker.Bounded) finds in a
// stream.
func judgeBounded(capability driver.StreamCapability, payloads []driver.StreamPayload) adaptertest.Violations {
	k := adaptertest.NewChecker(true, capability)
	k.Bounded = true
	for _, p := range payloads {
		_ = k.EmitStream(p)
	}
	var vs adaptertest.Violations
	for _, p := range k.Report(driver.Response{}, nil, nil).Stream {
		vs = append(vs, p.Violation)
	}
	return vs
}

// TestBoundedForgets: a bounded Emitter (Bounded) keeps nothing
// of a lifecycle once it is over, so a run of 80,000 closed lifecycles
// keeps only the last maxAwaiting tool calls closed without a result (the
// calls closed with their result in tool_call.end, as codex's, among
// them); a reused id opens a new lifecycle under the same id. Without
// it, every id stays (its incarnation count), and a reused id is given
// its fresh suffix (TestReuseGetsFreshID).
func TestBoundedForgets(t *testing.T) {
	const n = 20_000
	run := func(bounded bool) (*Emitter, *adaptertest.RecordingSink) {
		sink := &adaptertest.RecordingSink{}
		e := New(sink, true, driver.StreamCapability{Reasoning: true})
		if bounded {
			e.Bounded()
		}
		for i := range n {
			id := "item_" + strconv.Itoa(i)
			_ = e.Delta(Text, "", id, "x")
			_ = e.Close(Text, "", id, nil)
			_ = e.Delta(Reasoning, "", id, "x")
			_ = e.Close(Reasoning, "", id, nil)
			_, _ = e.OpenTool("", id, "shell", map[string]any{"command": "ls"}, "", "")
			_ = e.Close(Tool, "", id, map[string]any{"exit_code": 0})
			_, _ = e.OpenTool("", id+"r", "shell", nil, "", "")
			_ = e.Close(Tool, "", id+"r", nil)
			_, _ = e.ToolResult("", id+"r", map[string]any{"ok": true})
		}
		_ = e.Delta(Text, "", "item_0", "again")
		_ = e.Finish(nil, nil)
		return e, sink
	}
	e, sink := run(true)
	if e.lives.len() > maxAwaiting {
		t.Errorf("bounded: %d ids kept after %d closed lifecycles, want at most %d", e.lives.len(), 4*n, maxAwaiting)
	}
	if p := sink.Payloads[len(sink.Payloads)-4]; p.Kind != driver.StreamTextStart || p.MessageID != "item_0" {
		t.Errorf("bounded: the reused id opened %s %q, want text.start \"item_0\"", p.Kind, p.MessageID)
	}
	if vs := judgeBounded(driver.StreamCapability{Reasoning: true}, sink.Payloads); len(vs) != 0 {
		t.Errorf("bounded: %v", vs)
	}
	if vs := adaptertest.CheckStream(driver.StreamCapability{Reasoning: true}, sink.Payloads); !reflect.DeepEqual(vs.Clauses(), []string{"EVT-03"}) {
		t.Errorf("the exact judge of the bounded stream found %v, want the reopened item_0 (EVT-03)", vs)
	}
	e, sink = run(false)
	if e.lives.len() < 4*n {
		t.Errorf("exact: %d ids kept, want every one of %d", e.lives.len(), 4*n)
	}
	if p := sink.Payloads[len(sink.Payloads)-4]; p.MessageID != "item_0#2" {
		t.Errorf("exact: the reused id opened %s %q, want item_0#2", p.Kind, p.MessageID)
	}
}

// TestBoundedAwaiting: a bounded Emitter keeps the last maxAwaiting tool
// calls closed without their result, for their tool_call.result, and
// emits no result for an older one; what it emits passes the bounded
// Checker, which keeps more of them.
func TestBoundedAwaiting(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, true, driver.StreamCapability{})
	e.Bounded()
	const n = maxAwaiting + 500
	for i := range n {
		id := "call_" + strconv.Itoa(i)
		_, _ = e.OpenTool("", id, "read", nil, "", "")
		_ = e.Close(Tool, "", id, nil)
	}
	if e.kept() != maxAwaiting {
		t.Errorf("%d calls kept, want %d", e.kept(), maxAwaiting)
	}
	for i := range n {
		ok, err := e.ToolResult("", "call_"+strconv.Itoa(i), map[string]any{"ok": true})
		if err != nil || ok != (i >= n-maxAwaiting) {
			t.Fatalf("call %d of %d: result emitted %v (%v)", i, n, ok, err)
		}
	}
	if e.kept() != 0 {
		t.Errorf("%d calls kept after their results", e.kept())
	}
	_ = e.Finish(nil, nil)
	if vs := judgeBounded(driver.StreamCapability{}, sink.Payloads); len(vs) != 0 {
		t.Errorf("%v", vs)
	}
}

// TestItemStoredOnce: the sink is given the transcript's own item (a
// shallow copy once the chunks are joined: the same strings and maps), the
// transcript is joined at its exact size, once, and items keep coming
// after it; with DiscardTranscript nothing is kept and each item is the
// sink's.
func TestItemStoredOnce(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, false, driver.StreamCapability{})
	for _, n := range []int{10, 3000, 1} {
		for i := range n {
			_ = e.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: string(rune('a' + i%26)), Metadata: map[string]string{"i": ""}})
		}
		tr := e.Transcript()
		// Past the first chunk (16 items) the chunks are joined exactly.
		if len(tr) != len(sink.Events) || len(tr) > 16 && cap(tr) != len(tr) {
			t.Fatalf("%d items emitted, the transcript has %d (room %d)", len(sink.Events), len(tr), cap(tr))
		}
		for i := range tr {
			got, want := sink.Events[i].Item, &tr[i]
			if got.Text != want.Text || reflect.ValueOf(got.Metadata).UnsafePointer() != reflect.ValueOf(want.Metadata).UnsafePointer() {
				t.Fatalf("item %d: the sink's %+v is not the transcript's %+v", i, *got, *want)
			}
		}
		if again := e.Transcript(); &again[0] != &tr[0] || len(again) != len(tr) {
			t.Fatal("a second Transcript joined the chunks again")
		}
	}
	// Within the chunk being filled, the sink's item is the transcript's.
	f := New(sink, false, driver.StreamCapability{})
	_ = f.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "x"})
	if sink.Events[len(sink.Events)-1].Item != &f.Transcript()[0] {
		t.Error("the sink's item is a copy")
	}
	d := New(&adaptertest.RecordingSink{}, false, driver.StreamCapability{})
	d.DiscardTranscript()
	_ = d.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "x"})
	if len(d.Transcript()) != 0 {
		t.Error("DiscardTranscript kept an item")
	}
}

func (e *Emitter) kept() int {
	n := 0
	e.lives.each(func(en entry) {
		if en.l != nil && en.l != e.last {
			n++
		}
	})
	if e.last != nil {
		n++ // in lives or not (Emitter.lives)
	}
	return n
}

// TestFinishClosesInOpeningOrder: Finish closes what is open in the order
// it was opened, the last one opened (which lives may not hold yet)
// included, and a closed id reopened after others gets its fresh suffix.
func TestFinishClosesInOpeningOrder(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, true, driver.StreamCapability{Reasoning: true})
	_ = e.Delta(Text, "", "a", "x")
	_ = e.Close(Text, "", "a", nil)
	_, _ = e.Open(Reasoning, "", "r")
	_, _ = e.OpenTool("", "t", "shell", nil, "", "")
	if id, _ := e.Open(Text, "", "a"); id != "a#2" {
		t.Errorf("reopened a is %q, want a#2", id)
	}
	_ = e.Finish(nil, nil)
	var ends []string
	for _, p := range sink.Payloads {
		switch p.Kind {
		case driver.StreamTextEnd, driver.StreamReasoningEnd:
			ends = append(ends, p.MessageID)
		case driver.StreamToolCallEnd:
			ends = append(ends, p.ToolCallID)
		}
	}
	if want := []string{"a", "r", "t", "a#2"}; !slices.Equal(ends, want) {
		t.Errorf("ends %q, want %q", ends, want)
	}
	if vs := adaptertest.CheckStream(driver.StreamCapability{Reasoning: true}, sink.Payloads); len(vs) != 0 {
		t.Errorf("invalid: %s", vs)
	}
}

// mapCounts is a Counts of a map, as a parser's record of its ids.
type mapCounts map[key]int

func (m mapCounts) Count(f Family, id string) int       { return m[key{f, "", id}] }
func (m mapCounts) SetCount(f Family, id string, n int) { m[key{f, "", id}] = n }

// TestUseCountsSameStream drives an Emitter with its own record and one
// with UseCounts by the same random calls (reused ids, overlapping
// lifecycles, results before and after the end, calls closed with their
// result) and requires the same payloads, and that the one with
// UseCounts keeps nothing of scope "" once it is over.
func TestUseCountsSameStream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capability := driver.StreamCapability{Reasoning: true, ToolCallArgs: true}
		own, counted := &adaptertest.RecordingSink{}, &adaptertest.RecordingSink{}
		a, b := New(own, true, capability), New(counted, true, capability)
		c := mapCounts{}
		b.UseCounts(c)
		ids := rapid.SampledFrom([]string{"a", "b", "c"})
		scopes := rapid.SampledFrom([]string{"", "", "sub"})
		fams := rapid.SampledFrom([]Family{Text, Reasoning, Tool})
		n := rapid.IntRange(0, 60).Draw(t, "calls")
		for range n {
			scope, id := scopes.Draw(t, "scope"), ids.Draw(t, "id")
			both := func(f func(e *Emitter)) { f(a); f(b) }
			switch rapid.IntRange(0, 5).Draw(t, "call") {
			case 0:
				f := fams.Draw(t, "fam")
				both(func(e *Emitter) { _, _ = e.Open(f, scope, id) })
			case 1:
				f := rapid.SampledFrom([]Family{Text, Reasoning}).Draw(t, "fam")
				both(func(e *Emitter) { _ = e.Delta(f, scope, id, "x") })
			case 2:
				f := fams.Draw(t, "fam")
				both(func(e *Emitter) { _ = e.Close(f, scope, id, nil) })
			case 3:
				both(func(e *Emitter) { _ = e.CloseWithResult(scope, id, map[string]any{"ok": true}) })
			case 4:
				both(func(e *Emitter) { _, _ = e.ToolResult(scope, id, nil) })
			case 5:
				both(func(e *Emitter) { _, _ = e.OpenTool(scope, id, "shell", nil, "", "") })
			}
		}
		both := []*Emitter{a, b}
		for _, e := range both {
			if err := e.Finish(nil, nil); err != nil {
				t.Fatalf("Finish: %v", err)
			}
		}
		if !reflect.DeepEqual(own.Payloads, counted.Payloads) {
			t.Fatalf("UseCounts changed the stream:\nown     %v\ncounted %v", kinds(own.Payloads), kinds(counted.Payloads))
		}
		if vs := adaptertest.CheckStream(capability, counted.Payloads); len(vs) != 0 {
			t.Fatalf("invalid stream:\n%s", vs)
		}
		for f := range b.lives.ids {
			for id, en := range b.lives.ids[f] {
				if l := en.l; l == nil || !l.open && l.resulted {
					t.Fatalf("%s %q of scope \"\" kept though over", Family(f), id)
				}
			}
		}
	})
}

func kinds(ps []driver.StreamPayload) []string {
	var out []string
	for _, p := range ps {
		out = append(out, string(p.Kind)+" "+p.MessageID+p.ToolCallID)
	}
	return out
}

// TestCloseWithResult: a call closed with its result is over: the
// Emitter keeps only its count (a reused id gets its fresh suffix) and a
// later ToolResult emits nothing; Close keeps the call for its result.
func TestCloseWithResult(t *testing.T) {
	sink := &adaptertest.RecordingSink{}
	e := New(sink, true, driver.StreamCapability{})
	_, _ = e.OpenTool("", "t", "shell", map[string]any{"command": "ls"}, "", "")
	_ = e.CloseWithResult("", "t", map[string]any{"output": "x"})
	if kept := e.kept(); kept != 0 {
		t.Errorf("%d lifecycles kept after CloseWithResult", kept)
	}
	if ok, _ := e.ToolResult("", "t", nil); ok {
		t.Error("a result after CloseWithResult")
	}
	_ = e.CloseWithResult("", "t", nil) // not open: nothing
	_, _ = e.OpenTool("", "t", "shell", nil, "", "")
	_ = e.Finish(nil, nil)
	got := kinds(sink.Payloads)
	want := []string{"run.started ", "tool_call.start t", "tool_call.end t", "tool_call.start t#2", "tool_call.end t#2", "run.finished "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if p := sink.Payloads[2]; p.Result["output"] != "x" {
		t.Errorf("tool_call.end result %v", p.Result)
	}
	if v := adaptertest.CheckStream(driver.StreamCapability{}, sink.Payloads); len(v) > 0 {
		t.Errorf("violations %v", v)
	}
}

// TestCustomRawIsCustom: CustomRaw emits what Custom emits for a payload
// of Raw alone, run.started first, empty names replaced, after other
// payloads and after Finish.
func TestCustomRawIsCustom(t *testing.T) {
	a, b := &adaptertest.RecordingSink{}, &adaptertest.RecordingSink{}
	ea, eb := New(a, true, driver.StreamCapability{}), New(b, true, driver.StreamCapability{})
	raws := []map[string]any{{"k": 1}, nil, {"type": "x"}}
	for i, ev := range []string{"todo", "", "todo", "other", "todo"} {
		raw := raws[i%len(raws)]
		errA := ea.Custom("codex", ev, driver.StreamPayload{Raw: raw})
		errB := eb.CustomRaw("codex", ev, raw)
		if errA != errB {
			t.Fatalf("errors %v and %v", errA, errB)
		}
		if i == 2 {
			_ = ea.Delta(Text, "", "m", "x")
			_ = eb.Delta(Text, "", "m", "x")
			_ = ea.Custom("", "e", driver.StreamPayload{Raw: raw})
			_ = eb.CustomRaw("", "e", raw)
		}
	}
	_, _ = ea.Finish(nil, nil), eb.Finish(nil, nil)
	if errA, errB := ea.Custom("codex", "x", driver.StreamPayload{}), eb.CustomRaw("codex", "x", nil); errA != ErrFinished || errB != ErrFinished {
		t.Fatalf("after Finish: %v, %v", errA, errB)
	}
	if !reflect.DeepEqual(a.Payloads, b.Payloads) {
		t.Fatalf("Custom %v\nCustomRaw %v", a.Payloads, b.Payloads)
	}
}
