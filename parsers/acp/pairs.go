package acp

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/agentwire/agentwire/internal/rpcbook"
	"github.com/agentwire/agentwire/jsonrpc"
)

// pairs checks the pairing rules of an ACP session for Options.Unpaired,
// in the parser's own pass: every real recording obeys them and a capture
// with a line removed breaks them.
//
//   - A session/prompt response comes after the session's set-up (a
//     session/new or session/load response, or Options.SessionID).
//   - A tool_call_update names a call that a tool_call (or a permission
//     request) announced.
//   - When a turn ended (a session/prompt response) other than by
//     cancellation, every tool call announced before it was completed or
//     failed by then.
//   - When a turn ended, every client request of the session (initialize,
//     session/new, session/load, session/resume, session/prompt) has its
//     response in stdout, and, with the client side fed, every agent
//     request before it has the client's answer.
//
// Bounded (Options.Bounded), an announced call is kept only
// until it is completed or failed (pending), so that the state is the
// calls open, not every id.
type pairs struct {
	seq      int // session/update notifications seen
	terminal int // seq at the last terminal, 0 for none
	tools    []announced
	pending  map[string]announced // bounded: announced, not completed or failed
	client   rpcbook.Pairing      // the client's session requests and the responses to them
	requests []agentReq
}

type announced struct {
	id   string
	seq  int
	off  int64
	line int
}

type agentReq struct {
	key, method string
	off         int64
	line        int
}

// pairTool notes a tool_call.
func (p *Parser) pairTool(f *jsonrpc.Frame, id string) {
	a := announced{id, p.pairs.seq, f.Offset, f.Line}
	if !p.opts.Bounded {
		p.pairs.tools = append(p.pairs.tools, a)
		return
	}
	if p.pairs.pending == nil {
		p.pairs.pending = map[string]announced{}
	}
	p.pairs.pending[id] = a
}

// pairResponse notes a response of stdout.
func (p *Parser) pairResponse(f *jsonrpc.Frame) { p.pairs.client.Responded(f.ID.Key()) }

// pairClient notes a request of the client side.
func (p *Parser) pairClient(f *jsonrpc.Frame) {
	switch m := string(f.Method); m {
	case mInitialize, mSessionNew, mSessionLoad, mSessionResume, mSessionPrompt:
		p.pairs.client.Track(m, f.ID.Key(), f.Line)
	}
}

// unpairedAtFinish reports what the last terminal leaves without a
// partner.
func (p *Parser) unpairedAtFinish() {
	r := &p.pairs
	if p.terminal == nil {
		return
	}
	if p.stopReason != "cancelled" || p.promptErr != nil {
		for _, t := range r.tools {
			ts := p.tools[t.id]
			if t.seq <= r.terminal && ts != nil && ts.status != "completed" && ts.status != "failed" {
				p.opts.Unpaired(t.off, t.line, fmt.Sprintf("tool call %s announced but never completed or failed, though the turn ended", t.id))
			}
		}
		// Bounded, the calls announced and not completed or failed (as
		// the exact pass, which reads the status at the end).
		for _, t := range slices.SortedFunc(maps.Values(r.pending), func(a, b announced) int { return cmp.Compare(a.off, b.off) }) {
			if ts := p.tools[t.id]; t.seq <= r.terminal && (ts == nil || ts.status != "completed" && ts.status != "failed") {
				p.opts.Unpaired(t.off, t.line, fmt.Sprintf("tool call %s announced but never completed or failed, though the turn ended", t.id))
			}
		}
	}
	r.client.Unanswered(func(msg string) { p.opts.Unpaired(-1, 0, msg) })
	if p.client {
		for _, q := range r.requests {
			if _, ok := p.answers[q.key]; !ok {
				p.opts.Unpaired(q.off, q.line, fmt.Sprintf("agent request %s (id %s) has no answer on the client side", q.method, rpcbook.IDText(q.key)))
			}
		}
	}
}
