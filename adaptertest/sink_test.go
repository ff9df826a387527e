package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentwire/agentwire/driver"
)

func TestRecordingSinkOrderAndCopies(t *testing.T) {
	var s RecordingSink
	buf := []byte("abc")
	if err := s.Emit(driver.RunEvent{Type: driver.RunEventChunk, Stream: driver.StreamStdout, Bytes: buf}); err != nil {
		t.Fatal(err)
	}
	copy(buf, "xyz") // a reader reusing its buffer must not corrupt the record
	if err := s.EmitStream(runStarted()); err != nil {
		t.Fatal(err)
	}
	if err := s.Emit(itemEvent(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "hi"})); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Events[0].Bytes); got != "abc" {
		t.Errorf("chunk bytes = %q, want the bytes at emission time", got)
	}
	want := []Emission{{Index: 0}, {Stream: true, Index: 0}, {Index: 1}}
	if fmt.Sprint(s.Order) != fmt.Sprint(want) {
		t.Errorf("Order = %v, want %v", s.Order, want)
	}
	if items := s.Items(); len(items) != 1 || items[0].Text != "hi" {
		t.Errorf("Items() = %v", items)
	}
	if s.Payloads[0].Seq != 0 || !s.Payloads[0].Timestamp.IsZero() {
		t.Errorf("the sink must not stamp payloads")
	}
}

// TestRecordingSinkOrigins: At places the emissions that follow, and
// OnEmit sees each recorded one (not a rejected one).
func TestRecordingSinkOrigins(t *testing.T) {
	var seen []Emission
	s := RecordingSink{FailAfter: 3}
	s.OnEmit = func(e Emission) { seen = append(seen, e) }
	if err := s.EmitStream(runStarted()); err != nil {
		t.Fatal(err)
	}
	s.At(10, 2)
	it := driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: "hi"}
	ev := itemEvent(it)
	if err := s.Emit(ev); err != nil {
		t.Fatal(err)
	}
	s.At(20, 0)
	if err := s.EmitStream(runFinished()); err != nil {
		t.Fatal(err)
	}
	if err := s.EmitStream(runFinished()); !errors.Is(err, ErrSinkFailed) {
		t.Fatal(err)
	}
	want := []Emission{{Stream: true}, {Origin: Origin{10, 2}}, {Stream: true, Index: 1, Origin: Origin{20, 0}}}
	if fmt.Sprint(s.Order) != fmt.Sprint(want) || fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("Order = %v, OnEmit saw %v, want %v", s.Order, seen, want)
	}
	if s.Events[0].Item != ev.Item {
		t.Errorf("the recorded item is a copy, not the emitter's (stored once)")
	}
}

func TestRecordingSinkFailAfter(t *testing.T) {
	s := RecordingSink{FailAfter: 2}
	for i := range 2 {
		if err := s.EmitStream(runStarted()); err != nil {
			t.Fatalf("emission %d: %v", i, err)
		}
	}
	if err := s.Emit(driver.RunEvent{Type: driver.RunEventLifecycle}); !errors.Is(err, ErrSinkFailed) {
		t.Errorf("Emit after FailAfter = %v", err)
	}
	if err := s.EmitStream(runFinished()); !errors.Is(err, ErrSinkFailed) {
		t.Errorf("EmitStream after FailAfter = %v", err)
	}
	if len(s.Order) != 2 {
		t.Errorf("rejected emissions must not be recorded")
	}
}

func TestRecordingSinkDecisions(t *testing.T) {
	s := RecordingSink{Answers: []driver.DecisionResponse{{Result: driver.DecisionApproved}, {RequestID: "own", Result: driver.DecisionRejected}}}
	ctx := context.Background()
	r1, err := s.RequestDecision(ctx, driver.DecisionRequest{RequestID: "a", Kind: driver.HumanDecisionPermission})
	if err != nil || r1.Result != driver.DecisionApproved || r1.RequestID != "a" {
		t.Errorf("first answer = %+v, %v", r1, err)
	}
	r2, _ := s.RequestDecision(ctx, driver.DecisionRequest{RequestID: "b"})
	if r2.Result != driver.DecisionRejected || r2.RequestID != "own" {
		t.Errorf("second answer = %+v", r2)
	}
	if _, err := s.RequestDecision(ctx, driver.DecisionRequest{}); !errors.Is(err, ErrNoScriptedDecision) {
		t.Errorf("exhausted script = %v", err)
	}
	s.Decide = func(_ context.Context, req driver.DecisionRequest) (driver.DecisionResponse, error) {
		return driver.DecisionResponse{Result: driver.DecisionAnswered, Text: req.Prompt}, nil
	}
	if r, _ := s.RequestDecision(ctx, driver.DecisionRequest{Prompt: "why"}); r.Text != "why" {
		t.Errorf("Decide answer = %+v", r)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.RequestDecision(cctx, driver.DecisionRequest{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled = %v", err)
	}
	if len(s.Decisions) != 4 {
		t.Errorf("recorded %d decisions, want 4", len(s.Decisions))
	}
}

func TestRecordingSinkConcurrent(t *testing.T) {
	var s RecordingSink
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_ = s.Emit(driver.RunEvent{Type: driver.RunEventLifecycle})
				_ = s.EmitStream(custom())
			}
		})
	}
	wg.Wait()
	if len(s.Order) != 1600 || len(s.Events) != 800 || len(s.Payloads) != 800 {
		t.Errorf("lost emissions: %d/%d/%d", len(s.Order), len(s.Events), len(s.Payloads))
	}
}

func TestRecordingSinkCheck(t *testing.T) {
	events, resp := validRun()
	var s RecordingSink
	for _, ev := range events {
		_ = s.Emit(ev)
	}
	for _, p := range wrap(textStart("m"), textContent("m", "done"), textEnd("m")) {
		_ = s.EmitStream(p)
	}
	if vs := s.Check(true, allCaps, resp, nil, &testCodec{}); len(vs) != 0 {
		t.Fatalf("false positive:\n%s", vs)
	}
	_ = s.EmitStream(textStart("late"))
	resp.ExitCode = 1
	vs := s.Check(true, allCaps, resp, nil, &testCodec{})
	if !vs.Has("EVT-02") || !vs.Has("RSP-01") {
		t.Fatalf("want EVT-02 and RSP-01, got:\n%s", vs)
	}
	if vs := s.Check(false, allCaps, resp, nil, &testCodec{}); vs.Has("EVT-02") {
		t.Errorf("stream clauses must not run for non-streaming runs")
	}
}
