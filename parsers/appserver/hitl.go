package appserver

import (
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/rpcbook"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// Approval is a server-to-client request of this run (an approval or
// another question for the client), as a driver routes it to
// driver.DecisionCapableSink: Decision is the request to make, and
// [Approval.Answer] encodes the host's answer as the response line to
// write to the app-server's stdin.
type Approval struct {
	// ID is the request's id, exactly as received (often 0: the server
	// numbers its requests from 0, independently of the client's ids).
	ID jsonrpc.ID
	// Method is the request method, such as
	// item/commandExecution/requestApproval.
	Method string
	// ThreadID, TurnID and ItemID locate the request (ItemID is the tool
	// call it gates; legacy requests use callId).
	ThreadID, TurnID, ItemID string
	// Decision is the request for the host, with Kind permission (or
	// question for item/tool/requestUserInput and MCP elicitations),
	// Source "appserver/<method>", ToolCallID the item id, Prompt the
	// reason or command, Payload the request's params and Choices the
	// decisions the server offers.
	Decision driver.DecisionRequest
	// OtherScope marks a request about another thread or turn (a
	// subagent's approval): it still needs an answer, or the server waits,
	// but it is not part of this run's HITL audit payloads.
	OtherScope bool

	resolved bool
	params   json.RawMessage
}

// v2Decisions are the decisions of the v2 approval requests, legacy the
// ReviewDecision values of execCommandApproval / applyPatchApproval.
var (
	v2Decisions     = []string{"accept", "acceptForSession", "decline", "cancel"}
	legacyDecisions = []string{"approved", "approved_for_session", "denied", "abort"}
)

func (a Approval) legacy() bool { return a.Method == mLegacyExec || a.Method == mLegacyPatch }

// Answerable reports whether Answer can encode a response for this
// request: command and file-change approvals (v2 and legacy). Other
// requests (permissions, user input, elicitation, dynamic tool calls)
// have method-specific results the driver writes itself, or answers with
// [AppendErrorResponse].
func (a Approval) Answerable() bool {
	switch a.Method {
	case mCmdApproval, mFileApproval, mLegacyExec, mLegacyPatch:
		return true
	}
	return false
}

// DecisionFor returns the decision string for the host's answer:
// approved -> "accept" (or resp.Choice when it is one of the offered
// decisions), rejected and timed_out -> "decline" (the turn goes on
// without the action), aborted -> "cancel" (the turn is interrupted too).
// Legacy requests get the ReviewDecision names (approved, denied, abort).
func (a Approval) DecisionFor(resp driver.DecisionResponse) string {
	if resp.Choice != "" {
		for _, c := range a.Decision.Choices {
			if c.Key == resp.Choice {
				return resp.Choice
			}
		}
	}
	i := 2
	switch resp.Result {
	case driver.DecisionApproved:
		i = 0
	case driver.DecisionAborted:
		i = 3
	}
	if a.legacy() {
		return legacyDecisions[i]
	}
	return v2Decisions[i]
}

// Answer returns the response line (with its LF) to write to the
// app-server's stdin for the host's answer: {"id":<exact id>,"result":
// {"decision":...}}. It fails for requests that are not Answerable.
func (a Approval) Answer(resp driver.DecisionResponse) ([]byte, error) {
	if !a.Answerable() {
		return nil, errNotAnswerable(a.Method)
	}
	return jsonrpc.AppendResponse(nil, false, a.ID, map[string]string{"decision": a.DecisionFor(resp)})
}

type errNotAnswerable string

func (e errNotAnswerable) Error() string {
	return "appserver: no decision encoding for server request " + string(e)
}

// TakeApprovals returns the server-to-client requests received since the
// last call, in wire order, for the driver to route to
// driver.DecisionCapableSink.RequestDecision and answer. Requests about
// another thread or turn are included with OtherScope set: the server
// waits for their answer too.
func (p *Parser) TakeApprovals() []Approval {
	out := p.newApprovals
	p.newApprovals = nil
	return out
}

func decisionKind(method string) driver.HumanDecisionKind {
	switch method {
	case mUserInput, mElicitation:
		return driver.HumanDecisionQuestion
	}
	return driver.HumanDecisionPermission
}

// serverRequest maps a server-to-client request: a hitl.requested audit
// payload, a system transcript item, and an Approval for the driver.
func (p *Parser) serverRequest(f *jsonrpc.Frame) error {
	var pr params
	if ok, err := p.decodeParams(f, &pr); !ok {
		return err
	}
	method := string(f.Method)
	inScope := p.inScope(&pr, f.Method)
	if inScope {
		if err := p.start(); err != nil {
			return err
		}
	}
	key := f.ID.Key()
	if old := p.approvals[key]; old != nil && !old.resolved {
		return p.malformedFrame(f, "server request id "+f.ID.String()+" reused while pending")
	}
	var payload map[string]any
	if len(f.Params) > 0 && f.Params[0] == '{' {
		jsonguard.Unmarshal(f.Params, &payload, 0)
	}
	itemID := nonEmpty(pr.ItemID, pr.CallID)
	prompt := pr.Reason
	if cmd := commandText(pr.Command); cmd != "" {
		if prompt != "" {
			prompt += ": "
		}
		prompt += cmd
	}
	prompt = nonEmpty(prompt, method)
	a := &Approval{
		ID: f.ID.Clone(), Method: method, ThreadID: nonEmpty(pr.ThreadID, pr.ConversationID), TurnID: pr.TurnID, ItemID: itemID,
		Decision: driver.DecisionRequest{ThreadID: nonEmpty(pr.ThreadID, pr.ConversationID), Kind: decisionKind(method), Source: Provider + "/" + method, ToolCallID: itemID, Prompt: prompt, Payload: payload, Choices: choices(pr.AvailDecisions, method)},
		params:   rawValue(f.Params),
	}
	if !inScope {
		a.OtherScope = true
		p.newApprovals = append(p.newApprovals, *a)
		return p.otherScopeNotification(f, &pr)
	}
	if p.approvals[key] == nil {
		p.approvalOrder = append(p.approvalOrder, key)
	}
	p.approvals[key] = a
	p.newApprovals = append(p.newApprovals, *a)
	if !a.Answerable() && !known[method] && method != mPermApproval && method != mUserInput && method != mElicitation && method != mSkillApproval && method != mToolCallRequest {
		p.unknown++
	}
	if err := p.em.HITLRequested(driver.HITLRequestedPayload{RequestID: f.ID.String(), Kind: a.Decision.Kind, Source: a.Decision.Source, ToolCallID: itemID, Prompt: prompt, Payload: payload, Choices: a.Decision.Choices}); err != nil {
		return err
	}
	meta := map[string]string{"hitl": "requested", "method": method, "request_id": f.ID.String()}
	if itemID != "" {
		meta["item_id"] = itemID
	}
	if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "approval requested: " + prompt, Metadata: meta}); err != nil {
		return err
	}
	// In a capture replay the client's answer may have been fed first: it
	// is used when the server confirms (serverRequest/resolved) or at
	// Finish, so that resolved follows requested.
	return p.em.Err()
}

