package corpus

import (
	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

// Origin is where an emission came from: the frame being fed when the
// parser made it (adaptertest.Origin; a replay's sink is told each frame's
// origin through the provider's observer). Emissions made by Finish have
// Offset = len(stdout) and Line 0.
type Origin = adaptertest.Origin

// newSink returns the recording sink of a replay; live, when set, is
// called with every Document event as it is recorded (chunk events are
// recorded for adaptertest.CheckRun but are not Document events), with
// its index among the Document's events and its origin.
func newSink(live func(i int, ev Event, o Origin)) *adaptertest.RecordingSink {
	s := &adaptertest.RecordingSink{}
	if live == nil {
		return s
	}
	n := 0
	s.OnEmit = func(e adaptertest.Emission) {
		var ev Event
		if e.Stream {
			ev = Event{Stream: &s.Payloads[e.Index]}
		} else if d := &s.Events[e.Index]; d.Type == driver.RunEventChunk {
			return
		} else if d.Type == driver.RunEventItem && d.Item != nil {
			ev = Event{Item: d.Item}
		} else {
			ev = Event{RunEvent: d}
		}
		live(n, ev, e.Origin)
		n++
	}
	return s
}

// docEvents returns the Document events of what s recorded and, for each
// payload and each RunEvent, its position among them (-1 for chunk
// events).
func docEvents(s *adaptertest.RecordingSink) (events []Event, payloadAt, eventAt []int, origins []Origin) {
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
