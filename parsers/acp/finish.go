package acp

import (
	"maps"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// The Response.Metadata keys the parser sets.
const (
	MetaTransport    = "transport"        // always "acp"
	MetaState        = "protocol_state"   // start, initialized, session, turn or done at Finish
	MetaSessionID    = "session_id"       // this run's session, when known
	MetaAgentName    = "agent_name"       // initialize's agentInfo.name
	MetaAgentVersion = "agent_version"    // initialize's agentInfo.version
	MetaProtocol     = "protocol_version" // initialize's protocolVersion
	MetaLoadSession  = "load_session"     // "true"/"false": the agent's loadSession capability
	MetaStopReason   = "stop_reason"      // the last prompt's stopReason
	MetaPrompts      = "prompts"          // session/prompt responses (turns ended), when more than one
	MetaUsageSource  = "usage_source"     // where Usage came from (see the package doc), comma-separated
	MetaContextUsed  = "context_used"     // the last usage_update's used
	MetaContextSize  = "context_size"     // the last usage_update's size
	MetaCost         = "cost"             // the last usage_update's cost ("0.045 USD")
	MetaMode         = "mode"             // the current mode, when the agent reported one
	MetaReplayed     = "replayed"         // history updates of a loaded session, when any
	MetaCancelSent   = "cancel_sent"      // session/cancel notifications on the client side, when any
	MetaMalformed    = "malformed"        // malformed lines and framing errors, when any
	MetaProblem      = "first_problem"    // the first malformed line's reason, when any
	MetaUnknown      = "unknown"          // unknown update kinds, stop reasons and methods, when any
	MetaExtensions   = "extensions"       // vendor extension methods, when any
	MetaOther        = "other_scope"      // messages about another session, when any
	MetaCheckpoint   = "checkpoint"       // why the checkpoint is not valid, when it is not
)

// Finish ends the run with the process outcome: it closes the open
// message and tool calls, emits the one terminal payload (run.finished
// with the Finish, or run.error with the Failure), and returns the
// Response. See the package doc for which runs succeed. Finish may be
// called once.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.done {
		return driver.Response{}, ErrFinished
	}
	if p.opts.Unpaired != nil {
		p.unpairedAtFinish()
	}
	if err := p.closeMessage(); err != nil {
		p.done = true
		return driver.Response{}, err
	}
	if err := p.closeTools("incomplete"); err != nil {
		p.done = true
		return driver.Response{}, err
	}
	p.done = true
	failure, finish := p.outcome(out)
	resp := driver.Response{
		Output:   p.output,
		ExitCode: out.ExitCode,
		Signal:   out.Signal,
		TimedOut: out.TimedOut,
		Failure:  failure,
		Finish:   finish,
		Provider: Provider,
		Model:    p.model,
		Metadata: map[string]string{MetaTransport: "acp", MetaState: p.st.String()},
	}
	m := resp.Metadata
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	count := func(k string, n int) {
		if n > 0 {
			m[k] = strconv.Itoa(n)
		}
	}
	set(MetaSessionID, p.sessionID)
	set(MetaAgentName, p.agentName)
	set(MetaAgentVersion, p.agentVersion)
	set(MetaProtocol, p.protocolVersion)
	if p.initSeen {
		m[MetaLoadSession] = strconv.FormatBool(p.loadSession)
	}
	if p.terminal != nil && p.promptErr == nil {
		m[MetaStopReason] = p.stopReason
	}
	if p.prompts > 1 {
		m[MetaPrompts] = strconv.Itoa(p.prompts)
	}
	set(MetaContextUsed, p.ctxUsed)
	set(MetaContextSize, p.ctxSize)
	set(MetaCost, p.cost)
	set(MetaMode, p.mode)
	count(MetaReplayed, p.replayed)
	count(MetaCancelSent, p.cancelSent)
	if p.malformed > 0 {
		m[MetaMalformed] = strconv.Itoa(p.malformed)
		m[MetaProblem] = p.problem
	}
	count(MetaUnknown, p.unknown)
	count(MetaExtensions, p.extensions)
	count(MetaOther, p.otherScope)
	if p.terminal != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: p.terminal}
	}
	if p.turnUse.meta != nil {
		// A turn that never ended still used tokens.
		p.addUsage(p.turnUse.meta, "update._meta.usage")
		p.turnUse = turnUsage{}
	}
	if p.usage != nil && (failure == nil || failure.Code != driver.FailureProviderError) {
		u := *p.usage
		resp.Usage = &u
		m[MetaUsageSource] = strings.Join(p.sources, ",")
	}
	resp.Checkpoint = p.checkpoint(out, failure, m)

	if err := p.start(); err != nil {
		return resp, err
	}
	if p.terminal != nil {
		tr := driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: p.stopReason, IsError: failure != nil, Usage: resp.Usage, SessionID: p.sessionID}
		if p.promptErr != nil {
			tr.Subtype, tr.Text = "error", p.promptErr.message
		}
		if err := p.em.Item(tr); err != nil {
			return resp, err
		}
	}
	err := p.em.End(&resp, finish, out, "acp")
	return resp, err
}

