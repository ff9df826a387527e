package claude

import (
	"bytes"
	"errors"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
	json "github.com/segmentio/encoding/json"
)

// The control protocol (--input-format stream-json). Both sides write
// control_request lines and answer the other side's with control_response
// lines correlated by request_id:
//
//	host -> CLI  control_request  initialize, interrupt, set_permission_mode, set_model, ...
//	CLI -> host  control_response the answer (the initialize answer is the first stdout line)
//	CLI -> host  control_request  can_use_tool, hook_callback, mcp_message
//	host -> CLI  control_response the answer (EncodeAllow, EncodeDeny, EncodeControlError)
//	CLI -> host  control_cancel_request  the CLI abandoned one of its requests: do not answer it
//
// Control lines carry no session_id and no uuid.

// The control_request subtypes the CLI sends to the host.
const (
	SubtypeCanUseTool   = "can_use_tool"
	SubtypeHookCallback = "hook_callback"
	SubtypeMCPMessage   = "mcp_message"
)

// ControlRequest is a control_request the CLI wrote on stdout: a question
// the host must answer on stdin with a control_response for RequestID
// (unless a control_cancel_request for it arrives first).
type ControlRequest struct {
	// RequestID is the CLI's id, echoed by the answer.
	RequestID string
	// Subtype is request.subtype (can_use_tool, hook_callback,
	// mcp_message, or one this package does not know).
	Subtype string
	// Permission is set for can_use_tool.
	Permission *PermissionRequest
	// Hook is set for hook_callback.
	Hook *HookCallbackRequest
	// MCP is set for mcp_message.
	MCP *MCPMessageRequest
	// Request is the exact request object.
	Request json.RawMessage
}

// PermissionRequest is the request of a can_use_tool control_request: the
// CLI asks whether the tool call ToolUseID may run. It is sent only for
// calls the permission rules leave at "ask", and only when the CLI runs with
// --permission-prompt-tool stdio.
type PermissionRequest struct {
	ToolName    string          `json:"tool_name"`
	DisplayName string          `json:"display_name"`
	Input       json.RawMessage `json:"input"`
	ToolUseID   string          `json:"tool_use_id"`
	// Description is the tool call's own description (Bash's
	// "description" argument), Title a CLI-written prompt title.
	Description string `json:"description"`
	Title       string `json:"title"`
	// Suggestions are PermissionUpdate objects the host may send back in
	// updatedPermissions ({"type":"addRules",...}).
	Suggestions    []json.RawMessage `json:"permission_suggestions"`
	BlockedPath    string            `json:"blocked_path"`
	DecisionReason json.RawMessage   `json:"decision_reason"`
	AgentID        string            `json:"agent_id"`
}

