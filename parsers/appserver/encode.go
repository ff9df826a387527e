package appserver

import (
	"github.com/agentwire/agentwire/jsonrpc"
)

// The client side of a session, as lines to write to the app-server's
// stdin (each with its LF, without the "jsonrpc" member, which the
// app-server does not need). params values are marshalled as JSON; use
// json.RawMessage to pass bytes through.

// ClientInfo identifies the client in initialize.
type ClientInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// AppendInitialize appends the initialize request. The app-server answers
// every other request with "Not initialized" until it has answered this
// one and received the initialized notification (AppendInitialized).
func AppendInitialize(b []byte, id jsonrpc.ID, info ClientInfo, capabilities map[string]any) ([]byte, error) {
	p := map[string]any{"clientInfo": info}
	if capabilities != nil {
		p["capabilities"] = capabilities
	}
	return jsonrpc.AppendRequest(b, false, id, mInitialize, p)
}

// AppendInitialized appends the initialized notification.
func AppendInitialized(b []byte) ([]byte, error) {
	return jsonrpc.AppendNotification(b, false, "initialized", nil)
}

// AppendThreadStart appends thread/start with params such as model, cwd,
// approvalPolicy ("untrusted", "on-request", "never"), sandbox.
func AppendThreadStart(b []byte, id jsonrpc.ID, params map[string]any) ([]byte, error) {
	if params == nil {
		params = map[string]any{}
	}
	return jsonrpc.AppendRequest(b, false, id, mThreadStart, params)
}

// AppendThreadResume appends thread/resume for the thread of a checkpoint
// (SessionState.ResumeID); extra params may override settings.
func AppendThreadResume(b []byte, id jsonrpc.ID, threadID string, extra map[string]any) ([]byte, error) {
	p := map[string]any{}
	for k, v := range extra {
		p[k] = v
	}
	p["threadId"] = threadID
	return jsonrpc.AppendRequest(b, false, id, mThreadResume, p)
}

// AppendTurnStart appends turn/start with one text input; extra params
// (model, effort, approvalPolicy, cwd, outputSchema...) are added.
func AppendTurnStart(b []byte, id jsonrpc.ID, threadID, text string, extra map[string]any) ([]byte, error) {
	p := map[string]any{}
	for k, v := range extra {
		p[k] = v
	}
	p["threadId"] = threadID
	p["input"] = []any{map[string]any{"type": "text", "text": text}}
	return jsonrpc.AppendRequest(b, false, id, mTurnStart, p)
}

// AppendTurnInterrupt appends turn/interrupt. The server answers {} at
// once; the turn really ends with turn/completed status "interrupted".
func AppendTurnInterrupt(b []byte, id jsonrpc.ID, threadID, turnID string) ([]byte, error) {
	return jsonrpc.AppendRequest(b, false, id, mTurnInterrupt, map[string]any{"threadId": threadID, "turnId": turnID})
}

// AppendDecision appends the response to a command or file-change
// approval request with a v2 decision: "accept", "acceptForSession",
// "decline" (the turn goes on without the action) or "cancel" (the turn is
// interrupted too). id is the request's id, echoed exactly.
func AppendDecision(b []byte, id jsonrpc.ID, decision string) ([]byte, error) {
	return jsonrpc.AppendResponse(b, false, id, map[string]string{"decision": decision})
}

// AppendErrorResponse appends an error response to a server request the
// client does not handle (-32601 method not found).
func AppendErrorResponse(b []byte, id jsonrpc.ID, code int64, message string) ([]byte, error) {
	return jsonrpc.AppendError(b, false, id, code, message, nil)
}
