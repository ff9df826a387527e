package gemini

import (
	"bytes"

	"github.com/agentwire/agentwire/internal/detect"
	"github.com/agentwire/agentwire/internal/jsonguard"
)

// Detect reports whether head, the first bytes of an HTTP body (the last
// line possibly cut), is a Gemini streamGenerateContent answer, and the
// byte offset of the line that says so: an SSE data line, or the start of
// a JSON body (an object, or an array whose first element is one), whose
// object has candidates, promptFeedback, usageMetadata beside
// modelVersion or responseId, or a google.rpc error ({"error": {"code":
// <number>, "status": <string>}}, which no other provider writes). It
// never panics and reads head once per line.
func Detect(head []byte) (offset int, ok bool) {
	for at, t := range detect.Lines(head) {
		switch ts := bytes.TrimSpace(t); {
		case bytes.HasPrefix(t, []byte("data:")):
			if isResponse(bytes.TrimSpace(t[len("data:"):])) {
				return at, true
			}
		case at == 0 && len(ts) > 0 && (ts[0] == '{' || ts[0] == '['):
			// A body that is one JSON value: the whole head is it.
			return 0, isResponse(detect.TrimBOM(head))
		}
	}
	return 0, false
}

// isResponse reports whether the JSON value b (possibly cut short) is a
// GenerateContentResponse or a google.rpc error, by its top-level members.
func isResponse(b []byte) bool {
	i := jsonguard.SkipWS(b, 0)
	if i < len(b) && b[i] == '[' {
		i = jsonguard.SkipWS(b, i+1)
	}
	if i >= len(b) || b[i] != '{' {
		return false
	}
	var usage, model, yes bool
	eachMember(b, i, func(name []byte, b []byte, i int) int {
		switch string(name) {
		case "candidates", "promptFeedback":
			yes = true
		case "usageMetadata":
			usage = true
		case "modelVersion", "responseId":
			model = true
		case "error":
			yes = yes || isRPCError(b, i)
		}
		return jsonguard.ValueEnd(b, i)
	})
	return yes || usage && model
}

// isRPCError reports whether the value at b[i] is a google.rpc.Status:
// a numeric code and a string status (OpenAI's error has a string code
// and a type; Anthropic's a type).
func isRPCError(b []byte, i int) bool {
	if b[i] != '{' {
		return false
	}
	var code, status, typ bool
	eachMember(b, i, func(name []byte, b []byte, i int) int {
		switch string(name) {
		case "code":
			code = b[i] == '-' || b[i] >= '0' && b[i] <= '9'
		case "status":
			status = b[i] == '"'
		case "type":
			typ = true
		}
		return jsonguard.ValueEnd(b, i)
	})
	return code && status && !typ
}
