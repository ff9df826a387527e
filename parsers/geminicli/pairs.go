package geminicli

import (
	"fmt"
	"slices"
)

// pairs checks the pairing rules of stream-json for Options.Unpaired, in
// the parser's own pass over the lines: every real recording obeys them
// and a capture with a line removed breaks them.
//
//   - The first event is init: the session is announced.
//   - Every tool_result follows the tool_use of its tool_id (checked by
//     toolResult).
//   - When the result came, every tool_use has had its tool_result (the
//     CLI writes each result before the next model request).
type pairs struct {
	announced bool
}

// pairFirst notes the event typ of line (offset off, line n) before its
// handler runs.
func (p *Parser) pairFirst(typ []byte, off int64, n int) {
	if p.pairs.announced {
		return
	}
	p.pairs.announced = true
	if string(typ) != evInit {
		p.opts.Unpaired(off, n, string(typ)+" before any init: the session announcement is missing")
	}
}

// unpairedAtFinish reports the tool calls still waiting for their result
// when the result came, in stream order.
func (p *Parser) unpairedAtFinish() {
	if p.terminal == nil {
		return
	}
	type open struct {
		id string
		t  *toolState
	}
	var left []open
	for id, t := range p.tools {
		left = append(left, open{id, t})
	}
	slices.SortFunc(left, func(a, b open) int { return int(a.t.off - b.t.off) })
	for _, o := range left {
		p.opts.Unpaired(o.t.off, o.t.line, fmt.Sprintf("tool_use %s (%s) without a tool_result, though the run reached its result", o.id, o.t.name))
	}
}
