package claude

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/ndjson"
	json "github.com/segmentio/encoding/json"
)

// controlRequest handles a control_request the CLI wrote: it becomes a
// pending ControlRequest, a transcript item (a question for
// AskUserQuestion, a system item otherwise) and, for can_use_tool with
// ControlProtocol, a hitl.requested audit payload (a
// claude/control_request custom payload otherwise).
func (p *Parser) controlRequest(f ndjson.Frame) error {
	var l controlLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	cr, err := decodeRequest(l.RequestID, l.Request)
	if err != nil {
		return p.bad(f, "control_request: "+err.Error())
	}
	if _, dup := p.pending[cr.RequestID]; !dup {
		p.pendingOrder = append(p.pendingOrder, cr.RequestID)
	}
	p.pending[cr.RequestID] = cr
	dr := cr.DecisionRequest()
	it := driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "control_request." + cr.Subtype, Text: dr.Prompt,
		ToolUseID: dr.ToolCallID, Metadata: map[string]string{"request_id": cr.RequestID}}
	if cr.Permission != nil {
		it.ToolName = cr.Permission.ToolName
	}
	if dr.Kind == driver.HumanDecisionQuestion && dr.Prompt != "" {
		it.Kind, it.Subtype = driver.TranscriptQuestion, ""
		if len(dr.Choices) > 0 {
			it.Data = map[string]any{"choices": dr.Choices}
		}
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	if !p.cap.HITL || cr.Permission == nil {
		// hook_callback and mcp_message are SDK callbacks, not human
		// decisions: they are kept, not broadcast as HITL.
		return p.em.Custom(provider, "control_request", driver.StreamPayload{ToolCallID: dr.ToolCallID, Raw: p.rawLine(f)})
	}
	return p.em.HITLRequested(driver.HITLRequestedPayload{RequestID: cr.RequestID, Kind: dr.Kind, Source: dr.Source,
		ToolCallID: dr.ToolCallID, Prompt: dr.Prompt, Payload: dr.Payload, Choices: dr.Choices})
}

// controlResponse handles the CLI's answer to a host request (the first
// stdout line answers initialize): a system item only, the host knows what
// it asked.
func (p *Parser) controlResponse(f ndjson.Frame) error {
	var l controlLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	if l.Response == nil {
		return p.bad(f, "control_response without a response object")
	}
	text := "control_response " + l.Response.Subtype + " for " + quote(l.Response.RequestID)
	if l.Response.Error != "" {
		text += ": " + l.Response.Error
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "control_response", Text: text,
		Metadata: map[string]string{"request_id": l.Response.RequestID, "subtype": l.Response.Subtype}})
}

// controlCancel handles control_cancel_request: the CLI abandoned one of
// its requests (the turn was interrupted, or a hook decided first). A
// pending request is resolved as aborted; it must not be answered.
func (p *Parser) controlCancel(f ndjson.Frame) error {
	var l controlLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	if cr := p.pending[l.RequestID]; cr != nil {
		return p.resolved(cr, driver.HITLResolvedPayload{Result: driver.DecisionAborted}, "cancelled by the CLI")
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "control_cancel_request",
		Text: "control_cancel_request for unknown request " + quote(l.RequestID), Metadata: map[string]string{"request_id": l.RequestID}})
}

// resolved records the outcome of a pending request: a system item and a
// hitl.resolved audit payload.
func (p *Parser) resolved(cr *ControlRequest, res driver.HITLResolvedPayload, how string) error {
	delete(p.pending, cr.RequestID)
	for i, id := range p.pendingOrder {
		if id == cr.RequestID {
			p.pendingOrder = append(p.pendingOrder[:i], p.pendingOrder[i+1:]...)
			break
		}
	}
	res.RequestID, res.Kind, res.Source = cr.RequestID, cr.Kind(), cr.Source()
	it := driver.TranscriptItem{Kind: driver.TranscriptSystem, Subtype: "control_resolved",
		Text: cr.Subtype + " " + string(res.Result) + " (" + how + ")", Metadata: map[string]string{"request_id": cr.RequestID, "result": string(res.Result)}}
	if cr.Permission != nil {
		it.ToolUseID, it.ToolName = cr.Permission.ToolUseID, cr.Permission.ToolName
	}
	if err := p.em.Item(it); err != nil {
		return err
	}
	if !p.cap.HITL || cr.Permission == nil {
		return p.em.Err()
	}
	return p.em.HITLResolved(res)
}

// PendingRequests returns the CLI control requests that were neither
// answered (Resolve, FeedInput) nor cancelled, in arrival order.
func (p *Parser) PendingRequests() []*ControlRequest {
	out := make([]*ControlRequest, 0, len(p.pendingOrder))
	for _, id := range p.pendingOrder {
		out = append(out, p.pending[id])
	}
	return out
}

// Resolve records the host's decision for the pending request id (a
// system item and a hitl.resolved audit payload) and returns the
// control_response line to write to the CLI's stdin (see
// ControlRequest.Answer). It returns ErrUnknownRequest for an id that is
// not pending, and sink errors.
func (p *Parser) Resolve(requestID string, res driver.DecisionResponse) ([]byte, error) {
	if p.state == stateFinished {
		return nil, ErrFinished
	}
	cr := p.pending[requestID]
	if cr == nil {
		return nil, ErrUnknownRequest
	}
	line, err := cr.Answer(res)
	if err != nil {
		return nil, err
	}
	if err := p.resolved(cr, driver.HITLResolvedPayload{Result: res.Result, Choice: res.Choice, Answer: res.Answer}, "host"); err != nil {
		return nil, err
	}
	return line, nil
}

// FeedInput records a line the host wrote to the CLI's stdin, for replays
// of a recorded session (a live driver calls Resolve instead): a
// control_response answering a pending request resolves it (allow ->
// approved, deny -> rejected, error -> aborted). Other lines (user turns,
// the host's own control requests) and lines that do not decode are
// ignored: stdin is the host's input, not the provider's protocol. It
// returns only sink errors.
func (p *Parser) FeedInput(f ndjson.Frame) error {
	if p.state == stateFinished {
		return ErrFinished
	}
	if t, ok := f.Type(); !ok || string(t) != "control_response" {
		return p.em.Err()
	}
	var l controlLine
	if f.Decode(&l) != nil || l.Response == nil {
		return p.em.Err()
	}
	cr := p.pending[l.Response.RequestID]
	if cr == nil {
		return p.em.Err()
	}
	res := driver.HITLResolvedPayload{Result: driver.DecisionAborted}
	if l.Response.Subtype == "success" {
		var body struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		}
		_ = json.Unmarshal(l.Response.Response, &body)
		switch body.Behavior {
		case "allow":
			res.Result = driver.DecisionApproved
		case "deny":
			res.Result = driver.DecisionRejected
		default:
			res.Result = driver.DecisionAnswered
		}
	}
	return p.resolved(cr, res, "host input")
}
