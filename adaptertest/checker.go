package adaptertest

import (
	"sync"

	"github.com/agentwire/agentwire/driver"
)

// Checker is the incremental form of the validators: a driver.EventSink
// that judges each emission as it arrives and keeps only what the clauses
// need of the ones before (the open and closed lifecycles by id, the last
// terminal, a digest and length of each chunk stream, a reference to each
// transcript item for RUN-04), never the emissions themselves. Its Report
// holds exactly what CheckStream, CheckFinish, CheckRun and CheckResponse
// give over the same emissions recorded (they are a Checker given a
// recorded sequence; TestCheckerMatchesBatch holds them equal under random
// streams), and places each violation: the position of its emission among
// the emissions other than chunk events, and the Origin the Checker was
// last told with At.
//
// A Checker is safe for concurrent use. An item event's Item is kept by
// reference, as RecordingSink keeps it: the parser must not change it after
// emitting it (internal/emit's TestItemStoredOnce).
type Checker struct {
	// Next, when set, receives every emission first; one it refuses (an
	// error) is not checked, and the error is returned.
	Next driver.EventSink
	// DiscardTranscript, set before the first emission, says the run's
	// parser keeps no transcript (a parser's Options.DiscardTranscript,
	// outside the driver contract): RUN-04 is not judged, and no item is
	// kept for it, so that a long run costs the Checker no memory per
	// item.
	DiscardTranscript bool
	// Bounded, set before the first emission, says the run's parser
	// forgets each lifecycle once it is over (a parser's Options.Bounded,
	// outside the driver contract), and has the Checker judge it the same
	// way, so that a long run costs it memory for the lifecycles open,
	// not per id: a text, reasoning or tool lifecycle is forgotten once
	// closed (a tool call once it also has its result, or once 4096 more
	// calls have been closed without theirs). So an id reused after its
	// lifecycle is over is taken for a new lifecycle, not reported
	// (EVT-03, EVT-05, EVT-06), and a result for a call forgotten is
	// reported as for a call never started; the Checker without it is the
	// exact judge.
	Bounded bool

	mu        sync.Mutex
	streaming bool
	cap       driver.StreamCapability
	at        Origin
	n         int // emissions other than chunk events so far
	payloads  int
	events    int
	stream    *streamState
	fin       finishState
	run       runState
}

var _ driver.EventSink = (*Checker)(nil)

// NewChecker returns a Checker for one run. streaming says whether the run
// asked for stream payloads: the stream clauses (CheckStream, CheckFinish)
// apply only then, as RecordingSink.Check applies them; capability is the
// parser's or driver's stream capability.
func NewChecker(streaming bool, capability driver.StreamCapability) *Checker {
	k := &Checker{streaming: streaming, cap: capability, stream: newStreamState(capability), fin: finishState{terminal: -1}}
	k.stream.c.placing = true
	k.run.c.placing = true
	return k
}

// Place is where an offending emission stands: Index is its position among
// the run's emissions other than chunk events (the order of corpus's
// Document events), -1 for a chunk event or a violation of the run as a
// whole; Origin is the frame it came from (see At), zero when Index is -1.
type Place struct {
	Index  int
	Origin Origin
}

// Placed is a violation with the place of its emission.
type Placed struct {
	Violation
	Place Place
}

// Report is what a Checker found, in the validators' order: Stream is
// CheckStream's result, Finish CheckFinish's (both empty when the run is
// not streaming), Run CheckRun's and Response CheckResponse's (whose
// violations all concern the run as a whole).
type Report struct {
	Stream, Finish, Run, Response []Placed
}

// All returns the violations of the report in order, as RecordingSink.Check
// returns them.
func (r Report) All() Violations {
	var out Violations
	for _, part := range [][]Placed{r.Stream, r.Finish, r.Run, r.Response} {
		for _, p := range part {
			out = append(out, p.Violation)
		}
	}
	return out
}

// At sets the origin of the emissions that follow: the byte offset and
// 1-based line of the frame about to be fed (provider.Input.Observe's
// convention). When Next has an At method of the same shape (a
// RecordingSink), it is told too.
func (k *Checker) At(offset int64, line int) {
	k.mu.Lock()
	k.at = Origin{Offset: offset, Line: line}
	k.mu.Unlock()
	if a, ok := k.Next.(interface{ At(int64, int) }); ok {
		a.At(offset, line)
	}
}

// Emit checks a RunEvent (after Next accepted it).
func (k *Checker) Emit(ev driver.RunEvent) error {
	if k.Next != nil {
		if err := k.Next.Emit(ev); err != nil {
			return err
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if ev.Type == driver.RunEventChunk {
		k.run.c.at = Place{Index: -1}
	} else {
		k.run.c.at = Place{Index: k.n, Origin: k.at}
		k.n++
	}
	k.run.noItems = k.DiscardTranscript
	k.run.event(k.events, &ev)
	k.events++
	return nil
}

// EmitStream checks a StreamPayload (after Next accepted it). A payload of
// a run that is not streaming counts as an emission but is not judged, as
// RecordingSink.Check does not judge it.
func (k *Checker) EmitStream(p driver.StreamPayload) error { return k.EmitStreamOf(&p) }

// EmitStreamOf is EmitStream given the payload by reference, for a sink
// in front of the Checker that holds the payload already (a payload is
// some 300 bytes, copied at every call by value): the Checker reads *p
// during the call and keeps no reference to it.
func (k *Checker) EmitStreamOf(p *driver.StreamPayload) error {
	if k.Next != nil {
		if err := k.Next.EmitStream(*p); err != nil {
			return err
		}
	}
	k.mu.Lock()
	at := Place{Index: k.n, Origin: k.at}
	k.n++
	if k.streaming {
		k.stream.bounded = k.Bounded
		k.stream.c.at = at
		k.stream.feed(k.payloads, p)
		k.fin.payload(k.payloads, p, at)
	}
	k.payloads++
	k.mu.Unlock()
	return nil
}

// Report ends the run: it applies the end-of-stream rules and those that
// need the response, runErr and codec (see CheckResponse), and returns
// every violation found. Call it once, after the last emission.
func (k *Checker) Report(resp driver.Response, runErr error, codec driver.SessionCodec) Report {
	k.mu.Lock()
	defer k.mu.Unlock()
	var r Report
	if k.streaming {
		k.stream.finish()
		r.Stream = k.stream.c.placed()
		fc := collector{placing: true}
		k.fin.check(&fc, k.cap, resp)
		r.Finish = fc.placed()
	}
	k.run.noItems = k.DiscardTranscript
	k.run.finish(resp)
	r.Run = k.run.c.placed()
	for _, v := range CheckResponse(resp, runErr, codec) {
		r.Response = append(r.Response, Placed{Violation: v, Place: Place{Index: -1}})
	}
	return r
}
