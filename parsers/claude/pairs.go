package claude

import (
	"fmt"
	"slices"

	"github.com/agentwire/agentwire/ndjson"
)

// pairs checks the pairing rules of Claude Code's stream-json for
// Options.Unpaired, in the parser's own pass: every real recording obeys
// them and a capture with a line removed breaks them.
//
//   - The first line that is not a control line (control_request,
//     control_response, control_cancel_request, keep_alive) is the
//     system init line: the session is announced.
//   - When a root success result came, then before the last one: every
//     tool_use block of an assistant message has a tool_result (in a user
//     line anywhere in the stream), every message_stop and
//     content_block_stop has its start in the same scope (the
//     parent_tool_use_id), and every start is stopped.
//
// Bounded (Options.Bounded), the lines are not kept for a
// replay at Finish: the rules run as the lines come (online), keeping the
// starts not yet stopped, the tool_use blocks not yet answered, the
// findings so far (reported at Finish if they precede the last root
// success result) and the starts left open at the latest root success
// result. A tool_result that comes before its tool_use then does not
// answer it.
type pairs struct {
	announced bool
	seq       int // lines seen
	last      int // seq of the last root success result, 0 for none
	results   map[string]bool
	recs      []pairRec
	on        *onlinePairs // bounded
}

type blockKey struct {
	scope string
	index int
}

// onlinePairs is the bounded pass's state (see pairs).
type onlinePairs struct {
	n      int // records seen, their order
	open   map[string]pairRec
	blocks map[blockKey]pairRec
	tools  map[string]pairRec // tool_use blocks without a tool_result yet
	found  []pairFound        // stops without their start
	left   []pairRec          // the starts open at the last root success result
}

type pairFound struct {
	rec pairRec
	msg string
}

// pairRec is a line that takes part in a pairing rule.
type pairRec struct {
	kind  pairKind
	scope string
	id    string // the tool_use id
	index int    // the content block index
	seq   int
	off   int64
	line  int
}

type pairKind uint8

const (
	pairToolUse pairKind = iota
	pairMsgStart
	pairMsgStop
	pairBlockStart
	pairBlockStop
)

func isControl(typ string) bool {
	return typ == "control_request" || typ == "control_response" || typ == "control_cancel_request" || typ == "keep_alive"
}

// pairLine notes a line of type typ (subtype sub for a system line).
func (p *Parser) pairLine(typ string, systemInit bool, off int64, line int) {
	r := &p.pairs
	r.seq++
	if !r.announced && !isControl(typ) {
		r.announced = true
		if !systemInit {
			p.opts.Unpaired(off, line, typ+" line before the system init line: the session announcement is missing")
		}
	}
}

func (p *Parser) pairRec(rec pairRec) {
	rec.seq = p.pairs.seq
	if p.opts.Bounded {
		p.pairOnline(rec)
		return
	}
	p.pairs.recs = append(p.pairs.recs, rec)
}

func (p *Parser) pairResult(id string) {
	if p.opts.Bounded {
		if on := p.pairs.on; on != nil {
			delete(on.tools, id)
		}
		return
	}
	if p.pairs.results == nil {
		p.pairs.results = map[string]bool{}
	}
	p.pairs.results[id] = true
}

// pairOnline applies the rules to rec as it comes (bounded). rec.index
// is reused as the record's order for a tool_use.
func (p *Parser) pairOnline(rec pairRec) {
	on := p.pairs.on
	if on == nil {
		on = &onlinePairs{open: map[string]pairRec{}, blocks: map[blockKey]pairRec{}, tools: map[string]pairRec{}}
		p.pairs.on = on
	}
	on.n++
	switch rec.kind {
	case pairToolUse:
		if _, ok := on.tools[rec.id]; !ok {
			rec.index = on.n
			on.tools[rec.id] = rec
		}
	case pairMsgStart:
		on.open[rec.scope] = rec
	case pairMsgStop:
		if _, ok := on.open[rec.scope]; !ok {
			on.found = append(on.found, pairFound{rec, "message_stop without its message_start"})
		}
		delete(on.open, rec.scope)
	case pairBlockStart:
		on.blocks[blockKey{rec.scope, rec.index}] = rec
	case pairBlockStop:
		k := blockKey{rec.scope, rec.index}
		if _, ok := on.blocks[k]; !ok {
			on.found = append(on.found, pairFound{rec, fmt.Sprintf("content_block_stop of block %d without its content_block_start", rec.index)})
		}
		delete(on.blocks, k)
	}
}

