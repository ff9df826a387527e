package mock

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateMessagesCorpus = flag.Bool("update-messages-corpus", false, "rewrite corpus/anthropic-messages/mock from what the Messages mock serves")

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
// (-update-messages-corpus rewrites them).
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
			s, err := New(Options{API: Messages, Replies: []Reply{sc.Replies[c.reply]}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			resp, err := http.Post(s.URL()+"/v1/messages", "application/json",
				strings.NewReader(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			body, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if (rerr != nil) != (c.name == "disconnect") {
				t.Fatalf("read error %v", rerr)
			}
			meta := map[string]any{
				"provider":     "anthropic-messages",
				"scenario":     c.name,
				"description":  "The Messages mock's response to reply " + string(rune('0'+c.reply)) + " of the Claude Code scenario " + c.scenario + ": " + sc.Description,
				"http_status":  resp.StatusCode,
				"content_type": resp.Header.Get("Content-Type"),
				"source":       map[string]any{"mock": "corpus/mock (API Messages)", "scenario_file": "corpus/scenarios/claude/" + c.scenario + ".json", "reply": c.reply, "test": "corpus/mock TestMessagesCorpus"},
			}
			mj, _ := json.MarshalIndent(meta, "", "  ")
			mj = append(mj, '\n')
			dir := filepath.Join(root, c.name)
			if *updateMessagesCorpus {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for f, data := range map[string][]byte{"stdout": body, "meta.json": mj} {
					if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			for f, want := range map[string][]byte{"stdout": body, "meta.json": mj} {
				got, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s/%s differs from what the mock serves (%v); run go test ./corpus/mock -run TestMessagesCorpus -update-messages-corpus", dir, f, err)
				}
			}
		})
	}
}
