package claude

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/anthropicapi"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// Response.Metadata keys.
const (
	MetaTransport  = "transport"           // always "claude-stream-json"
	MetaState      = "protocol_state"      // idle, running or result at Finish
	MetaVersion    = "claude_code_version" // from system/init
	MetaMalformed  = "malformed"           // number of malformed lines and framing errors, when any
	MetaProblem    = "first_problem"       // the first malformed line's reason, when any
	MetaUnknown    = "unknown"             // number of custom payloads for unmapped types, when any
	MetaCheckpoint = "checkpoint"          // why the checkpoint is not valid, when it is not
)

// whyInvalid names the first contract condition an invalid checkpoint
// missed.
func (p *Parser) whyInvalid(out Outcome, failure *driver.RunFailure, st *driver.SessionState) string {
	switch {
	case !out.Clean():
		return "unclean process outcome"
	case failure != nil:
		return "run failed"
	case p.malformed > 0:
		return "malformed protocol"
	case p.sidChanged:
		return "session id changed mid-stream"
	case p.result == nil:
		return "no result"
	case !p.success:
		return "result is not a success"
	case p.result.SessionID == "":
		return "result without session_id"
	case p.result.SessionID != p.sid:
		return "result session_id differs from the announced one"
	case !sessioncodec.Accepts(Codec, st):
		return "codec does not round-trip the state"
	}
	return "invalid"
}

// Finish ends the run: it records the partial blocks no snapshot
// confirmed, closes every open lifecycle, emits the one terminal payload
// (run.finished with the usage, or run.error with the failure) and returns
// the Response. RawStreams carries only the Terminal (the exact bytes of
// the last root result line); the caller that holds the raw bytes fills
// Stdout and Stderr (Parse does). The error is non-nil only for an
// infrastructure problem: out.Err or a sink error; the checkpoint is then
// never valid.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.state == stateFinished {
		return driver.Response{}, ErrFinished
	}
	if p.opts.Unpaired != nil {
		p.unpairedAtFinish()
	}
	for _, m := range p.msgOrder {
		if !m.abandoned {
			if err := p.abandon(m); err != nil {
				break
			}
		}
	}
	resp := driver.Response{ExitCode: out.ExitCode, Signal: out.Signal, TimedOut: out.TimedOut, Provider: Provider, Model: p.model}
	if r := p.result; r != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: &driver.TerminalPayload{Event: "result", JSON: p.terminal}}
		if r.Usage != nil {
			resp.Usage = normUsage(*r.Usage)
		}
		if p.success && r.Result != nil {
			resp.Output = *r.Result
		}
		if s := r.Structured; p.success && s.raw != nil {
			resp.StructuredOutput = &driver.StructuredOutput{Format: "json", Source: driver.StructuredOutputNative,
				RawJSON: s.raw, Value: s.v, Valid: true}
		}
	}
	if resp.Usage == nil {
		resp.Usage = p.fallbackUsage()
	}
	resp.Failure = p.failure(out)
	if r := p.result; r != nil && r.StopReason != "" && resp.Failure == nil {
		resp.Finish = &driver.Finish{Reason: anthropicapi.FinishReason(r.StopReason), Raw: r.StopReason}
	}
	resp.Checkpoint = p.checkpoint(out, resp.Failure)
	meta := map[string]string{MetaTransport: "claude-stream-json", MetaState: p.state.String()}
	if p.version != "" {
		meta[MetaVersion] = p.version
	}
	if p.malformed > 0 {
		meta[MetaMalformed] = strconv.Itoa(p.malformed)
		meta[MetaProblem] = p.problem
	}
	if p.custom > 0 {
		meta[MetaUnknown] = strconv.Itoa(p.custom)
	}
	if cp := resp.Checkpoint; cp != nil && !cp.Valid {
		meta[MetaCheckpoint] = p.whyInvalid(out, resp.Failure, cp.State)
	}
	resp.Metadata = meta
	ferr := p.em.FinishWith(resp.Usage, resp.Finish, resp.Failure)
	p.state = stateFinished
	resp.Transcript = p.em.Transcript()
	var err error
	switch {
	case out.Err != nil:
		err = fmt.Errorf("claude: %w", out.Err)
	case ferr != nil:
		err = ferr
	}
	if err != nil && resp.Checkpoint != nil {
		resp.Checkpoint.Valid = false
	}
	return resp, err
}

