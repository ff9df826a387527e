package mock

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Gemini API endpoint: POST /v1beta/models/{model}:streamGenerateContent
// (Gemini CLI adds ?alt=sse; the mock answers SSE either way), as the
// Developer API writes it: every event is `data: <GenerateContentResponse>`
// with CRLF line ends, usageMetadata is a running snapshot on every event,
// and the last event carries finishReason and the full usage. There is no
// terminal event: the stream ends with the body.

// isGeminiModel reports whether path is a Gemini generation endpoint, on
// the Developer API (/v1beta/models/M:..., /v1/models/M:...) or Vertex AI
// (/v1/projects/P/locations/L/publishers/google/models/M:...).
func isGeminiModel(path string) bool {
	return strings.HasSuffix(path, ":streamGenerateContent") && strings.Contains(path, "/models/")
}

// geminiModelOf returns the model named in a Gemini path, or Model.
func geminiModelOf(path string) string {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return Model
	}
	m, _, _ := strings.Cut(path[i+len("/models/"):], ":")
	if m == "" {
		return Model
	}
	return m
}

// writeGemini streams reply r as a Gemini streamGenerateContent answer:
// one event per text or thought delta, one per function call (whole, no
// id, the first call of the reply with a thoughtSignature, as Gemini 2.5
// sends them), then a closing event with an empty text part, the
// finishReason (StopReason, else STOP) and the full usage; or, with
// Error, an error object event after the items.
func writeGemini(st *stream, tag string, model string) error {
	st.w.w.CRLF = true
	u := st.reply.Usage
	if u == nil {
		u = &Usage{InputTokens: 100, OutputTokens: 10}
	}
	respID := "mock-resp-" + tag
	snapshot := func() obj {
		return o("promptTokenCount", u.InputTokens, "totalTokenCount", u.InputTokens,
			"promptTokensDetails", []any{o("modality", "TEXT", "tokenCount", u.InputTokens)})
	}
	event := func(parts []any, tail ...any) error {
		cand := o("content", o("parts", parts, "role", "model"))
		cand = append(cand, tail...)
		cand = append(cand, "index", 0)
		usage := snapshot()
		if len(tail) > 0 {
			usage = geminiUsage(u)
		}
		return st.event("", o("candidates", []any{cand}, "usageMetadata", usage, "modelVersion", model, "responseId", respID))
	}
	signed := false
	calls := false
	for i := range st.reply.Items {
		it := &st.reply.Items[i]
		switch it.Type {
		case "text", "reasoning":
			for _, d := range it.deltas() {
				p := o("text", d)
				if it.Type == "reasoning" {
					p = append(p, "thought", true)
				}
				if err := event([]any{p}); err != nil {
					return err
				}
			}
		case "tool_call":
			calls = true
			p := o("functionCall", o("name", it.Name, "args", json.RawMessage(it.input())))
			if !signed {
				signed = true
				p = append(p, "thoughtSignature", fmt.Sprintf("bW9jay1zaWduYXR1cmUt%s", tag))
			}
			if err := event([]any{p}); err != nil {
				return err
			}
		}
	}
	if err := st.end(); err != nil {
		return err
	}
	if e := st.reply.Error; e != nil {
		status := e.Type
		if status == "" {
			status = "INTERNAL"
		}
		return st.event("", o("error", o("code", geminiCode(status), "message", e.Message, "status", status)))
	}
	reason := "STOP"
	if st.reply.StopReason != "" {
		reason = st.reply.StopReason
	}
	tail := []any{"finishReason", reason}
	if calls && reason == "STOP" {
		tail = append(tail, "finishMessage", "Model generated function call(s).")
	}
	if reason == "SAFETY" {
		tail = append(tail, "safetyRatings", []any{
			o("category", "HARM_CATEGORY_HARASSMENT", "probability", "HIGH", "blocked", true),
			o("category", "HARM_CATEGORY_DANGEROUS_CONTENT", "probability", "NEGLIGIBLE"),
		})
	}
	return event([]any{o("text", "")}, tail...)
}

// geminiUsage is the final usageMetadata of a reply: output tokens split
// into candidates and thoughts, cached content among the prompt.
func geminiUsage(u *Usage) obj {
	cands := u.OutputTokens - u.ReasoningTokens
	m := o("promptTokenCount", u.InputTokens, "candidatesTokenCount", cands,
		"totalTokenCount", u.InputTokens+u.OutputTokens)
	if u.CachedTokens > 0 {
		m = append(m, "cachedContentTokenCount", u.CachedTokens)
	}
	m = append(m, "promptTokensDetails", []any{o("modality", "TEXT", "tokenCount", u.InputTokens)})
	if u.ReasoningTokens > 0 {
		m = append(m, "thoughtsTokenCount", u.ReasoningTokens)
	}
	return m
}

// geminiCode is the HTTP code of a google.rpc status.
func geminiCode(status string) int {
	switch status {
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION":
		return http.StatusBadRequest
	case "PERMISSION_DENIED":
		return http.StatusForbidden
	case "NOT_FOUND":
		return http.StatusNotFound
	case "RESOURCE_EXHAUSTED":
		return http.StatusTooManyRequests
	case "UNAVAILABLE":
		return http.StatusServiceUnavailable
	case "DEADLINE_EXCEEDED":
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// geminiStatus is the google.rpc status of an HTTP error code.
func geminiStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

// geminiErrorBody is the API's error body for an HTTP error: pretty-printed,
// as the real front end writes it.
func geminiErrorBody(status int) []byte {
	return fmt.Appendf(nil, "{\n  \"error\": {\n    \"code\": %d,\n    \"message\": \"mock: HTTP %d\",\n    \"status\": %q\n  }\n}\n",
		status, status, geminiStatus(status))
}
