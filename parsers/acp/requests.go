package acp

import (
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/rpcbook"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// Request is an agent-to-client request (session/request_permission,
// fs/*, terminal/*, elicitation/create, or a vendor method), as a driver
// answers it: TakeRequests hands each out once, in wire order. The agent
// waits for every answer.
type Request struct {
	// ID is the request's id, exactly as received (agent ids are a space
	// of their own, apart from the client's).
	ID jsonrpc.ID
	// Method is the request method.
	Method string
	// SessionID is the request's sessionId param.
	SessionID string
	// ToolCallID is the tool call a permission request gates.
	ToolCallID string
	// Decision, for session/request_permission (Kind permission) and
	// elicitation/create (Kind question), is the request for
	// driver.DecisionCapableSink: Source "acp/<method>", Prompt the tool
	// call's title, Payload the params, Choices the options (Key the
	// optionId, Label the name, Description the option kind).
	Decision *driver.DecisionRequest
	// Options are a permission request's options.
	Options []PermissionOption
	// Params is the exact params value.
	Params json.RawMessage
	// OtherScope marks a request about another session: it still needs
	// an answer, but it is not part of this run's audit payloads.
	OtherScope bool

	resolved bool
}

// PermissionOption is an option of session/request_permission.
type PermissionOption struct {
	// OptionID is what the answer selects.
	OptionID string
	// Name is the option's label.
	Name string
	// Kind is allow_once, allow_always, reject_once or reject_always.
	Kind string
}

// OptionFor returns the optionId answering a permission request for the
// host's decision: resp.Choice when it is one of the options, else the
// first option whose kind fits (approved: allow_once, then allow_always;
// rejected and timed_out: reject_once, then reject_always). ok is false
// for aborted (the answer is then the cancelled outcome) and when no
// option fits.
func (r Request) OptionFor(resp driver.DecisionResponse) (string, bool) {
	for _, o := range r.Options {
		if resp.Choice != "" && o.OptionID == resp.Choice {
			return o.OptionID, true
		}
	}
	var kinds []string
	switch resp.Result {
	case driver.DecisionApproved:
		kinds = []string{"allow_once", "allow_always"}
	case driver.DecisionRejected, driver.DecisionTimedOut:
		kinds = []string{"reject_once", "reject_always"}
	default:
		return "", false
	}
	for _, k := range kinds {
		for _, o := range r.Options {
			if o.Kind == k {
				return o.OptionID, true
			}
		}
	}
	return "", false
}

// Answer returns the response line (with its LF) to write to the agent's
// stdin for the host's decision on a session/request_permission:
// {"jsonrpc":"2.0","id":<exact id>,"result":{"outcome":{"outcome":
// "selected","optionId":...}}}, or the cancelled outcome when the
// decision is aborted or no option fits (the ACP answer for a cancelled
// turn). It fails for other methods.
func (r Request) Answer(resp driver.DecisionResponse) ([]byte, error) {
	if r.Method != mRequestPermission {
		return nil, errNotAnswerable(r.Method)
	}
	outcome := map[string]any{"outcome": "cancelled"}
	if id, ok := r.OptionFor(resp); ok {
		outcome = map[string]any{"outcome": "selected", "optionId": id}
	}
	return jsonrpc.AppendResponse(nil, true, r.ID, map[string]any{"outcome": outcome})
}

type errNotAnswerable string

func (e errNotAnswerable) Error() string {
	return "acp: no decision encoding for agent request " + string(e)
}

// TakeRequests returns the agent-to-client requests received since the
// last call, in wire order, for the driver to answer (a permission
// through driver.DecisionCapableSink and Request.Answer; fs/* and
// terminal/* by serving them or with an error response; anything else
// with AppendErrorResponse, -32601 method not found).
func (p *Parser) TakeRequests() []Request {
	out := p.newReqs
	p.newReqs = nil
	return out
}

// agentRequest maps an agent-to-client request: a permission request is
// a hitl.requested audit payload and a system item; fs/*, terminal/* and
// other requests are custom payloads acp/<method> (fs and terminal ones
// with a system item, for the audit of what the agent touched). Every
// request is handed to the driver (TakeRequests).
func (p *Parser) agentRequest(f *jsonrpc.Frame) error {
	method := string(f.Method)
	key := f.ID.Key()
	if old := p.reqs[key]; old != nil && !old.resolved {
		return p.malformedFrame(f, "agent request id "+f.ID.String()+" reused while pending")
	}
	r := &Request{ID: f.ID.Clone(), Method: method, Params: p.raw.copy(f.Params)}
	if s, ok := jsonguard.PeekString(f.Params, "sessionId", nil); ok {
		r.SessionID = string(s)
	}
	if r.SessionID != "" && p.sessionID != "" && r.SessionID != p.sessionID {
		r.OtherScope = true
		p.newReqs = append(p.newReqs, *r)
		return p.otherScopeMessage(method, r.SessionID, map[string]any{"method": method, "params": p.raw.copy(f.Params)})
	}
	if p.reqs[key] == nil {
		p.reqOrder = append(p.reqOrder, key)
	}
	p.reqs[key] = r
	if p.opts.Unpaired != nil {
		p.pairs.requests = append(p.pairs.requests, agentReq{key: key, method: method, off: f.Offset, line: f.Line})
	}
	if err := p.start(); err != nil {
		return err
	}
	var err error
	switch method {
	case mRequestPermission:
		err = p.permission(f, r)
	case mElicitation:
		err = p.elicitation(f, r)
	default:
		err = p.otherRequest(f, r)
	}
	if err != nil {
		return err
	}
	p.newReqs = append(p.newReqs, *r)
	// In a capture replay the client's answer was fed first: resolve now,
	// right after the request.
	if a, ok := p.answers[key]; ok {
		return p.resolve(p.reqs[key], a)
	}
	return p.em.Err()
}

func (p *Parser) permission(f *jsonrpc.Frame, r *Request) error {
	payload := objectOf(f.Params)
	w, ok := permissionOf(f, payload)
	if !ok {
		if err := f.DecodeParams(&w); err != nil {
			return p.malformedFrame(f, "session/request_permission without a valid toolCall")
		}
	}
	tc, ok := readTool(w.ToolCall)
	if !ok {
		return p.malformedFrame(f, "session/request_permission without a valid toolCall")
	}
	idb, _ := tc.id()
	id := string(idb)
	r.ToolCallID = id
	var choices []driver.DecisionChoice
	if len(w.Options) > 0 {
		r.Options = make([]PermissionOption, 0, len(w.Options))
		choices = make([]driver.DecisionChoice, 0, len(w.Options))
	}
	for _, o := range w.Options {
		r.Options = append(r.Options, PermissionOption(o))
		choices = append(choices, driver.DecisionChoice{Key: o.OptionID, Label: o.Name, Description: o.Kind})
	}
	// The toolCall is a ToolCallUpdate: it may announce the call, or add
	// its input, before the call runs.
	if err := p.closeMessage(); err != nil {
		return err
	}
	ts := p.tools[id]
	if ts == nil {
		ts = p.newTool(id)
	}
	if !ts.done {
		ts.merge(&tc, &p.raw)
		if err := p.openTool(id, ts); err != nil {
			return err
		}
	}
	prompt := mRequestPermission
	if title, _ := tc.title(); title != "" {
		prompt = title
	} else if ts.title != "" {
		prompt = ts.title
	}
	r.Decision = &driver.DecisionRequest{ThreadID: p.sessionID, Kind: driver.HumanDecisionPermission, Source: Provider + "/" + mRequestPermission, ToolCallID: id, Prompt: prompt, Payload: payload, Choices: choices}
	return p.hitlRequested(f, r)
}

// permissionOf reads a permission request's params as decoding them
// into a wirePermission does, from what the parser has already: the
// decoded params (payload, the decision's Payload) for the session id and
// the options, and the params' own toolCall member (exact bytes of the
// frame, not copied). ok is false for a shape on which that decoding
// could differ or fail: params that are not an object, a member name
// that names a field only case-insensitively (as Go's decoders match
// them) or through an escape, a field of another type than a string (null
// is no value), an option that is not an object; the caller then decodes.
func permissionOf(f *jsonrpc.Frame, payload map[string]any) (w wirePermission, ok bool) {
	if payload == nil || len(f.Params) == 0 || f.Params[0] != '{' {
		return w, false
	}
	for k, v := range payload {
		switch k {
		case "sessionId":
			if !stringField(&w.SessionID, v) {
				return w, false
			}
		case "toolCall":
		case "options":
			opts, isArr := v.([]any)
			if v == nil {
				continue
			}
			if !isArr {
				return w, false
			}
			w.Options = make([]wireOption, len(opts))
			for i, el := range opts {
				m, isObj := el.(map[string]any)
				if !isObj {
					return w, false
				}
				o := &w.Options[i]
				for k, v := range m {
					var dst *string
					switch k {
					case "optionId":
						dst = &o.OptionID
					case "name":
						dst = &o.Name
					case "kind":
						dst = &o.Kind
					default:
						if foldsTo(k, "optionId", "name", "kind") {
							return w, false
						}
						continue
					}
					if !stringField(dst, v) {
						return w, false
					}
				}
			}
		default:
			if foldsTo(k, "sessionId", "toolCall", "options") {
				return w, false
			}
		}
	}
	seen := 0
	f.Members(f.Params, func(name, v []byte) bool {
		switch string(name) {
		case "toolCall":
			w.ToolCall = v
			seen++
		case "sessionId", "options":
			seen++
		}
		return true
	})
	// Each of the three names once, as payload has it: a name written
	// with an escape is not seen here, and a repeated one is left to the
	// decoder (whose second options may merge into the first ones).
	n := 0
	for _, k := range [...]string{"sessionId", "toolCall", "options"} {
		if _, has := payload[k]; has {
			n++
		}
	}
	return w, seen == n
}

// stringField sets *dst to v when v is a string, leaves it for nil (a
// JSON null), and reports false for any other value.
func stringField(dst *string, v any) bool {
	switch s := v.(type) {
	case string:
		*dst = s
	case nil:
	default:
		return false
	}
	return true
}

// foldsTo reports whether the member name k matches one of names
// case-insensitively (as Go's JSON decoders match struct fields).
func foldsTo(k string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

func (p *Parser) elicitation(f *jsonrpc.Frame, r *Request) error {
	payload := objectOf(f.Params)
	prompt := mElicitation
	if m, ok := payload["message"].(string); ok && m != "" {
		prompt = m
	}
	r.Decision = &driver.DecisionRequest{ThreadID: p.sessionID, Kind: driver.HumanDecisionQuestion, Source: Provider + "/" + mElicitation, Prompt: prompt, Payload: payload}
	return p.hitlRequested(f, r)
}

func (p *Parser) hitlRequested(f *jsonrpc.Frame, r *Request) error {
	d := r.Decision
	if err := p.em.HITLRequested(driver.HITLRequestedPayload{RequestID: f.ID.String(), Kind: d.Kind, Source: d.Source, ToolCallID: d.ToolCallID, Prompt: d.Prompt, Payload: d.Payload, Choices: d.Choices}); err != nil {
		return err
	}
	meta := map[string]string{"hitl": "requested", "method": r.Method, "request_id": f.ID.String()}
	if d.ToolCallID != "" {
		meta["tool_call_id"] = d.ToolCallID
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "permission requested: " + d.Prompt, Metadata: meta})
}

// otherRequest keeps fs/*, terminal/* and vendor requests as custom
// payloads; fs and terminal requests get a system item naming what they
// touch.
func (p *Parser) otherRequest(f *jsonrpc.Frame, r *Request) error {
	method := r.Method
	raw := map[string]any{"method": method, "request_id": f.ID.String(), "params": p.raw.copy(f.Params)}
	if err := p.custom(method, driver.StreamPayload{ThreadID: p.sessionID, Raw: raw}); err != nil {
		return err
	}
	ns, _, _ := strings.Cut(method, "/")
	switch {
	case ns == "fs" || ns == "terminal":
		switch method {
		case mFSRead, mFSWrite, mTermCreate, mTermOutput, mTermRelease, mTermWait, mTermKill:
		default:
			p.unknown++
		}
		what := ""
		for _, k := range []string{"path", "command", "terminalId"} {
			if v, ok := jsonguard.PeekString(f.Params, k, nil); ok {
				what = string(v)
				break
			}
		}
		meta := map[string]string{"method": method, "request_id": f.ID.String()}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: strings.TrimSpace(method + " " + what), Metadata: meta})
	case vendor(method):
		p.extensions++
	default:
		p.unknown++
	}
	return p.em.Err()
}