// HookCallbackRequest is the request of a hook_callback control_request.
type HookCallbackRequest struct {
	CallbackID string          `json:"callback_id"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  string          `json:"tool_use_id"`
}

// MCPMessageRequest is the request of an mcp_message control_request: a
// JSON-RPC message for an in-process SDK MCP server.
type MCPMessageRequest struct {
	ServerName string          `json:"server_name"`
	Message    json.RawMessage `json:"message"`
}

// ErrNotControlRequest is returned by DecodeControlRequest for a line that
// is not a control_request.
var ErrNotControlRequest = errors.New("claude: not a control_request line")

// DecodeControlRequest decodes one control_request line (as written by the
// CLI on stdout) into a typed value. The line passes the same nesting guard
// as every other line.
func DecodeControlRequest(line []byte) (*ControlRequest, error) {
	t, ok := jsonguard.PeekString(line, "type", nil)
	if !ok || string(t) != "control_request" {
		return nil, ErrNotControlRequest
	}
	var l controlLine
	if err := jsonguard.Unmarshal(line, &l, 0); err != nil {
		return nil, err
	}
	return decodeRequest(l.RequestID, l.Request)
}

func decodeRequest(id string, req json.RawMessage) (*ControlRequest, error) {
	if len(req) == 0 || req[0] != '{' {
		return nil, errors.New("claude: control_request without a request object")
	}
	// The subtype picks the one typed decode of the request. Peek finds it
	// without decoding; only a request whose subtype is absent or not a
	// string (or written with other letter case) is decoded for it.
	sub, ok := jsonguard.PeekString(req, "subtype", nil)
	if !ok {
		var head struct {
			Subtype string `json:"subtype"`
		}
		if err := json.Unmarshal(req, &head); err != nil {
			return nil, err
		}
		sub = []byte(head.Subtype)
	}
	cr := &ControlRequest{RequestID: id, Subtype: string(sub), Request: req}
	var err error
	switch cr.Subtype {
	case SubtypeCanUseTool:
		cr.Permission = new(PermissionRequest)
		err = json.Unmarshal(req, cr.Permission)
	case SubtypeHookCallback:
		cr.Hook = new(HookCallbackRequest)
		err = json.Unmarshal(req, cr.Hook)
	case SubtypeMCPMessage:
		cr.MCP = new(MCPMessageRequest)
		err = json.Unmarshal(req, cr.MCP)
	}
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, errors.New("claude: control_request without a request_id")
	}
	return cr, nil
}

// Tool names whose permission prompt is a different kind of decision.
const (
	toolExitPlanMode    = "ExitPlanMode"
	toolAskUserQuestion = "AskUserQuestion"
)

// Kind is the decision kind of the request: plan_review for ExitPlanMode,
// question for AskUserQuestion, permission for every other tool and for
// the other subtypes.
func (r *ControlRequest) Kind() driver.HumanDecisionKind {
	if r.Permission != nil {
		switch r.Permission.ToolName {
		case toolExitPlanMode:
			return driver.HumanDecisionPlanReview
		case toolAskUserQuestion:
			return driver.HumanDecisionQuestion
		}
	}
	return driver.HumanDecisionPermission
}

// Source names the request's origin for DecisionRequest.Source:
// "claude.can_use_tool" and so on.
func (r *ControlRequest) Source() string { return "claude." + r.Subtype }

type questionInput struct {
	Questions []struct {
		Question string `json:"question"`
		Header   string `json:"header"`
		Options  []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
	} `json:"questions"`
}

// DecisionRequest is the request a driver hands to
// driver.DecisionCapableSink.RequestDecision. RequestID, times and retry
// attempt are left for the host; the CLI's request id travels in
// Payload["request_id"]. For AskUserQuestion the prompt and choices are the
// first question's; for ExitPlanMode the prompt is the plan.
func (r *ControlRequest) DecisionRequest() driver.DecisionRequest {
	dr := driver.DecisionRequest{Kind: r.Kind(), Source: r.Source(),
		Payload: map[string]any{"request_id": r.RequestID, "subtype": r.Subtype}}
	pr := r.Permission
	if pr == nil {
		dr.Prompt = "Claude Code asks the host to handle " + r.Subtype
		return dr
	}
	dr.ToolCallID = pr.ToolUseID
	dr.Payload["tool_name"] = pr.ToolName
	if in := decodeAny(pr.Input); in != nil {
		dr.Payload["input"] = in
	}
	if pr.BlockedPath != "" {
		dr.Payload["blocked_path"] = pr.BlockedPath
	}
	if pr.AgentID != "" {
		dr.Payload["agent_id"] = pr.AgentID
	}
	if len(pr.Suggestions) > 0 {
		s := make([]any, 0, len(pr.Suggestions))
		for _, raw := range pr.Suggestions {
			s = append(s, decodeAny(raw))
		}
		dr.Payload["permission_suggestions"] = s
	}
	if r := decodeAny(pr.DecisionReason); r != nil {
		dr.Payload["decision_reason"] = r
	}
	switch dr.Kind {
	case driver.HumanDecisionPlanReview:
		var in struct {
			Plan string `json:"plan"`
		}
		_ = json.Unmarshal(pr.Input, &in)
		dr.Prompt = in.Plan
	case driver.HumanDecisionQuestion:
		var in questionInput
		_ = json.Unmarshal(pr.Input, &in)
		if len(in.Questions) > 0 {
			q := in.Questions[0]
			dr.Prompt = q.Question
			for _, o := range q.Options {
				dr.Choices = append(dr.Choices, driver.DecisionChoice{Key: o.Label, Label: o.Label, Description: o.Description})
			}
		}
	}
	if dr.Prompt == "" {
		dr.Prompt = permissionPrompt(pr)
	}
	return dr
}

func permissionPrompt(pr *PermissionRequest) string {
	name := pr.DisplayName
	if name == "" {
		name = pr.ToolName
	}
	if name == "" {
		name = "a tool"
	}
	var b strings.Builder
	if pr.Title != "" {
		b.WriteString(pr.Title)
	} else {
		b.WriteString("Allow Claude to use " + name + "?")
	}
	if pr.Description != "" {
		b.WriteString(" (" + pr.Description + ")")
	}
	return b.String()
}

// Answer encodes the control_response line that carries the host's
// decision res for this request:
//   - can_use_tool approved or answered: allow with updatedInput, which is
//     the original input ({} when it was not an object) with the keys of
//     res.Answer laid over it (for AskUserQuestion that is where "answers"
//     go);
//   - can_use_tool rejected, timed out or aborted: deny with res.Text as the
//     message (a default when empty), and interrupt:true when aborted, so
//     the CLI stops the turn;
//   - any other subtype: an error response (this package answers only
//     permission prompts).
func (r *ControlRequest) Answer(res driver.DecisionResponse) ([]byte, error) {
	if r.Permission == nil {
		return EncodeControlError(r.RequestID, "agentwire: unsupported control request subtype "+r.Subtype), nil
	}
	switch res.Result {
	case driver.DecisionApproved, driver.DecisionAnswered:
		in := bytes.TrimSpace(r.Permission.Input)
		if len(in) == 0 || in[0] != '{' {
			in = json.RawMessage("{}") // the CLI requires an object
		}
		if len(res.Answer) > 0 {
			m, _ := decodeAny(in).(map[string]any)
			if m == nil {
				m = map[string]any{}
			}
			for k, v := range res.Answer {
				m[k] = v
			}
			b, err := json.Append(nil, m, json.SortMapKeys)
			if err != nil {
				return nil, err
			}
			in = b
		}
		return EncodeAllow(r.RequestID, in)
	default:
		msg := res.Text
		if msg == "" {
			msg = "The user denied this tool call."
		}
		return EncodeDeny(r.RequestID, msg, res.Result == driver.DecisionAborted), nil
	}
}

// Host -> CLI encoders. Each returns one complete line, newline included,
// ready to be written to the CLI's stdin.

type userMessageLine struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
}

// EncodeUserMessage encodes a user turn with text content:
//
//	{"type":"user","message":{"role":"user","content":"..."},"parent_tool_use_id":null,"session_id":"..."}
//
// sessionID may be empty: the CLI's own id is authoritative.
func EncodeUserMessage(sessionID, text string) []byte {
	c, _ := json.Append(nil, text, 0) // a string always encodes
	b, _ := EncodeUserContent(sessionID, c)
	return b
}

// EncodeUserContent is EncodeUserMessage with content given as JSON: a
// string or an array of content blocks (text, image, ...).
func EncodeUserContent(sessionID string, content json.RawMessage) ([]byte, error) {
	c := bytes.TrimSpace(content)
	if len(c) == 0 || (c[0] != '"' && c[0] != '[') || !json.Valid(c) {
		return nil, errors.New("claude: user content must be a JSON string or array")
	}
	var l userMessageLine
	l.Type = "user"
	l.Message.Role = "user"
	l.Message.Content = c
	l.SessionID = sessionID
	return marshalLine(l)
}

type controlResponseLine struct {
	Type     string `json:"type"`
	Response struct {
		Subtype   string `json:"subtype"`
		RequestID string `json:"request_id"`
		Response  any    `json:"response,omitempty"`
		Error     string `json:"error,omitempty"`
	} `json:"response"`
}

type allowBody struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
}

type denyBody struct {
	Behavior  string `json:"behavior"`
	Message   string `json:"message"`
	Interrupt bool   `json:"interrupt,omitempty"`
}

// EncodeAllow answers a can_use_tool request with allow. updatedInput is
// the tool input to run with (the original input, possibly edited); the
// CLI requires it, so it must be a JSON object.
//
//	{"type":"control_response","response":{"subtype":"success","request_id":"...","response":{"behavior":"allow","updatedInput":{...}}}}
func EncodeAllow(requestID string, updatedInput json.RawMessage) ([]byte, error) {
	in := bytes.TrimSpace(updatedInput)
	if len(in) == 0 || in[0] != '{' || !json.Valid(in) {
		return nil, errors.New("claude: updatedInput must be a JSON object")
	}
	return encodeSuccess(requestID, allowBody{Behavior: "allow", UpdatedInput: in})
}

// EncodeDeny answers a can_use_tool request with deny; message is shown to
// the model as the tool result. interrupt also stops the turn.
//
//	{"type":"control_response","response":{"subtype":"success","request_id":"...","response":{"behavior":"deny","message":"..."}}}
func EncodeDeny(requestID, message string, interrupt bool) []byte {
	b, _ := encodeSuccess(requestID, denyBody{Behavior: "deny", Message: message, Interrupt: interrupt})
	return b
}

// EncodeControlError answers a CLI control_request with an error.
//
//	{"type":"control_response","response":{"subtype":"error","request_id":"...","error":"..."}}
func EncodeControlError(requestID, message string) []byte {
	var l controlResponseLine
	l.Type = "control_response"
	l.Response.Subtype = "error"
	l.Response.RequestID = requestID
	l.Response.Error = message
	b, _ := marshalLine(l)
	return b
}

func encodeSuccess(requestID string, body any) ([]byte, error) {
	var l controlResponseLine
	l.Type = "control_response"
	l.Response.Subtype = "success"
	l.Response.RequestID = requestID
	l.Response.Response = body
	return marshalLine(l)
}

type controlRequestLine struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Request   any    `json:"request"`
}

// EncodeInterrupt asks the CLI to stop the current turn; it ends with a
// result whose terminal_reason is aborted_streaming or aborted_tools
// (subtype error_during_execution).
//
//	{"type":"control_request","request_id":"...","request":{"subtype":"interrupt"}}
func EncodeInterrupt(requestID string) []byte {
	b, _ := marshalLine(controlRequestLine{Type: "control_request", RequestID: requestID,
		Request: struct {
			Subtype string `json:"subtype"`
		}{"interrupt"}})
	return b
}

// EncodeInitialize opens the control protocol; the CLI answers with a
// control_response (its commands, models and account) before anything
// else. hooks is the hook configuration map (event -> [{matcher,
// hookCallbackIds, timeout}]) or nil for none.
//
//	{"type":"control_request","request_id":"...","request":{"subtype":"initialize","hooks":null}}
func EncodeInitialize(requestID string, hooks json.RawMessage) ([]byte, error) {
	h := bytes.TrimSpace(hooks)
	if len(h) == 0 {
		h = json.RawMessage("null")
	} else if (h[0] != '{' && string(h) != "null") || !json.Valid(h) {
		return nil, errors.New("claude: hooks must be a JSON object or null")
	}
	return marshalLine(controlRequestLine{Type: "control_request", RequestID: requestID,
		Request: struct {
			Subtype string          `json:"subtype"`
			Hooks   json.RawMessage `json:"hooks"`
		}{"initialize", h}})
}

// marshalLine encodes v as one line: keys in struct order (maps sorted),
// no HTML escaping ("&&" stays "&&", as the CLI and the SDKs write it).
func marshalLine(v any) ([]byte, error) {
	b, err := json.Append(nil, v, json.SortMapKeys)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decodeAny decodes raw passthrough JSON for a Raw, Args or Payload map; it
// returns nil for empty or invalid input. The depth guard runs first.
func decodeAny(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if jsonguard.Unmarshal(raw, &v, 0) != nil {
		return nil
	}
	return v
}