// outcome decides the run's failure and finish. In this order:
// cancellation, timeout, a prompt that ended with stopReason cancelled, a
// read or driver error (Outcome.Err), a JSON-RPC error on the prompt (a
// provider error typed by its code), a signal, a non-zero exit, an error
// response to another request when no turn ended, a session that ended
// without a prompt response (incomplete), and a client prompt left
// unanswered. Otherwise the run succeeded and its Finish is the last
// stopReason's.
//
// A cancelled run is a cancellation whatever else its stop went through:
// stopping an agent can fail in ways of its own (Qwen Code 0.24.4, killed
// when it outlived the grace, left a process holding the output pipes:
// process reports "output pipes still open"), and that error, in
// Metadata "error", does not turn the cancellation into an agent error.
func (p *Parser) outcome(out Outcome) (*driver.RunFailure, *driver.Finish) {
	meta := func() map[string]any {
		m := map[string]any{"exit_code": out.ExitCode}
		if p.stopReason != "" {
			m["stop_reason"] = p.stopReason
		}
		if out.Err != nil {
			m["error"] = out.Err.Error()
		}
		return m
	}
	fail := func(code driver.FailureCode, msg string) (*driver.RunFailure, *driver.Finish) {
		return &driver.RunFailure{Code: code, Message: msg, Metadata: meta()}, nil
	}
	switch {
	case out.Cancelled || out.TimedOut:
		return emit.Interrupted("acp", out, meta), nil
	case p.terminal != nil && p.promptErr == nil && p.stopReason == "cancelled":
		return fail(driver.FailureCancelled, "prompt turn cancelled (stopReason cancelled)")
	case out.Err != nil:
		return fail(driver.FailureAgentError, "acp run failed: "+out.Err.Error())
	case p.terminal != nil && p.promptErr != nil:
		e := p.promptErr
		m := meta()
		m["code"] = e.code
		if e.data != nil {
			m["data"] = e.data
		}
		return &driver.RunFailure{Code: driver.FailureProviderError, ErrorType: e.code, Message: "session/prompt failed: " + e.message, Metadata: m}, nil
	case out.Signal != "" || out.ExitCode != 0:
		return emit.Exited("acp agent", out, "", meta), nil
	case p.terminal == nil && p.rpcError != "":
		return fail(driver.FailureAgentError, p.rpcError)
	case p.terminal == nil:
		return fail(driver.FailureIncomplete, "acp session ended without a session/prompt response")
	case p.pendingPrompt() != "":
		return fail(driver.FailureIncomplete, "session/prompt (id "+p.pendingPrompt()+") got no response: the session ended before the run's last turn")
	}
	reason, ok := stopReasons[p.stopReason]
	if !ok {
		reason = driver.FinishUnknown
	}
	return nil, &driver.Finish{Reason: reason, Raw: p.stopReason}
}

// pendingPrompt returns the id of a session/prompt the client sent (seen
// through FeedClient) that got no response, or "".
func (p *Parser) pendingPrompt() string { return p.calls.Pending(mSessionPrompt) }

// checkpoint builds the checkpoint from this run's session id and marks
// it Valid only under every condition of contract §9, and only when the
// agent advertised loadSession: a session id is a resume point only for
// an agent that can load it.
func (p *Parser) checkpoint(out Outcome, failure *driver.RunFailure, meta map[string]string) *driver.Checkpoint {
	if p.sessionID == "" {
		return nil
	}
	var data map[string]string
	if len(p.opts.SessionData) > 0 {
		data = maps.Clone(p.opts.SessionData)
	}
	c := sessioncodec.Checkpoint{ID: p.sessionID, Data: data, Clean: out.Clean(), Failed: failure != nil, Malformed: p.malformed, Codec: Codec}
	switch {
	case p.terminal == nil || p.promptErr != nil:
		c.NoTerminal = "no successful session/prompt response"
	case !p.initSeen:
		c.Own = "no initialize response: the agent's loadSession capability is unknown"
	case !p.loadSession:
		c.Own = "the agent did not advertise loadSession"
	}
	return c.Into(meta, MetaCheckpoint)
}
