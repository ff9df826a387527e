package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/corpus/mock"
)

// TestCommittedScenarios loads every scenario file of the corpus: a broken
// file fails plain go test, not only make record.
func TestCommittedScenarios(t *testing.T) {
	scens, err := Load("../scenarios")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range scens {
		for _, c := range s.Cases() {
			key := s.Provider + "/" + c.Name
			if seen[key] {
				t.Errorf("duplicate case %s", key)
			}
			seen[key] = true
		}
	}
	if !seen["codex/text"] {
		t.Errorf("codex/text missing among %d cases", len(seen))
	}
}

func writeScenario(t *testing.T, dir, provider, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, provider, name+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ provider, body, want string }{
		"unknown field":     {"codex", `{"description":"d","runs":[{"prompt":"p"}],"bogus":1}`, "unknown field"},
		"no description":    {"codex", `{"runs":[{"prompt":"p"}]}`, "description"},
		"no runs":           {"codex", `{"description":"d"}`, "no runs"},
		"empty prompt":      {"codex", `{"description":"d","runs":[{}]}`, "empty prompt"},
		"resume first":      {"codex", `{"description":"d","runs":[{"prompt":"p","resume":true}]}`, "previous run"},
		"codex interrupt":   {"codex", `{"description":"d","runs":[{"prompt":"p","interrupt":{"on_request":1}}]}`, "signal"},
		"claude decision":   {"claude", `{"description":"d","runs":[{"prompt":"p","decisions":["accept"]}]}`, "not valid"},
		"bad signal":        {"codex", `{"description":"d","runs":[{"prompt":"p","signal":{"on_request":1,"name":"SIGFOO"}}]}`, "unknown signal"},
		"trigger zero":      {"codex", `{"description":"d","runs":[{"prompt":"p","signal":{"name":"SIGINT"}}]}`, "on_request"},
		"bad reply":         {"codex", `{"description":"d","replies":[{"status":200}],"runs":[{"prompt":"p"}]}`, "reply 0"},
		"proof single run":  {"codex", `{"description":"d","resume_proof":"x","runs":[{"prompt":"p"}]}`, "two runs"},
		"stream not claude": {"appserver", `{"description":"d","runs":[{"prompt":"p","stream_input":true}]}`, "Claude only"},
		"claude intr":       {"claude", `{"description":"d","runs":[{"prompt":"p","interrupt":{"on_request":1}}]}`, "stream_input"},
	} {
		p := writeScenario(t, dir, tc.provider, strings.ReplaceAll(name, " ", "_"), tc.body)
		_, err := LoadFile(p, tc.provider)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestVariantsAndVersions(t *testing.T) {
	dir := t.TempDir()
	p := writeScenario(t, dir, "claude", "text", `{"description":"d","runs":[{"prompt":"p"}],
		"variants":{"":[],"partial":["--include-partial-messages"]},"versions":["latest"]}`)
	s, err := LoadFile(p, "claude")
	if err != nil {
		t.Fatal(err)
	}
	cs := s.Cases()
	if len(cs) != 2 || cs[0].Name != "text" || cs[1].Name != "text-partial" || cs[1].Extra[0] != "--include-partial-messages" {
		t.Fatalf("cases = %+v", cs)
	}
	if !s.For(CLI{Name: "claude-code", Version: "2.1.328", Latest: true}) || s.For(CLI{Name: "claude-code", Version: "2.0.50"}) {
		t.Error("versions: latest-only scenario selected wrongly")
	}
}

func TestSummarizeElides(t *testing.T) {
	long := strings.Repeat("é", 2000) // 4000 bytes
	body, _ := json.Marshal(map[string]any{
		"model": "m", "instructions": "sys",
		"input": []any{
			map[string]any{"type": "additional_tools", "tools": []any{}},
			map[string]any{"type": "message", "role": "developer", "content": "x"},
			map[string]any{"type": "message", "role": "user", "content": long},
		},
	})
	s := summarize(mock.Responses, mock.Request{Seq: 3, Method: "POST", Path: "/v1/responses", Body: body}, Normalize)
	conv := s.Conversation.([]any)
	if len(conv) != 1 {
		t.Fatalf("conversation kept %d items, want 1 (user message only)", len(conv))
	}
	c := conv[0].(map[string]any)["content"].(string)
	if len(c) > maxString+64 || !strings.Contains(c, "bytes elided") || !strings.HasPrefix(c, "éé") {
		t.Errorf("content not elided on a rune boundary: %d bytes", len(c))
	}
	if s.Model != "m" || strings.Join(s.Keys, ",") != "input,instructions,model" || s.Bytes != len(body) {
		t.Errorf("summary = %+v", s)
	}
}

func TestPlaceholders(t *testing.T) {
	got := placeholders([]string{"/c/bin/codex", "-c", `base_url="http://127.0.0.1:5/v1"`, "/s/work/x"},
		"/c/bin/codex", "/s", "http://127.0.0.1:5", 0)
	want := []string{"<CLI>", "-c", `base_url="<MOCK_URL>/v1"`, "<SCRATCH>/work/x"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("placeholders = %q", got)
	}
}
