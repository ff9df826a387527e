package process

import (
	"context"
	"sync"

	"github.com/agentwire/agentwire/driver"
)

// Serialize returns a sink whose Emit and EmitStream calls never overlap,
// for sinks that are not safe for concurrent use: the stdout and stderr
// goroutines and the driver's own goroutine may all emit. If sink is a
// driver.DecisionCapableSink, so is the result, and RequestDecision is
// passed through without the lock, so a decision that waits for a human
// never blocks raw capture.
func Serialize(sink driver.EventSink) driver.EventSink {
	s := &serialSink{sink: sink}
	if d, ok := sink.(driver.DecisionCapableSink); ok {
		return &serialDecisionSink{serialSink: s, d: d}
	}
	return s
}

type serialSink struct {
	mu   sync.Mutex
	sink driver.EventSink
}

func (s *serialSink) Emit(ev driver.RunEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sink.Emit(ev)
}

func (s *serialSink) EmitStream(p driver.StreamPayload) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sink.EmitStream(p)
}

type serialDecisionSink struct {
	*serialSink
	d driver.DecisionCapableSink
}

func (s *serialDecisionSink) RequestDecision(ctx context.Context, req driver.DecisionRequest) (driver.DecisionResponse, error) {
	return s.d.RequestDecision(ctx, req)
}
