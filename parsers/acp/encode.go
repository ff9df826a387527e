package acp

import (
	"github.com/agentwire/agentwire/jsonrpc"
)

// The client side of a session, as lines to write to the agent's stdin
// (each with its LF and the "jsonrpc":"2.0" member, which the ACP SDKs
// require). params values are marshalled as JSON; use json.RawMessage to
// pass bytes through.

// ProtocolVersion is the ACP protocol version AppendInitialize offers.
const ProtocolVersion = 1

// ClientInfo identifies the client in initialize.
type ClientInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// AppendInitialize appends the initialize request with ProtocolVersion,
// the client's info and its capabilities (such as
// {"fs":{"readTextFile":true,"writeTextFile":true},"terminal":false}).
func AppendInitialize(b []byte, id jsonrpc.ID, info ClientInfo, capabilities map[string]any) ([]byte, error) {
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	return jsonrpc.AppendRequest(b, true, id, mInitialize, map[string]any{
		"protocolVersion": ProtocolVersion, "clientInfo": info, "clientCapabilities": capabilities,
	})
}

// AppendSessionNew appends session/new for the absolute working directory
// cwd and the MCP servers to connect (nil: none).
func AppendSessionNew(b []byte, id jsonrpc.ID, cwd string, mcpServers []any) ([]byte, error) {
	if mcpServers == nil {
		mcpServers = []any{}
	}
	return jsonrpc.AppendRequest(b, true, id, mSessionNew, map[string]any{"cwd": cwd, "mcpServers": mcpServers})
}

// AppendSessionLoad appends session/load for the session of a checkpoint
// (SessionState.ResumeID). Send it only to an agent whose initialize
// response advertised loadSession (Parser.LoadSession): the agent replays
// the history as session/update notifications before it answers.
func AppendSessionLoad(b []byte, id jsonrpc.ID, sessionID, cwd string, mcpServers []any) ([]byte, error) {
	if mcpServers == nil {
		mcpServers = []any{}
	}
	return jsonrpc.AppendRequest(b, true, id, mSessionLoad, map[string]any{"sessionId": sessionID, "cwd": cwd, "mcpServers": mcpServers})
}

// AppendPrompt appends session/prompt with one text content block.
func AppendPrompt(b []byte, id jsonrpc.ID, sessionID, text string) ([]byte, error) {
	return jsonrpc.AppendRequest(b, true, id, mSessionPrompt, map[string]any{
		"sessionId": sessionID, "prompt": []any{map[string]any{"type": "text", "text": text}},
	})
}

// AppendCancel appends the session/cancel notification. The agent answers
// the pending session/prompt with stopReason cancelled once it stopped;
// pending permission requests must then be answered with the cancelled
// outcome (Request.Answer with driver.DecisionAborted).
func AppendCancel(b []byte, sessionID string) ([]byte, error) {
	return jsonrpc.AppendNotification(b, true, mSessionCancel, map[string]any{"sessionId": sessionID})
}

// AppendResult appends a response with result (an fs/read_text_file
// answer {"content": ...}, {} for fs/write_text_file).
func AppendResult(b []byte, id jsonrpc.ID, result any) ([]byte, error) {
	return jsonrpc.AppendResponse(b, true, id, result)
}

// AppendErrorResponse appends an error response to an agent request the
// client refuses or does not handle (-32601 method not found, -32602
// invalid params for a path outside the workspace).
func AppendErrorResponse(b []byte, id jsonrpc.ID, code int64, message string) ([]byte, error) {
	return jsonrpc.AppendError(b, true, id, code, message, nil)
}
