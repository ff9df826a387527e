package gemini

import (
	"github.com/agentwire/agentwire/internal/apistream"
	"strconv"

	"github.com/agentwire/agentwire/driver"
)

// The Response.Metadata keys the parser sets.
const (
	MetaTransport   = "transport"             // always "gemini-generate-content"
	MetaContentType = "content_type"          // Options.ContentType, when set
	MetaHTTPStatus  = "http_status"           // Options.HTTPStatus, when set
	MetaResponseID  = "response_id"           // the first responseId
	MetaCreateTime  = "create_time"           // the first createTime (Vertex AI)
	MetaEvents      = "events"                // GenerateContentResponse objects decoded
	MetaMalformed   = apistream.MetaMalformed // malformed events and framing errors, when any
	MetaProblem     = apistream.MetaProblem   // the first problem's description, when any
	MetaUnknown     = apistream.MetaUnknown   // distinct unknown members and part types, when any
)

// Finish ends the response: it closes every open block and call (emitting
// their transcript items), emits a result item (or a failure item), the
// one terminal payload, and returns the Response. See the package doc for
// which streams succeed and which fail. Finish returns a non-nil error
// only for Outcome.Err (returned as is) or a sink error, and may be
// called once.
func (p *Parser) Finish(out Outcome) (driver.Response, error) {
	if p.done {
		return driver.Response{}, ErrFinished
	}
	for _, c := range p.cands {
		if c.stream != nil {
			p.markMalformed("streamed functionCall " + c.stream.name + " not closed at the end of the stream")
			if err := p.closeStream(c); err != nil {
				break
			}
		}
		if err := p.closeBlock(c); err != nil {
			break
		}
	}
	p.done = true
	resp := driver.Response{
		Output:   p.output.String(),
		Provider: Provider,
		Model:    p.model,
		Metadata: map[string]string{MetaTransport: "gemini-generate-content", MetaEvents: strconv.Itoa(p.events)},
	}
	if p.opts.ContentType != "" {
		resp.Metadata[MetaContentType] = p.opts.ContentType
	}
	if p.opts.HTTPStatus != 0 {
		resp.Metadata[MetaHTTPStatus] = strconv.Itoa(p.opts.HTTPStatus)
	}
	if p.responseID != "" {
		resp.Metadata[MetaResponseID] = p.responseID
	}
	if p.createTime != "" {
		resp.Metadata[MetaCreateTime] = p.createTime
	}
	p.problems.Metadata(resp.Metadata)
	if p.terminal != nil {
		resp.RawStreams = &driver.RawStreams{Terminal: p.terminal}
	}
	failure, finish := p.outcome(out)
	resp.Failure, resp.Finish = failure, finish
	if failure == nil || failure.Code != driver.FailureProviderError {
		resp.Usage = p.finalUsage()
	}
	var data map[string]any
	if len(p.usageRaw) > 0 && resp.Usage != nil {
		data = map[string]any{"usageMetadata": decodeAny(p.usageRaw)}
	}
	for _, c := range p.cands {
		if c.index != 0 {
			continue
		}
		for _, name := range []string{"groundingMetadata", "citationMetadata", "urlContextMetadata", "safetyRatings"} {
			if v, ok := c.last[name]; ok && !emptyValue([]byte(v)) {
				if data == nil {
					data = map[string]any{}
				}
				data[name] = decodeAny([]byte(v))
			}
		}
	}
	var it driver.TranscriptItem
	if failure == nil {
		it = driver.TranscriptItem{Kind: driver.TranscriptResult, Subtype: finish.Raw, Usage: resp.Usage, Text: p.finishMessage(), Data: data}
	} else {
		it = driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: failure.Message,
			Metadata: map[string]string{"code": string(failure.Code)}, Data: data}
		if failure.ErrorType != "" {
			it.Metadata["error_type"] = failure.ErrorType
		}
	}
	err := p.em.Item(it)
	if ferr := p.em.FinishWith(resp.Usage, finish, failure); err == nil {
		err = ferr
	}
	tr := p.em.Transcript()
	resp.Transcript = tr[:len(tr):len(tr)]
	if out.Err != nil {
		return resp, out.Err
	}
	return resp, err
}

