package emit

import (
	"errors"
	"reflect"
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
