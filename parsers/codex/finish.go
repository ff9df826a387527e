package codex

import (
	"maps"
	"strconv"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// The SessionState.Data keys the parser writes besides Options.SessionData,
// when turn.completed reported the thread's running usage totals: those
// totals, so that a run resuming this checkpoint can report its own share.
const (
	KeyUsageInput       = "codex.usage.input_tokens"
	KeyUsageCachedInput = "codex.usage.cached_input_tokens"
	KeyUsageOutput      = "codex.usage.output_tokens"
)

// The Response.Metadata keys the parser sets.
const (
	MetaTransport  = "transport"      // always "codex-exec-jsonl"
	MetaState      = "protocol_state" // start, thread, turn or done at Finish
	MetaUsageScope = "usage_scope"    // "run" or "thread_total"
	MetaMalformed  = "malformed"      // number of malformed lines and framing errors, when any
	MetaProblem    = "first_problem"  // the first malformed line's reason, when any
	MetaUnknown    = "unknown"        // number of unmapped events and items, when any
	MetaCheckpoint = "checkpoint"     // why the checkpoint is not valid, when it is not
)

// Finish ends the run with the process outcome: it closes every open
// lifecycle, emits the one terminal payload (run.finished, or run.error
// with the Failure), and returns the Response.
//
// Failure, in this order of precedence: Outcome.Err (returned as the
// error, the terminal is run.error), cancellation, timeout, turn.failed,
// a signal, a non-zero exit code (even after turn.completed: the exit code
// wins over the stream), and a stream that ended without turn.completed
// (interrupted runs write no terminal line). The message includes the last
// top-level error event's message when there was one.
//
// RawStreams holds only Terminal (the exact bytes of the turn.completed or
// turn.failed line); the parser never sees the raw streams, and Parse
// fills them in. Finish returns a non-nil error only for Outcome.Err or a
// sink error, and may be called once.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.done {
		return driver.Response{}, ErrFinished
	}
	p.done = true
	if p.opts.Unpaired != nil {
		p.unpairedAtFinish()
	}
	failure := p.failure(out)
	resp := driver.Response{
		Output:   p.output,
		ExitCode: out.ExitCode,
		Signal:   out.Signal,
		TimedOut: out.TimedOut,
		Failure:  failure,
		Provider: Provider,
		Metadata: map[string]string{MetaTransport: "codex-exec-jsonl", MetaState: p.st.String()},
	}
	if p.terminal != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: p.terminal}
	}
	if p.malformed > 0 {
		resp.Metadata[MetaMalformed] = strconv.Itoa(p.malformed)
		resp.Metadata[MetaProblem] = p.firstProblem
	}
	if p.unknown > 0 {
		resp.Metadata[MetaUnknown] = strconv.Itoa(p.unknown)
	}
	if p.usage != nil {
		u, scope := p.runUsage()
		resp.Usage = u
		resp.Metadata[MetaUsageScope] = scope
	}
	resp.Checkpoint = p.checkpoint(out, failure, resp.Metadata)
	err := p.em.End(&resp, nil, out, "codex")
	return resp, err
}

// failure decides the run's Failure from the outcome and the stream.
func (p *Parser) failure(out Outcome) *driver.RunFailure {
	meta := func() map[string]any {
		m := map[string]any{"exit_code": out.ExitCode}
		if p.lastError != "" {
			m["last_error"] = p.lastError
		}
		return m
	}
	if f := emit.Interrupted("codex", out, meta); f != nil {
		return f
	}
	if p.turnFailed != "" {
		m := meta()
		m["event"] = evTurnFailed
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: p.turnFailed, Metadata: m}
	}
	if f := emit.Exited("codex", out, p.lastError, meta); f != nil {
		return f
	}
	if p.terminal == nil {
		return &driver.RunFailure{Code: driver.FailureAgentError, Message: emit.WithLast("codex output ended without turn.completed", p.lastError), Metadata: meta()}
	}
	return nil
}

// runUsage returns the usage to report and its scope. When the figures
// are process totals (see UsageTotals) they are this run's ("run"). When
// they are the thread's running totals, a fresh thread's totals are the
// run's own ("run"); after a resume, with Options.Resume holding the totals
// the previous run stored for the same thread and none of them above the
// new ones, the difference is this run's share ("run"); otherwise the
// totals are reported as they are ("thread_total").
func (p *Parser) runUsage() (*driver.Usage, string) {
	u := *p.usage
	r := p.opts.Resume
	if !p.threadTotals || r == nil {
		return &u, "run"
	}
	if r.ResumeID != p.threadID {
		return &u, "thread_total"
	}
	in, ok1 := atoi(r.Data[KeyUsageInput])
	cached, ok2 := atoi(r.Data[KeyUsageCachedInput])
	outp, ok3 := atoi(r.Data[KeyUsageOutput])
	if !ok1 || !ok2 || !ok3 || in > u.InputTokens || cached > u.CachedInputTokens || outp > u.OutputTokens {
		return &u, "thread_total"
	}
	return &driver.Usage{InputTokens: u.InputTokens - in, CachedInputTokens: u.CachedInputTokens - cached, OutputTokens: u.OutputTokens - outp}, "run"
}

func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// checkpoint builds the checkpoint from the thread id of thread.started and
// marks it Valid only under every condition of contract §9.
func (p *Parser) checkpoint(out Outcome, failure *driver.RunFailure, meta map[string]string) *driver.Checkpoint {
	if p.threadID == "" {
		return nil
	}
	data := make(map[string]string, len(p.opts.SessionData)+3)
	maps.Copy(data, p.opts.SessionData)
	for _, k := range []string{KeyUsageInput, KeyUsageCachedInput, KeyUsageOutput} {
		delete(data, k)
	}
	if p.usage != nil && p.threadTotals {
		data[KeyUsageInput] = strconv.Itoa(p.usage.InputTokens)
		data[KeyUsageCachedInput] = strconv.Itoa(p.usage.CachedInputTokens)
		data[KeyUsageOutput] = strconv.Itoa(p.usage.OutputTokens)
	}
	if len(data) == 0 {
		data = nil
	}
	c := sessioncodec.Checkpoint{ID: p.threadID, Data: data, Clean: out.Clean(), Failed: failure != nil, Malformed: p.malformed,
		Resume: p.opts.Resume, Noun: "thread", Agent: "codex", Codec: Codec}
	if p.terminal == nil || p.terminal.Event != evTurnCompleted {
		c.NoTerminal = "no turn.completed"
	}
	return c.Into(meta, MetaCheckpoint)
}