func (p *Parser) finishMessage() string {
	for _, c := range p.cands {
		if c.index == 0 {
			return c.finishMessage
		}
	}
	return p.blockMessage
}

// outcome decides the Failure and the Finish, in this order: cancellation
// and timeout; an error object; a non-2xx status; a read error (the
// stream broke off); candidate 0's finishReason (else the lowest-indexed
// candidate's); a prompt block; else incomplete.
func (p *Parser) outcome(out Outcome) (*driver.RunFailure, *driver.Finish) {
	status := p.opts.HTTPStatus
	switch {
	case out.Cancelled:
		return &driver.RunFailure{Code: driver.FailureCancelled, Message: "gemini request cancelled"}, nil
	case out.TimedOut:
		return &driver.RunFailure{Code: driver.FailureTimeout, Message: "gemini request timed out"}, nil
	case p.apiErr != nil:
		e := p.apiErr
		f := &driver.RunFailure{Code: driver.FailureProviderError, ErrorType: e.status, Message: e.message, Metadata: map[string]any{}}
		if e.hasCode {
			f.Metadata["code"] = e.code
		}
		if e.details != nil {
			f.Metadata["details"] = decodeAny(e.details)
		}
		if status != 0 {
			f.HTTPStatus = status
		}
		if f.ErrorType == "" && e.hasCode {
			f.ErrorType = strconv.Itoa(e.code)
		}
		if f.Message == "" {
			f.Message = "gemini error " + f.ErrorType
		}
		return f, &driver.Finish{Reason: driver.FinishError, Raw: f.ErrorType}
	case status != 0 && (status < 200 || status > 299):
		msg := "gemini: HTTP " + strconv.Itoa(status)
		if p.events == 0 && p.problems.Malformed > 0 {
			msg += " with a body that is not a Gemini error"
		}
		f := &driver.RunFailure{Code: driver.FailureProviderError, ErrorType: "http_" + strconv.Itoa(status), Message: msg, HTTPStatus: status}
		return f, &driver.Finish{Reason: driver.FinishError, Raw: f.ErrorType}
	case out.Err != nil:
		return &driver.RunFailure{Code: driver.FailureIncomplete, Message: "gemini stream broke off: " + out.Err.Error()}, nil
	}
	var fc *candState
	for _, c := range p.cands {
		if c.finishRaw != "" && (fc == nil || c.index < fc.index) {
			fc = c
		}
	}
	if fc != nil {
		return nil, &driver.Finish{Reason: mapFinish(fc.finishRaw, len(fc.pending) > 0), Raw: fc.finishRaw}
	}
	if p.blockReason != "" {
		return nil, &driver.Finish{Reason: driver.FinishContentFilter, Raw: "blockReason: " + p.blockReason}
	}
	msg := "gemini stream ended without a finishReason"
	if p.events == 0 {
		msg = "gemini stream ended without any response"
	}
	return &driver.RunFailure{Code: driver.FailureIncomplete, Message: msg}, nil
}

// mapFinish maps a finishReason to the union; calls says whether the
// candidate made a client function call that no functionResponse answered.
// The table, with the reasons, is in the package doc.
func mapFinish(raw string, calls bool) driver.FinishReason {
	switch raw {
	case "STOP":
		if calls {
			return driver.FinishToolCalls
		}
		return driver.FinishStop
	case "MAX_TOKENS":
		return driver.FinishLength
	case "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT":
		return driver.FinishContentFilter
	case "RECITATION", "IMAGE_RECITATION", "LANGUAGE", "OTHER", "IMAGE_OTHER", "NO_IMAGE",
		"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS",
		"MISSING_THOUGHT_SIGNATURE", "MALFORMED_RESPONSE":
		return driver.FinishOther
	}
	return driver.FinishUnknown
}
