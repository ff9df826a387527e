package geminicli

import (
	"maps"
	"strconv"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// The Response.Metadata keys the parser sets.
const (
	MetaTransport  = "transport"      // always "gemini-cli-stream-json"
	MetaState      = "protocol_state" // start, session or done at Finish
	MetaModel      = "model"          // the model init named, when it did
	MetaMalformed  = "malformed"      // number of malformed lines and framing errors, when any
	MetaProblem    = "first_problem"  // the first malformed line's reason, when any
	MetaUnknown    = "unknown"        // number of unmapped events, when any
	MetaCheckpoint = "checkpoint"     // why the checkpoint is not valid, when it is not
)

// errCancelled is the error type of the result the CLI writes when its
// own cancellation handler ends the run.
const errCancelled = "FatalCancellationError"

// Finish ends the run with the process outcome: it closes every open
// lifecycle, emits the one terminal payload (run.finished, or run.error
// with the Failure), and returns the Response.
//
// Failure, in this order of precedence: Outcome.Err (returned as the
// error), cancellation, timeout, a result with status error, a signal, a
// non-zero exit code (even after a success result: the exit code wins over
// the stream), and a stream that ended without a result (incomplete).
//
// RawStreams holds only Terminal (the exact bytes of the result line); the
// parser never sees the raw streams, and Parse fills them in. Finish
// returns a non-nil error only for Outcome.Err or a sink error, and may be
// called once.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.done {
		return driver.Response{}, ErrFinished
	}
	if err := p.endMessage(); err != nil {
		p.done = true
		return driver.Response{}, err
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
		Usage:    p.usage,
		Provider: Provider,
		Model:    p.model,
		Metadata: map[string]string{MetaTransport: "gemini-cli-stream-json", MetaState: p.st.String()},
	}
	if p.model != "" {
		resp.Metadata[MetaModel] = p.model
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
	resp.Checkpoint = p.checkpoint(out, failure, resp.Metadata)
	err := p.em.End(&resp, nil, out, "gemini-cli")
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
	if f := emit.Interrupted("gemini-cli", out, meta); f != nil {
		return f
	}
	res := p.result
	switch {
	case res != nil && res.Status != statusSuccess:
		m := meta()
		m["event"] = evResult
		f := &driver.RunFailure{Code: driver.FailureAgentError, Metadata: m}
		switch e := res.Error; {
		case e != nil && e.Message != "":
			f.Message, f.ErrorType = e.Message, e.Type
		case p.lastError != "":
			// A blocked or empty model response: the result says only
			// "error"; the error event before it says why.
			f.Message = p.lastError
		default:
			f.Message = "gemini-cli result status " + strconv.Quote(res.Status)
		}
		if f.ErrorType == errCancelled {
			f.Code = driver.FailureCancelled
		}
		return f
	case out.Signal != "" || out.ExitCode != 0 && res != nil:
		return emit.Exited("gemini-cli", out, p.lastError, meta)
	case res == nil:
		msg := "gemini-cli output ended without a result"
		if out.ExitCode != 0 {
			msg += " (exit code " + strconv.Itoa(out.ExitCode) + ")"
		}
		return &driver.RunFailure{Code: driver.FailureIncomplete, Message: emit.WithLast(msg, p.lastError), Metadata: meta()}
	}
	return nil
}

// checkpoint builds the checkpoint from the session id of init and marks
// it Valid only under every condition of contract §9.
func (p *Parser) checkpoint(out Outcome, failure *driver.RunFailure, meta map[string]string) *driver.Checkpoint {
	if p.sessionID == "" {
		return nil
	}
	var data map[string]string
	if len(p.opts.SessionData) > 0 {
		data = maps.Clone(p.opts.SessionData)
	}
	c := sessioncodec.Checkpoint{ID: p.sessionID, Data: data, Clean: out.Clean(), Failed: failure != nil, Malformed: p.malformed,
		Resume: p.opts.Resume, Noun: "session", Agent: "gemini-cli", Codec: Codec}
	if p.result == nil || p.result.Status != statusSuccess {
		c.NoTerminal = "no success result"
	}
	return c.Into(meta, MetaCheckpoint)
}
