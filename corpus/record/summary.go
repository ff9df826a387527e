package record

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentwire/agentwire/corpus/mock"
)

// maxString bounds each string kept in requests.jsonl.
const maxString = 1024

// RequestSummary is one line of requests.jsonl: what the mock received,
// normalised (see NormalizeRequest) and reduced to the conversation (system
// prompts, tool schemas and long strings are elided so the corpus stays
// small).
type RequestSummary struct {
	Seq    int    `json:"seq"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// Reply is the scripted reply index (-1 default reply, -2 auxiliary
	// endpoint, -3 side request).
	Reply int      `json:"reply"`
	Keys  []string `json:"keys,omitempty"` // top-level body keys, sorted
	Model string   `json:"model,omitempty"`
	// Conversation is Responses "input" without developer messages and
	// tool declarations, Messages "messages", Chat Completions "messages"
	// without system messages, or Gemini "contents".
	Conversation any `json:"conversation,omitempty"`
	// Bytes is the size of the normalised body.
	Bytes int `json:"bytes"`
}

// summarize reduces r to its summary. norm rewrites the body first (the
// recorder passes NormalizeRequest), so that what is cut and counted is
// the normalised text.
func summarize(api mock.API, r mock.Request, norm func([]byte) []byte) RequestSummary {
	raw := norm(r.Body)
	s := RequestSummary{Seq: r.Seq, Method: r.Method, Path: r.Path, Reply: r.Reply, Bytes: len(raw)}
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		return s
	}
	for k := range body {
		s.Keys = append(s.Keys, k)
	}
	sort.Strings(s.Keys)
	s.Model, _ = body["model"].(string)
	switch api {
	case mock.Responses:
		items, _ := body["input"].([]any)
		var keep []any
		for _, it := range items {
			m, _ := it.(map[string]any)
			if m == nil {
				continue
			}
			if m["type"] == "additional_tools" || (m["type"] == "message" && m["role"] == "developer") {
				continue
			}
			keep = append(keep, elide(m))
		}
		s.Conversation = keep
	case mock.Messages:
		s.Conversation = elide(body["messages"])
	case mock.Chat:
		msgs, _ := body["messages"].([]any)
		var keep []any
		for _, it := range msgs {
			if m, _ := it.(map[string]any); m != nil && m["role"] != "system" && m["role"] != "developer" {
				keep = append(keep, elide(m))
			}
		}
		s.Conversation = keep
	case mock.Gemini:
		s.Conversation = elide(body["contents"])
	}
	return s
}

// elide returns v with strings longer than maxString cut.
func elide(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > maxString {
			return fmt.Sprintf("%s…[%d bytes elided]", truncUTF8(x, maxString), len(x)-maxString)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = elide(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = elide(e)
		}
		return out
	}
	return v
}

func truncUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
