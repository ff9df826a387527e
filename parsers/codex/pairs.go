package codex

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// pairs checks the pairing rules of `codex exec --json` for
// Options.Unpaired, in the parser's own pass over the lines: every real
// recording obeys them and a capture with a line removed breaks them.
//
//   - The first event that is not a warning (an error event or an error
//     item) is thread.started: the session is announced.
//   - The first terminal (turn.completed, turn.failed) follows a
//     turn.started.
//   - When a terminal came, every item started before it is completed
//     (by an item.completed before the stream ends).
//
// Bounded (Options.Bounded), an item started before the first
// terminal is kept only until it is completed (pending), so that the
// state is the items open, not every id: an item.completed that comes
// before its item.started then does not pair with it.
type pairs struct {
	announced, turn, terminal bool
	started                   []startedItem // before the first terminal
	// completed holds the ids of the item.completed events that noteItem
	// did not record (Parser.noted): of unknown or malformed items.
	completed map[string]bool
	pending   map[string]startedItem // bounded: started, not completed
}

type startedItem struct {
	id, typ string
	off     int64
	line    int
}

// pair notes the event typ of line (offset off, line n) after its handler
// ran: p.scratch then holds the item of an item event.
func (p *Parser) pair(typb []byte, off int64, n int) {
	r := &p.pairs
	typ := string(typb) // compared only, not kept: no allocation
	if !r.announced && typ != evError && !(typ == evItemCompleted && p.scratch.Type == itError) {
		r.announced = true
		if typ != evThreadStarted {
			p.opts.Unpaired(off, n, typ+" before any thread.started: the session announcement is missing")
		}
	}
	switch typ {
	case evTurnStarted:
		r.turn = true
	case evTurnCompleted, evTurnFailed:
		if !r.terminal {
			r.terminal = true
			if !r.turn {
				p.opts.Unpaired(off, n, typ+" without a turn.started before it")
			}
		}
	case evItemStarted:
		switch {
		case r.terminal:
		case p.opts.Bounded:
			if r.pending == nil {
				r.pending = map[string]startedItem{}
			}
			if _, ok := r.pending[p.scratch.ID]; !ok {
				r.pending[p.scratch.ID] = startedItem{p.scratch.ID, p.scratch.Type, off, n}
			}
		default:
			r.started = append(r.started, startedItem{p.scratch.ID, p.scratch.Type, off, n})
		}
	case evItemCompleted:
		switch {
		case p.opts.Bounded:
			delete(r.pending, p.scratch.ID)
		case p.noted:
			// noteItem recorded the completion (completedItem), which
			// Finish reads: a session's every item would otherwise be a
			// second map entry here. An item started lately, as nearly
			// every one completed was, leaves started: it cannot be
			// reported (a recorded completion stays), and a session's
			// started items then cost what is open, not one entry each.
			r.forget(p.scratch.ID)
		default:
			if r.completed == nil {
				r.completed = map[string]bool{}
			}
			r.completed[p.scratch.ID] = true
		}
	}
}

// recentStarts is how many of the latest started items forget looks at.
const recentStarts = 4

// forget removes the latest entry of id among the last recentStarts of
// started, if any.
func (r *pairs) forget(id string) {
	for i := len(r.started) - 1; i >= 0 && i >= len(r.started)-recentStarts; i-- {
		if r.started[i].id == id {
			r.started = append(r.started[:i], r.started[i+1:]...)
			return
		}
	}
}

// unpairedAtFinish reports the items started before the terminal and
// never completed.
func (p *Parser) unpairedAtFinish() {
	if !p.pairs.terminal {
		return
	}
	started := p.pairs.started
	if len(p.pairs.pending) > 0 {
		started = slices.SortedFunc(maps.Values(p.pairs.pending), func(a, b startedItem) int { return cmp.Compare(a.off, b.off) })
	}
	for _, it := range started {
		if !p.pairs.completed[it.id] && !p.completedItem(it.id) {
			p.opts.Unpaired(it.off, it.line, fmt.Sprintf("item %s (%s) started but never completed, though the turn ended", it.id, it.typ))
		}
	}
}