func commandText(raw json.RawMessage) string {
	switch v := anyOf(raw).(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// choices lists the decisions offered: availableDecisions when present
// (strings; object decisions by their single key), else the defaults of
// the method.
func choices(raw json.RawMessage, method string) []driver.DecisionChoice {
	var keys []string
	if v, ok := anyOf(raw).([]any); ok {
		for _, x := range v {
			switch d := x.(type) {
			case string:
				keys = append(keys, d)
			case map[string]any:
				for k := range d {
					keys = append(keys, k)
				}
			}
		}
	}
	if keys == nil {
		switch method {
		case mCmdApproval, mFileApproval:
			keys = v2Decisions
		case mLegacyExec, mLegacyPatch:
			keys = legacyDecisions
		}
	}
	var out []driver.DecisionChoice
	for _, k := range keys {
		out = append(out, driver.DecisionChoice{Key: k})
	}
	return out
}

// resolve emits hitl.resolved for an approval with the client's answer.
func (p *Parser) resolve(a *Approval, ans rpcbook.Answer) error {
	a.resolved = true
	res := driver.HITLResolvedPayload{RequestID: a.ID.String(), Kind: a.Decision.Kind, Source: a.Decision.Source}
	choice := ""
	if ans.IsErr {
		res.Result = driver.DecisionAborted
		choice = ans.ErrMsg
	} else {
		var r struct {
			Decision json.RawMessage `json:"decision"`
			Action   string          `json:"action"`
		}
		jsonguard.Unmarshal(ans.Result, &r, 0)
		switch d := anyOf(r.Decision).(type) {
		case string:
			choice = d
		case map[string]any:
			for k := range d {
				choice = k
			}
		}
		choice = nonEmpty(choice, r.Action)
		res.Result = decisionResult(choice)
		if m, ok := anyOf(ans.Result).(map[string]any); ok {
			res.Answer = m
		}
	}
	res.Choice = choice
	if err := p.em.HITLResolved(res); err != nil {
		return err
	}
	meta := map[string]string{"hitl": "resolved", "method": a.Method, "request_id": a.ID.String(), "result": string(res.Result)}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "approval " + nonEmpty(choice, string(res.Result)) + ": " + a.Decision.Prompt, Metadata: meta})
}

func decisionResult(choice string) driver.DecisionResult {
	switch choice {
	case "accept", "acceptForSession", "acceptWithExecpolicyAmendment", "applyNetworkPolicyAmendment", "approved", "approved_for_session", "approved_execpolicy_amendment", "network_policy_amendment":
		return driver.DecisionApproved
	case "cancel", "abort":
		return driver.DecisionAborted
	case "timed_out":
		return driver.DecisionTimedOut
	case "":
		return driver.DecisionAnswered
	}
	if strings.HasPrefix(choice, "accept") || strings.HasPrefix(choice, "approved") {
		return driver.DecisionApproved
	}
	return driver.DecisionRejected
}

// serverResolved handles serverRequest/resolved: the server saw the
// client's answer (or cleared the request at turn end).
func (p *Parser) serverResolved(f *jsonrpc.Frame, pr *params) error {
	if err := p.customFrame(f, pr); err != nil {
		return err
	}
	id, err := jsonrpc.ParseID(pr.RequestID)
	if err != nil {
		return p.malformedFrame(f, "serverRequest/resolved without a valid requestId")
	}
	a := p.approvals[id.Key()]
	if a == nil || a.resolved {
		return p.em.Err()
	}
	ans, ok := p.clientAnswers[id.Key()]
	if !ok {
		// The answer is not known (no client side fed): resolved without
		// a known decision.
		ans = rpcbook.Answer{}
	}
	return p.resolve(a, ans)
}

// resolvePending resolves, at Finish, requests whose client answer is
// known but that the server never confirmed.
func (p *Parser) resolvePending() error {
	for _, key := range p.approvalOrder {
		a := p.approvals[key]
		if a.resolved {
			continue
		}
		if ans, ok := p.clientAnswers[key]; ok {
			if err := p.resolve(a, ans); err != nil {
				return err
			}
		}
	}
	return p.em.Err()
}
