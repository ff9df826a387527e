package anthropic

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/anthropicapi"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/quote"
)

// FinishReason maps a stop_reason to the FinishReason union (the table in
// the package doc). A value the table does not know is FinishUnknown.
func FinishReason(stopReason string) driver.FinishReason {
	return anthropicapi.FinishReason(stopReason)
}

// Finish ends the response with the outcome of the exchange: it closes
// every open lifecycle, emits the one terminal payload (run.finished with
// the Finish and Usage, or run.error with the Failure) and returns the
// Response.
//
// Failure, in this order of precedence: a document body (a non-2xx status
// or a content type that is not text/event-stream: the typed error of its
// JSON error body, or the status and the body's first bytes), an error
// event, cancellation, timeout, and a stream that ended without
// message_stop (incomplete, with the read error of Outcome.Err when there
// was one). Only a stream that reached message_stop succeeds; its Finish
// maps the last message_delta's stop_reason (FinishUnknown with an empty
// Raw when none came). A provider error (an error event or an error body)
// carries the Finish {error, <error type>} and no Usage, as every
// model-API parser's does; cancellation, timeout and an incomplete stream
// carry no Finish and the usage reported so far.
//
// RawStreams holds only Terminal; Parse fills in the body. Finish returns
// a non-nil error only for Outcome.Err or a sink error, and may be called
// once.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.done {
		return driver.Response{}, ErrFinished
	}
	p.done = true
	resp := driver.Response{
		ExitCode: out.ExitCode,
		Signal:   out.Signal,
		TimedOut: out.TimedOut,
		Provider: Provider,
		Model:    p.model,
		Metadata: map[string]string{MetaTransport: "anthropic-messages-sse"},
	}
	var failure *driver.RunFailure
	var fin *driver.Finish
	usage := p.usage.normalized()
	if p.document {
		resp.Metadata[MetaTransport] = "anthropic-messages-http"
		failure = p.documentFailure()
		fin = errorFinish(failure)
		if err := p.errorItem(&wireErrorBody{Error: &wireError{Type: failure.ErrorType, Message: failure.Message}}, failure.HTTPStatus); err != nil {
			return p.end(resp, nil, fin, failure, out, err)
		}
		usage = nil
	} else {
		switch {
		case p.errEvent != nil:
			failure = providerFailure(p.errEvent, p.opts.HTTPStatus, nil)
			fin = errorFinish(failure)
			usage = nil
		case out.Cancelled:
			failure = &driver.RunFailure{Code: driver.FailureCancelled, Message: "anthropic stream cancelled"}
		case out.TimedOut:
			failure = &driver.RunFailure{Code: driver.FailureTimeout, Message: "anthropic stream timed out"}
		case !p.stopped:
			msg := "stream ended without message_stop"
			if !p.started {
				msg = "stream ended without message_start"
			}
			if out.Err != nil {
				msg += ": " + out.Err.Error()
			}
			failure = &driver.RunFailure{Code: driver.FailureIncomplete, Message: msg}
		default:
			fin = &driver.Finish{Reason: driver.FinishUnknown}
			if p.stopReason != nil {
				fin = &driver.Finish{Reason: FinishReason(*p.stopReason), Raw: *p.stopReason}
			}
		}
	}
	if p.msgID != "" && p.started {
		resp.Metadata[MetaMessageID] = p.msgID
	}
	if p.stopSequence != "" {
		resp.Metadata[MetaStopSequence] = p.stopSequence
	}
	if failure != nil && failure.Metadata != nil {
		if id, ok := failure.Metadata[MetaRequestID].(string); ok {
			resp.Metadata[MetaRequestID] = id
		}
	}
	p.problems.Metadata(resp.Metadata)
	// A failed stream's Output is the text it had produced.
	resp.Output = p.output.String()
	return p.end(resp, usage, fin, failure, out, nil)
}

// errorFinish is the Finish of a provider error: reason error, the
// error's type ("overloaded_error") as its raw value, "error" when the
// error has no type.
func errorFinish(f *driver.RunFailure) *driver.Finish {
	raw := f.ErrorType
	if raw == "" {
		raw = "error"
	}
	return &driver.Finish{Reason: driver.FinishError, Raw: raw}
}

// end emits the terminal and completes the Response.
func (p *Parser) end(resp driver.Response, usage *driver.Usage, fin *driver.Finish, failure *driver.RunFailure, out Outcome, err error) (driver.Response, error) {
	resp.Usage, resp.Finish, resp.Failure = usage, fin, failure
	if p.terminal != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: p.terminal}
	}
	if err == nil {
		err = p.em.FinishWith(usage, fin, failure)
	}
	tr := p.em.Transcript()
	resp.Transcript = tr[:len(tr):len(tr)]
	if out.Err != nil {
		return resp, out.Err
	}
	return resp, err
}

// documentFailure is the typed error of a document body.
func (p *Parser) documentFailure() *driver.RunFailure {
	status := p.opts.HTTPStatus
	var e wireErrorBody
	if jsonguard.Unmarshal(p.body, &e, 0) == nil && e.Type == evError && e.Error != nil {
		p.terminal = &driver.TerminalPayload{Event: TerminalError, JSON: append([]byte(nil), apistream.TrimJSON(p.body)...)}
		return providerFailure(&e, status, nil)
	}
	f := providerFailure(nil, status, p.body)
	if status >= 200 && status <= 299 {
		f.Message = "the response is " + quote.String(p.opts.ContentType, 0) + ", not an event stream"
		if len(p.body) > 0 {
			f.Message += ": " + quoteBody(p.body)
		}
	}
	return f
}

// quoteBody quotes the first bytes of a body for a message.
func quoteBody(b []byte) string { return quote.Bytes(apistream.TrimJSON(b), 200) }