// pairSuccess notes a root success result: the starts open now are the
// ones it leaves open, unless a later one comes (bounded).
func (p *Parser) pairSuccess() {
	p.pairs.last = p.pairs.seq
	on := p.pairs.on
	if on == nil {
		return
	}
	on.left = on.left[:0]
	for _, rec := range on.open {
		on.left = append(on.left, rec)
	}
	for _, rec := range on.blocks {
		on.left = append(on.left, rec)
	}
}

// unpairedOnline is unpairedAtFinish of the bounded pass: the same
// reports in the same order.
func (p *Parser) unpairedOnline() {
	r, on := &p.pairs, p.pairs.on
	if on == nil {
		return
	}
	var found []pairFound
	for _, f := range on.found {
		if f.rec.seq < r.last {
			found = append(found, f)
		}
	}
	for _, rec := range on.tools {
		if rec.seq < r.last {
			found = append(found, pairFound{rec, "tool_use " + rec.id + " has no tool_result, though the turn succeeded"})
		}
	}
	// In line order; within a line, tool_use blocks in block order.
	slices.SortStableFunc(found, func(a, b pairFound) int {
		if a.rec.seq != b.rec.seq {
			return a.rec.seq - b.rec.seq
		}
		return a.rec.index - b.rec.index
	})
	for _, f := range found {
		p.opts.Unpaired(f.rec.off, f.rec.line, f.msg)
	}
	slices.SortFunc(on.left, func(a, b pairRec) int { return a.seq - b.seq })
	for _, rec := range on.left {
		what := "message_start"
		if rec.kind == pairBlockStart {
			what = "content_block_start"
		}
		p.opts.Unpaired(rec.off, rec.line, what+" never stopped, though the turn succeeded")
	}
}

// unpairedAtFinish replays the pairing lines before the last root success
// result.
func (p *Parser) unpairedAtFinish() {
	r := &p.pairs
	if r.last == 0 {
		return
	}
	if p.opts.Bounded {
		p.unpairedOnline()
		return
	}
	open := map[string]pairRec{}
	blocks := map[blockKey]pairRec{}
	seen := map[string]bool{}
	for _, rec := range r.recs {
		if rec.seq >= r.last {
			break
		}
		switch rec.kind {
		case pairToolUse:
			if !r.results[rec.id] && !seen[rec.id] {
				seen[rec.id] = true
				p.opts.Unpaired(rec.off, rec.line, "tool_use "+rec.id+" has no tool_result, though the turn succeeded")
			}
		case pairMsgStart:
			open[rec.scope] = rec
		case pairMsgStop:
			if _, ok := open[rec.scope]; !ok {
				p.opts.Unpaired(rec.off, rec.line, "message_stop without its message_start")
			}
			delete(open, rec.scope)
		case pairBlockStart:
			blocks[blockKey{rec.scope, rec.index}] = rec
		case pairBlockStop:
			k := blockKey{rec.scope, rec.index}
			if _, ok := blocks[k]; !ok {
				p.opts.Unpaired(rec.off, rec.line, fmt.Sprintf("content_block_stop of block %d without its content_block_start", rec.index))
			}
			delete(blocks, k)
		}
	}
	var left []pairRec
	for _, rec := range open {
		left = append(left, rec)
	}
	for _, rec := range blocks {
		left = append(left, rec)
	}
	slices.SortFunc(left, func(a, b pairRec) int { return a.seq - b.seq })
	for _, rec := range left {
		what := "message_start"
		if rec.kind == pairBlockStart {
			what = "content_block_start"
		}
		p.opts.Unpaired(rec.off, rec.line, what+" never stopped, though the turn succeeded")
	}
}

// pairStream notes the message and block starts and stops of a
// stream_event line.
func (p *Parser) pairStream(scope string, ev *sseEvent, f ndjson.Frame) {
	rec := pairRec{scope: scope, index: ev.Index, off: f.Offset, line: f.Line}
	switch ev.Type {
	case "message_start":
		rec.kind = pairMsgStart
	case "message_stop":
		rec.kind = pairMsgStop
	case "content_block_start":
		rec.kind = pairBlockStart
	case "content_block_stop":
		rec.kind = pairBlockStop
	default:
		return
	}
	p.pairRec(rec)
}
