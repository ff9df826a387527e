package corpus

import (
	"github.com/agentwire/agentwire/driver"
)

// Origin is where an emission came from: the frame being fed when the
// parser made it. Offset is the frame's byte offset in stdout and Line its
// 1-based line; emissions made by Finish have Offset = len(stdout) and
// Line 0.
type Origin struct {
	Offset int64
	Line   int
}

// Sink is a driver.EventSink that records every emission in order with its
// Origin. A Parser calls At before feeding each frame. Chunk events are
// recorded in Events (for adaptertest.CheckRun) but are not Document events.
type Sink struct {
	// Events are the RunEvents and Payloads the stream payloads, in the
	// order of their own calls; Order interleaves them.
	Events   []driver.RunEvent
	Payloads []driver.StreamPayload
	Order    []Emission
	// Live, when set, is called with every Document event as it is
	// recorded (chunk events are not Document events), with its origin and
	// its index among the Document's events.
	Live func(i int, ev Event, o Origin)

	at    Origin
	nLive int
}

// Emission is one sink call: a payload (Stream true) or a RunEvent, its
// index in Payloads or Events, and its origin.
type Emission struct {
	Stream bool
	Index  int
	Origin Origin
}

// At sets the origin of the emissions that follow.
func (s *Sink) At(offset int64, line int) { s.at = Origin{Offset: offset, Line: line} }

// Emit records a RunEvent.
func (s *Sink) Emit(ev driver.RunEvent) error {
	if ev.Bytes != nil {
		ev.Bytes = append([]byte(nil), ev.Bytes...)
	}
	if ev.Item != nil {
		it := *ev.Item
		ev.Item = &it
	}
	s.Order = append(s.Order, Emission{Index: len(s.Events), Origin: s.at})
	s.Events = append(s.Events, ev)
	if s.Live != nil && ev.Type != driver.RunEventChunk {
		e := &s.Events[len(s.Events)-1]
		if e.Type == driver.RunEventItem && e.Item != nil {
			s.live(Event{Item: e.Item})
		} else {
			s.live(Event{RunEvent: e})
		}
	}
	return nil
}

func (s *Sink) live(ev Event) {
	s.Live(s.nLive, ev, s.at)
	s.nLive++
}

// EmitStream records a StreamPayload.
func (s *Sink) EmitStream(p driver.StreamPayload) error {
	s.Order = append(s.Order, Emission{Stream: true, Index: len(s.Payloads), Origin: s.at})
	s.Payloads = append(s.Payloads, p)
	if s.Live != nil {
		s.live(Event{Stream: &s.Payloads[len(s.Payloads)-1]})
	}
	return nil
}

// docEvents returns the Document events and, for each payload and each
// RunEvent, its position among them (-1 for chunk events).
func (s *Sink) docEvents() (events []Event, payloadAt, eventAt []int, origins []Origin) {
	payloadAt = make([]int, len(s.Payloads))
	eventAt = make([]int, len(s.Events))
	for _, e := range s.Order {
		if e.Stream {
			payloadAt[e.Index] = len(events)
			events = append(events, Event{Stream: &s.Payloads[e.Index]})
			origins = append(origins, e.Origin)
			continue
		}
		ev := &s.Events[e.Index]
		switch {
		case ev.Type == driver.RunEventChunk:
			eventAt[e.Index] = -1
			continue
		case ev.Type == driver.RunEventItem && ev.Item != nil:
			eventAt[e.Index] = len(events)
			events = append(events, Event{Item: ev.Item})
		default:
			eventAt[e.Index] = len(events)
			events = append(events, Event{RunEvent: ev})
		}
		origins = append(origins, e.Origin)
	}
	if events == nil {
		events = []Event{}
	}
	return events, payloadAt, eventAt, origins
}
