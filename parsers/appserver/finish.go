package appserver

import (
	"maps"
	"strconv"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// The Response.Metadata keys the parser sets.
const (
	MetaTransport  = "transport"      // always "codex-app-server"
	MetaState      = "protocol_state" // start, thread, turn or done at Finish
	MetaTurnID     = "turn_id"        // the last turn of this run, when known
	MetaUsageScope = "usage_scope"    // "turn": Usage sums this run's turns
	MetaThreadIn   = "thread_input_tokens"
	MetaThreadOut  = "thread_output_tokens"
	MetaMalformed  = "malformed"     // number of malformed lines and framing errors, when any
	MetaProblem    = "first_problem" // the first malformed line's reason, when any
	MetaUnknown    = "unknown"       // number of unmapped methods and item types, when any
	MetaOther      = "other_scope"   // number of notifications about another thread or turn, when any
	MetaCheckpoint = "checkpoint"    // why the checkpoint is not valid, when it is not
)

// Finish ends the run with the process outcome: it resolves approvals
// whose answer is known, closes every open lifecycle, emits the one
// terminal payload (run.finished, or run.error with the Failure), and
// returns the Response.
//
// Failure, in this order of precedence: Outcome.Err (also returned as the
// error), cancellation, timeout, a failed turn (turn.error.message), an
// interrupted turn (code cancelled), a signal, a non-zero exit code, an
// error response to a client request when no turn completed, and a
// session that ended without this run's turn/completed.
//
// RawStreams holds only Terminal; Parse fills in the raw streams. Finish
// may be called once.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.done {
		return driver.Response{}, ErrFinished
	}
	if p.opts.Unpaired != nil {
		p.unpairedAtFinish()
	}
	if err := p.resolvePending(); err != nil {
		p.done = true
		return driver.Response{}, err
	}
	if err := p.closeItems(); err != nil {
		p.done = true
		return driver.Response{}, err
	}
	p.done = true
	failure := p.failure(out)
	resp := driver.Response{
		Output:   p.output,
		ExitCode: out.ExitCode,
		Signal:   out.Signal,
		TimedOut: out.TimedOut,
		Failure:  failure,
		Provider: Provider,
		Metadata: map[string]string{MetaTransport: "codex-app-server", MetaState: p.st.String()},
	}
	if p.turnID != "" {
		resp.Metadata[MetaTurnID] = p.turnID
	}
	if p.terminal != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: p.terminal}
	}
	if p.malformed > 0 {
		resp.Metadata[MetaMalformed] = strconv.Itoa(p.malformed)
		resp.Metadata[MetaProblem] = p.problem
	}
	if p.unknown > 0 {
		resp.Metadata[MetaUnknown] = strconv.Itoa(p.unknown)
	}
	if p.otherScope > 0 {
		resp.Metadata[MetaOther] = strconv.Itoa(p.otherScope)
	}
	p.addTurnUsage() // a turn that never completed still used tokens
	if p.usage != nil {
		u := *p.usage
		resp.Usage = &u
		resp.Metadata[MetaUsageScope] = "turn"
	}
	if p.threadTok != nil {
		resp.Metadata[MetaThreadIn] = strconv.Itoa(p.threadTok.InputTokens)
		resp.Metadata[MetaThreadOut] = strconv.Itoa(p.threadTok.OutputTokens)
	}
	resp.Checkpoint = p.checkpoint(out, failure, resp.Metadata)

	// Hold-back custom payloads of a run that never started.
	if err := p.start(); err != nil {
		return resp, err
	}
	if p.terminal != nil {
		tr := driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: p.turnStatus, IsError: p.turnStatus != "completed", Usage: resp.Usage, Text: p.turnError, SessionID: p.threadID}
		if err := p.em.Item(tr); err != nil {
			return resp, err
		}
	}
	err := p.em.End(&resp, nil, out, "app-server")
	return resp, err
}

func (p *Parser) failure(out Outcome) *driver.RunFailure {
	withLast := func(msg string) string { return emit.WithLast(msg, p.lastError) }
	meta := func() map[string]any {
		m := map[string]any{"exit_code": out.ExitCode}
		if p.lastError != "" {
			m["last_error"] = p.lastError
		}
		if p.turnStatus != "" {
			m["turn_status"] = p.turnStatus
		}
		return m
	}
	if f := emit.Interrupted("app-server", out, meta); f != nil {
		return f
	}
	switch {
	case p.terminal != nil && p.turnStatus == "failed":
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: nonEmpty(p.turnError, withLast("turn failed")), Metadata: meta()}
	case p.terminal != nil && p.turnStatus == "interrupted":
		return &driver.RunFailure{Code: driver.FailureCancelled, Message: withLast("turn interrupted"), Metadata: meta()}
	case out.Signal != "" || out.ExitCode != 0:
		return emit.Exited("app-server", out, p.lastError, meta)
	case p.terminal == nil && p.rpcError != "":
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: p.rpcError, Metadata: meta()}
	case p.terminal == nil:
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: withLast("app-server output ended without turn/completed"), Metadata: meta()}
	case p.pendingTurnStart() != "":
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: "turn/start (id " + p.pendingTurnStart() + ") got no response: the session ended before the run's last turn", Metadata: meta()}
	case p.turnStatus != "completed":
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: "turn/completed with status " + strconv.Quote(p.turnStatus), Metadata: meta()}
	}
	return nil
}

// pendingTurnStart returns the id of a turn/start the client sent (seen
// through FeedClient) that got no response, or "".
func (p *Parser) pendingTurnStart() string { return p.calls.Pending(mTurnStart) }

// checkpoint builds the checkpoint from this run's thread id and marks it
// Valid only under every condition of contract §9.
func (p *Parser) checkpoint(out Outcome, failure *driver.RunFailure, meta map[string]string) *driver.Checkpoint {
	if p.threadID == "" {
		return nil
	}
	var data map[string]string
	if len(p.opts.SessionData) > 0 {
		data = maps.Clone(p.opts.SessionData)
	}
	c := sessioncodec.Checkpoint{ID: p.threadID, Data: data, Clean: out.Clean(), Failed: failure != nil, Malformed: p.malformed, Codec: Codec}
	if p.terminal == nil || p.turnStatus != "completed" {
		c.NoTerminal = "no successful turn/completed"
	}
	return c.Into(meta, MetaCheckpoint)
}
