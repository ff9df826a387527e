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

// docSink is the sink a replay gives the parser: it records everything
// in rec unless the replay discards, has check judge each emission (and
// tells both where the frames start), numbers the Document events (every
// emission but chunk events) as they come, records the ones that report
// malformed input, and hands each Document event to live. An emission
// rec or check refuses goes no further.
type docSink struct {
	rec   *adaptertest.RecordingSink // nil when the replay discards
	check *adaptertest.Checker       // nil: not judged
	live  func(i int, ev Event, o Origin)
	at    Origin
	n     int
	bad   []badFrame
	// lastBad is the offset of the last frame in bad (-1 before the
	// first). The origins a replay is told never go back (the frames in
	// order, then Finish at len(stdout)), so a frame's emissions are
	// contiguous and one offset, not a set of them, tells its first.
	lastBad int64
	// With bounded, bad lists the first boundedBad frames only; the
	// others are counted (more), the first and the last of them kept
	// (the last can be a truncated final line, a finding of its own).
	bounded             bool
	more                int
	firstMore, lastMore badFrame
	// stream and run hold the emission being handed to live (Options.Live:
	// valid for the call only), so that an emission costs no allocation.
	stream driver.StreamPayload
	run    driver.RunEvent
}

// badFrame is the first Document event of a frame that a parser reported
// as malformed.
type badFrame struct {
	index int
	at    Origin
	why   string
}

// boundedBad is how many malformed frames a bounded replay lists
// (Options.Bounded).
const boundedBad = 1000

func newDocSink(record, bounded bool, live func(i int, ev Event, o Origin)) *docSink {
	d := &docSink{live: live, lastBad: -1, bounded: bounded}
	if record {
		d.rec = &adaptertest.RecordingSink{}
	}
	return d
}

// At sets the origin of the emissions that follow.
func (d *docSink) At(offset int64, line int) {
	d.at = Origin{Offset: offset, Line: line}
	if d.rec != nil {
		d.rec.At(offset, line)
	}
	if d.check != nil {
		d.check.At(offset, line)
	}
}

// Emit takes a RunEvent; chunk events are recorded (for RUN-01) but are not
// Document events.
func (d *docSink) Emit(ev driver.RunEvent) error {
	if d.rec != nil {
		if err := d.rec.Emit(ev); err != nil {
			return err
		}
		ev = d.rec.Events[len(d.rec.Events)-1]
	}
	if d.check != nil {
		if err := d.check.Emit(ev); err != nil {
			return err
		}
	}
	switch {
	case ev.Type == driver.RunEventChunk:
	case ev.Type == driver.RunEventItem && ev.Item != nil:
		d.event(Event{Item: ev.Item})
	default:
		d.run = ev
		d.event(Event{RunEvent: &d.run})
	}
	return nil
}

// EmitStream takes a StreamPayload.
func (d *docSink) EmitStream(p driver.StreamPayload) error {
	if d.rec != nil {
		if err := d.rec.EmitStream(p); err != nil {
			return err
		}
	}
	d.stream = p
	if d.check != nil {
		if err := d.check.EmitStreamOf(&d.stream); err != nil {
			return err
		}
	}
	d.event(Event{Stream: &d.stream})
	return nil
}

func (d *docSink) event(ev Event) {
	i := d.n
	d.n++
	if why, ok := malformed(ev); ok && d.at.Offset != d.lastBad {
		d.lastBad = d.at.Offset
		b := badFrame{index: i, at: d.at, why: why}
		switch {
		case !d.bounded || len(d.bad) < boundedBad:
			d.bad = append(d.bad, b)
		case d.more == 0:
			d.firstMore = b
			fallthrough
		default:
			d.more++
			d.lastMore = b
		}
	}
	if d.live != nil {
		d.live(i, ev, d.at)
	}
}

// docEvents returns the Document events of what s recorded, with their
// origins.
func docEvents(s *adaptertest.RecordingSink) (events []Event, origins []Origin) {
	for _, e := range s.Order {
		if e.Stream {
			events = append(events, Event{Stream: &s.Payloads[e.Index]})
			origins = append(origins, e.Origin)
			continue
		}
		ev := &s.Events[e.Index]
		switch {
		case ev.Type == driver.RunEventChunk:
			continue
		case ev.Type == driver.RunEventItem && ev.Item != nil:
			events = append(events, Event{Item: ev.Item})
		default:
			events = append(events, Event{RunEvent: ev})
		}
		origins = append(origins, e.Origin)
	}
	if events == nil {
		events = []Event{}
	}
	return events, origins
}