func aborted(reason string) bool { return strings.HasPrefix(reason, "aborted") }

// failure decides the run's business failure. The provider's own verdict
// comes from the root result: success is subtype "success" AND is_error
// present and false (an API failure arrives as subtype "success" with
// is_error true; an interrupted turn as error_during_execution with
// terminal_reason aborted_*).
func (p *Parser) failure(out Outcome) *driver.RunFailure {
	r := p.result
	var meta map[string]any
	if r != nil {
		meta = map[string]any{"subtype": r.Subtype}
		if r.TerminalReason != "" {
			meta["terminal_reason"] = r.TerminalReason
		}
		if st := bytes.TrimSpace(r.APIErrorStatus); len(st) > 0 && string(st) != "null" {
			meta["api_error_status"] = string(st)
		}
	}
	fail := func(code driver.FailureCode, msg string) *driver.RunFailure {
		return &driver.RunFailure{Code: code, Message: msg, Metadata: meta}
	}
	switch {
	case out.Err != nil:
		return fail(driver.FailureAgentError, "claude: run failed: "+out.Err.Error())
	case out.Cancelled:
		msg := "claude: run cancelled"
		if r != nil && !p.success {
			msg += ": " + resultMessage(r)
		}
		return fail(driver.FailureCancelled, msg)
	case out.TimedOut:
		return fail(driver.FailureTimeout, "claude: run timed out")
	case r != nil && !p.success:
		if aborted(r.TerminalReason) {
			return fail(driver.FailureCancelled, resultMessage(r))
		}
		return fail(driver.FailureAgentError, resultMessage(r))
	case out.Signal != "":
		return fail(driver.FailureAgentError, "claude: terminated by signal "+out.Signal)
	case out.ExitCode != 0:
		msg := "claude: exited with code " + strconv.Itoa(out.ExitCode)
		if r == nil {
			msg += " without a result"
		}
		return fail(driver.FailureAgentError, msg)
	case r == nil:
		return fail(driver.FailureAgentError, "claude: the stream ended without a result")
	}
	return nil
}

func resultMessage(r *resultLine) string {
	if r.Result != nil && strings.TrimSpace(*r.Result) != "" {
		return *r.Result
	}
	// Blank entries say nothing (errors [""] was found by FuzzParser: it
	// made a Failure without a message).
	var errs []string
	for _, e := range stringList(r.Errors.v) {
		if strings.TrimSpace(e) != "" {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return strings.Join(errs, "; ")
	}
	s := "claude: result " + r.Subtype
	if r.TerminalReason != "" {
		s += " (" + r.TerminalReason + ")"
	}
	return s
}

// checkpoint builds the resume checkpoint. It is Valid only when every
// condition of the contract holds: a clean outcome and no failure, no
// malformed line or framing error, a root success result, whose top-level
// session_id is non-empty and equal to the id every other line announced,
// and a state the Codec round-trips and guards. It is nil when no session
// id was seen at all.
func (p *Parser) checkpoint(out Outcome, failure *driver.RunFailure) *driver.Checkpoint {
	rid := ""
	if p.result != nil {
		rid = p.result.SessionID
	}
	id := rid
	if id == "" {
		id = p.sid
	}
	if id == "" {
		return nil
	}
	st := &driver.SessionState{ResumeID: id}
	if len(p.opts.SessionData) > 0 {
		st.Data = make(map[string]string, len(p.opts.SessionData))
		for k, v := range p.opts.SessionData {
			st.Data[k] = v
		}
	}
	valid := out.Clean() && failure == nil && p.malformed == 0 && !p.sidChanged &&
		p.result != nil && p.success && rid != "" && rid == p.sid && sessioncodec.Accepts(Codec, st)
	return &driver.Checkpoint{State: st, Valid: valid}
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strconv.Quote(s)
}
