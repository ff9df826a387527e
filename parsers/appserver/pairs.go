package appserver

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/agentwire/agentwire/internal/rpcbook"
	"github.com/agentwire/agentwire/jsonrpc"
)

// pairs checks the pairing rules of the app-server protocol for
// Options.Unpaired, in the parser's own pass: every real recording obeys
// them and a capture with a line removed breaks them.
//
//   - Every turn/completed ends a turn whose turn/started came before.
//   - When a terminal came (turn/completed, or codex/event/task_complete
//     of the builds before 0.59), every tool item started before the last
//     terminal is completed (message, reasoning and user items of a
//     retried stream are abandoned, so they are not held to it).
//   - When a terminal came, every client request of the session
//     (initialize, thread/start, thread/resume, turn/start) has its
//     response in stdout.
//
// Bounded (Options.Bounded), a tool item is kept only from its
// item/started to its item/completed (pending), so that the state is the
// items open, not every id: an item/completed that comes before its
// item/started then does not pair with it.
type pairs struct {
	seq      int // notifications seen
	terminal int // seq of the last terminal, 0 for none
	turns    map[string]bool
	started  []startedItem          // the tool items started (their item/completed: itemState.completed)
	pending  map[string]startedItem // bounded: started, not completed
	client   rpcbook.Pairing        // the client's session requests and the responses to them
}

type startedItem struct {
	id, typ string
	seq     int
	off     int64
	line    int
}

// pairNotification notes a notification of this session (any thread).
func (p *Parser) pairNotification(f *jsonrpc.Frame, pr *params) {
	r := &p.pairs
	r.seq++
	switch string(f.Method) {
	case mTurnStarted:
		if pr.Turn != nil {
			if r.turns == nil {
				r.turns = map[string]bool{}
			}
			r.turns[pr.Turn.ID] = true
		}
	case mTurnCompleted:
		r.terminal = r.seq
		if pr.Turn != nil && !r.turns[pr.Turn.ID] {
			p.opts.Unpaired(f.Offset, f.Line, "turn/completed of turn "+pr.Turn.ID+" without its turn/started")
		}
	case "codex/event/task_complete":
		r.terminal = r.seq
	}
}

// pairItem notes item/started and item/completed of an item.
func (p *Parser) pairItem(f *jsonrpc.Frame, it *wireItem, started bool) {
	r := &p.pairs
	if started {
		switch it.Type {
		case "agentMessage", "reasoning", "userMessage":
		default:
			si := startedItem{it.ID, it.Type, r.seq, f.Offset, f.Line}
			if !p.opts.Bounded {
				r.started = append(r.started, si)
				break
			}
			if r.pending == nil {
				r.pending = map[string]startedItem{}
			}
			if _, ok := r.pending[it.ID]; !ok {
				r.pending[it.ID] = si
			}
		}
		return
	}
	if p.opts.Bounded {
		delete(r.pending, it.ID)
	}
	// Otherwise the item's state records it (itemState.completed): the
	// parser keeps every item's, and a set of its own cost a map insert
	// per item.
}

// pairResponse notes a response of stdout.
func (p *Parser) pairResponse(f *jsonrpc.Frame) { p.pairs.client.Responded(f.ID.Key()) }

// pairClient notes a request of the client side.
func (p *Parser) pairClient(f *jsonrpc.Frame) {
	switch m := string(f.Method); m {
	case "initialize", "thread/start", "thread/resume", mTurnStart:
		p.pairs.client.Track(m, f.ID.Key(), f.Line)
	}
}

// unpairedAtFinish reports what the terminal leaves without a partner.
func (p *Parser) unpairedAtFinish() {
	r := &p.pairs
	if r.terminal == 0 {
		return
	}
	started := r.started
	if len(r.pending) > 0 {
		started = slices.SortedFunc(maps.Values(r.pending), func(a, b startedItem) int { return cmp.Compare(a.seq, b.seq) })
	}
	for _, it := range started {
		if s := p.items[it.id]; it.seq < r.terminal && (s == nil || !s.completed) {
			p.opts.Unpaired(it.off, it.line, fmt.Sprintf("item %s (%s) started but never completed, though the turn ended", it.id, it.typ))
		}
	}
	r.client.Unanswered(func(msg string) { p.opts.Unpaired(-1, 0, msg) })
}
