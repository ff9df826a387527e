package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentwire/agentwire/driver"
)

// ErrNoScriptedDecision is returned by RecordingSink.RequestDecision when
// the script has no answer left.
var ErrNoScriptedDecision = errors.New("adaptertest: no scripted decision left")

// ErrSinkFailed is returned by a RecordingSink once FailAfter emissions have
// been accepted, to exercise a driver's handling of sink errors.
var ErrSinkFailed = errors.New("adaptertest: sink failure injected")

// Emission records one sink call in order: Stream tells whether it was
// EmitStream (an index into Payloads) or Emit (an index into Events), and
// Origin where the sink was (At) when the call came.
type Emission struct {
	Stream bool
	Index  int
	Origin Origin
}

// Origin is where an emission came from: the frame being fed when the
// parser made it, as RecordingSink.At was last told. Offset is the frame's
// byte offset in stdout and Line its 1-based line; emissions made by
// Finish have Offset = len(stdout) and Line 0 (provider.Input.Observe's
// convention). It is zero until At is called.
type Origin struct {
	Offset int64
	Line   int
}

// RecordingSink is a driver.DecisionCapableSink that records every call
// verbatim, in emission order, without stamping sequences or times, so the
// validators see exactly what the driver sent. It is safe for concurrent
// use; read the fields after Run has returned.
//
// Decisions are answered from Answers in order; when Answers is exhausted,
// Decide is consulted if set, else ErrNoScriptedDecision is returned. If
// FailAfter is positive, every emission after the first FailAfter returns
// ErrSinkFailed (and is not recorded).
//
// At places the emissions that follow (Emission.Origin); pass it as the
// observer of a parse (provider.Input.Observe) to learn which frame caused
// each emission. OnEmit, when set, is called with every recorded emission
// right after it is recorded, outside the sink's lock (corpus's live
// output uses it).
type RecordingSink struct {
	mu sync.Mutex
	at Origin

	Events    []driver.RunEvent
	Payloads  []driver.StreamPayload
	Order     []Emission
	Decisions []driver.DecisionRequest

	Answers   []driver.DecisionResponse
	Decide    func(ctx context.Context, req driver.DecisionRequest) (driver.DecisionResponse, error)
	FailAfter int
	OnEmit    func(Emission)
}

var _ driver.DecisionCapableSink = (*RecordingSink)(nil)

func (s *RecordingSink) accept() bool {
	return s.FailAfter <= 0 || len(s.Order) < s.FailAfter
}

// At sets the origin of the emissions that follow: the byte offset and
// 1-based line of the frame about to be fed (see Origin).
func (s *RecordingSink) At(offset int64, line int) {
	s.mu.Lock()
	s.at = Origin{Offset: offset, Line: line}
	s.mu.Unlock()
}

// Emit records a RunEvent, with a copy of its Bytes (chunk buffers are
// often reused by readers). Its Item is recorded as given: a parser's
// emitter hands the sink its transcript's own item, stored once, and does
// not change it after emitting it (internal/emit's TestItemStoredOnce).
func (s *RecordingSink) Emit(ev driver.RunEvent) error {
	s.mu.Lock()
	if !s.accept() {
		s.mu.Unlock()
		return ErrSinkFailed
	}
	if ev.Bytes != nil {
		ev.Bytes = append([]byte(nil), ev.Bytes...)
	}
	e := Emission{Index: len(s.Events), Origin: s.at}
	s.Order = append(s.Order, e)
	s.Events = append(s.Events, ev)
	s.mu.Unlock()
	s.emitted(e)
	return nil
}

// EmitStream records a StreamPayload.
func (s *RecordingSink) EmitStream(p driver.StreamPayload) error {
	s.mu.Lock()
	if !s.accept() {
		s.mu.Unlock()
		return ErrSinkFailed
	}
	e := Emission{Stream: true, Index: len(s.Payloads), Origin: s.at}
	s.Order = append(s.Order, e)
	s.Payloads = append(s.Payloads, p)
	s.mu.Unlock()
	s.emitted(e)
	return nil
}

func (s *RecordingSink) emitted(e Emission) {
	if s.OnEmit != nil {
		s.OnEmit(e)
	}
}

// RequestDecision records the request and answers it from the script. It
// honours ctx: a cancelled context returns ctx.Err().
func (s *RecordingSink) RequestDecision(ctx context.Context, req driver.DecisionRequest) (driver.DecisionResponse, error) {
	if err := ctx.Err(); err != nil {
		return driver.DecisionResponse{}, err
	}
	s.mu.Lock()
	s.Decisions = append(s.Decisions, req)
	if len(s.Answers) > 0 {
		a := s.Answers[0]
		s.Answers = s.Answers[1:]
		s.mu.Unlock()
		if a.RequestID == "" {
			a.RequestID = req.RequestID
		}
		return a, nil
	}
	decide := s.Decide
	s.mu.Unlock()
	if decide != nil {
		return decide(ctx, req)
	}
	return driver.DecisionResponse{}, fmt.Errorf("%w (request %d, kind %s)", ErrNoScriptedDecision, len(s.Decisions), req.Kind)
}

// Items returns the transcript items of the recorded item events, in order.
func (s *RecordingSink) Items() []driver.TranscriptItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	var items []driver.TranscriptItem
	for _, ev := range s.Events {
		if ev.Type == driver.RunEventItem && ev.Item != nil {
			items = append(items, *ev.Item)
		}
	}
	return items
}

// Check runs every validator over what the sink recorded and the run's
// outcome: CheckStream and CheckFinish when streaming (with capability),
// CheckRun (which applies the TRN clauses to every item) and CheckResponse.
func (s *RecordingSink) Check(streaming bool, capability driver.StreamCapability, resp driver.Response, runErr error, codec driver.SessionCodec) Violations {
	s.mu.Lock()
	events := append([]driver.RunEvent(nil), s.Events...)
	payloads := append([]driver.StreamPayload(nil), s.Payloads...)
	s.mu.Unlock()
	var out Violations
	if streaming {
		out = append(out, CheckStream(capability, payloads)...)
		out = append(out, CheckFinish(capability, payloads, resp)...)
	}
	out = append(out, CheckRun(events, resp)...)
	out = append(out, CheckResponse(resp, runErr, codec)...)
	return out
}
