package mock

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// messagesCorpus names the cases of corpus/anthropic-messages/mock: the
// response body the Messages mock serves for a reply of a Claude Code
// scenario, with its HTTP status and content type. The corpus of the
// Anthropic parser thus holds what the CLI recordings were made against.
var messagesCorpus = []struct {
	name, scenario string
	reply          int
}{
	{"text", "text", 0},
	{"thinking", "thinking", 0},
	{"tool-use", "tool-success", 0},
	{"tool-result-answer", "tool-success", 1},
	{"error-event", "stream-error", 0},
	{"disconnect", "disconnect", 0},
	{"http-error", "api-error", 0},
}

// TestMessagesCorpus serves each case's reply on 127.0.0.1 and requires
// the committed body and meta.json to be exactly what the mock serves
// (mockCase).
func TestMessagesCorpus(t *testing.T) {
	const root = "../anthropic-messages/mock"
	for _, c := range messagesCorpus {
		t.Run(c.name, func(t *testing.T) {
			scenario := filepath.Join("..", "scenarios", "claude", c.scenario+".json")
			b, err := os.ReadFile(scenario)
			if err != nil {
				t.Fatal(err)
			}
			var sc struct {
				Description string  `json:"description"`
				Replies     []Reply `json:"replies"`
			}
			if err := json.Unmarshal(b, &sc); err != nil || c.reply >= len(sc.Replies) {
				t.Fatalf("%s: %v (%d replies)", scenario, err, len(sc.Replies))
			}
			body, status, ctype, rerr := serve(t, Messages, sc.Replies[c.reply], "/v1/messages",
				`{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			if (rerr != nil) != (c.name == "disconnect") {
				t.Fatalf("read error %v", rerr)
			}
			mockCase(t, filepath.Join(root, c.name), body, map[string]any{
				"provider":     "anthropic-messages",
				"scenario":     c.name,
				"description":  "The Messages mock's response to reply " + string(rune('0'+c.reply)) + " of the Claude Code scenario " + c.scenario + ": " + sc.Description,
				"http_status":  status,
				"content_type": ctype,
				"source":       map[string]any{"mock": "corpus/mock (API Messages)", "scenario_file": "corpus/scenarios/claude/" + c.scenario + ".json", "reply": c.reply, "test": "corpus/mock TestMessagesCorpus"},
			})
		})
	}
}