// resolve maps the client's answer to an agent request: hitl.resolved
// for a permission or elicitation (selected option by its kind: allow_*
// approved, reject_* rejected; the cancelled outcome or an error answer
// aborted), a system item for an error answer to another request (a
// refused fs or terminal call).
func (p *Parser) resolve(r *Request, a rpcbook.Answer) error {
	r.resolved = true
	if r.Decision == nil {
		if !a.IsErr {
			return p.em.Err()
		}
		meta := map[string]string{"method": r.Method, "request_id": r.ID.String(), "answer": "error"}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: r.Method + " refused: " + a.ErrMsg, Metadata: meta})
	}
	d := r.Decision
	res := driver.HITLResolvedPayload{RequestID: r.ID.String(), Kind: d.Kind, Source: d.Source}
	choice := ""
	switch {
	case a.IsErr:
		res.Result = driver.DecisionAborted
		choice = a.ErrMsg
	case r.Method == mRequestPermission:
		var w struct {
			Outcome struct {
				Outcome  string `json:"outcome"`
				OptionID string `json:"optionId"`
			} `json:"outcome"`
		}
		jsonguard.Unmarshal(a.Result, &w, 0)
		res.Result = driver.DecisionAnswered
		switch w.Outcome.Outcome {
		case "cancelled":
			res.Result, choice = driver.DecisionAborted, "cancelled"
		case "selected":
			choice = w.Outcome.OptionID
			for _, o := range r.Options {
				if o.OptionID == choice {
					switch {
					case strings.HasPrefix(o.Kind, "allow"):
						res.Result = driver.DecisionApproved
					case strings.HasPrefix(o.Kind, "reject"):
						res.Result = driver.DecisionRejected
					}
				}
			}
		}
	default:
		var w struct {
			Action string `json:"action"`
		}
		jsonguard.Unmarshal(a.Result, &w, 0)
		choice = w.Action
		switch w.Action {
		case "accept":
			res.Result = driver.DecisionAnswered
		case "decline":
			res.Result = driver.DecisionRejected
		case "cancel":
			res.Result = driver.DecisionAborted
		default:
			res.Result = driver.DecisionAnswered
		}
	}
	if m, ok := anyOf(a.Result).(map[string]any); ok {
		res.Answer = m
	}
	res.Choice = choice
	if err := p.em.HITLResolved(res); err != nil {
		return err
	}
	meta := map[string]string{"hitl": "resolved", "method": r.Method, "request_id": r.ID.String(), "result": string(res.Result)}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "permission " + nonEmpty(choice, string(res.Result)) + ": " + d.Prompt, Metadata: meta})
}
