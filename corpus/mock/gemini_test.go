package mock

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/gemini"
)

// geminiScenarios are the scripted Gemini replies the issue names, each
// with what parsers/gemini must make of it.
var geminiScenarios = []scenario{
	{name: "text", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"Hel", "lo", " world"}}}}, output: "Hello world", finish: driver.FinishStop},
	{name: "thinking", reply: Reply{Usage: &Usage{InputTokens: 20, OutputTokens: 30, ReasoningTokens: 25},
		Items: []Item{{Type: "reasoning", Deltas: []string{"**Plan**\n\n", "Say OK."}}, {Type: "text", Deltas: []string{"OK"}}}},
		output: "OK", finish: driver.FinishStop},
	{name: "one-function-call", reply: Reply{Items: []Item{{Type: "tool_call", Name: "get_weather", Input: json.RawMessage(`{"location": "Boston"}`)}}},
		finish: driver.FinishToolCalls, calls: 1},
	{name: "two-function-calls", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"Checking both."}},
		{Type: "tool_call", Name: "get_weather", Input: json.RawMessage(`{"location": "Boston"}`)},
		{Type: "tool_call", Name: "get_weather", Input: json.RawMessage(`{"location": "New Delhi"}`)}}},
		output: "Checking both.", finish: driver.FinishToolCalls, calls: 2},
	{name: "max-tokens", reply: Reply{StopReason: "MAX_TOKENS", Items: []Item{{Type: "text", Deltas: []string{"The sky is blue because"}}}},
		output: "The sky is blue because", finish: driver.FinishLength},
	{name: "safety", reply: Reply{StopReason: "SAFETY", Items: []Item{{Type: "text", Deltas: []string{"I can"}}}},
		output: "I can", finish: driver.FinishContentFilter},
	{name: "error", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"Par"}}}, Error: &StreamError{Type: "UNAVAILABLE", Message: "mock: the model is overloaded"}},
		output: "Par", code: driver.FailureProviderError},
	{name: "disconnect", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"a", "b", "c"}}}, DisconnectAfter: 2},
		output: "ab", code: driver.FailureIncomplete},
	{name: "http-error", reply: Reply{Status: 429}, code: driver.FailureProviderError},
}

func TestGeminiScenarios(t *testing.T) {
	for _, sc := range geminiScenarios {
		t.Run(sc.name, func(t *testing.T) {
			s, ts := newServer(t, Options{API: Gemini, Replies: []Reply{sc.reply}})
			resp := post(t, ts.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
			sink := &adaptertest.RecordingSink{}
			r, err := gemini.ParseResponse(resp, sink, gemini.Options{Streaming: true})
			sc.check(t, gemini.Capability, sink, r, err)
			body := r.RawStreams.Stdout
			if sc.reply.Status == 0 && (!strings.HasPrefix(body, "data: {") || strings.Count(body, "\r\n\r\n") != strings.Count(body, "data: ")) {
				t.Errorf("not CRLF-framed Gemini SSE: %q", body)
			}
			if sc.reply.Status == 0 && r.Model != "gemini-2.5-flash" {
				t.Errorf("model %q", r.Model)
			}
			if rq := s.Requests(); len(rq) != 1 || rq[0].Reply != 0 {
				t.Errorf("requests %+v", rq)
			}
		})
	}
}

func TestGeminiAuxiliary(t *testing.T) {
	_, ts := newServer(t, Options{API: Gemini})
	resp := post(t, ts.URL+"/v1beta/models/gemini-2.5-flash:countTokens", `{}`)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(b) != `{"totalTokens":42}` {
		t.Errorf("countTokens: %d %s", resp.StatusCode, b)
	}
	// Past the script the default reply still ends with a finishReason.
	resp = post(t, ts.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", `{}`)
	r, err := gemini.ParseResponse(resp, &adaptertest.RecordingSink{}, gemini.Options{})
	if err != nil || r.Failure != nil || !strings.Contains(r.Output, "no scripted reply") {
		t.Errorf("default reply: %v %+v %q", err, r.Failure, r.Output)
	}
}

// geminiCorpus is where the Gemini scenarios are kept as corpus cases.
const geminiCorpus = "../gemini/mock"

// TestGeminiCorpus: every Gemini scenario is a corpus case (the body the
// mock serves as stdout, its status and content type and the scenario in
// meta.json), and the committed case is what the mock serves now
// (mockCase).
func TestGeminiCorpus(t *testing.T) {
	for _, sc := range geminiScenarios {
		t.Run(sc.name, func(t *testing.T) {
			const path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
			body, status, ctype, err := serve(t, Gemini, sc.reply, path+"?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
			if (err != nil) != (sc.reply.DisconnectAfter > 0) {
				t.Fatalf("read error %v", err)
			}
			mockCase(t, filepath.Join(geminiCorpus, sc.name), body, map[string]any{
				"provider": "gemini", "scenario": sc.name,
				"http_status": status, "content_type": ctype,
				"source": map[string]any{"kind": "mock", "server": "corpus/mock, API Gemini (TestGeminiCorpus)",
					"request": "POST " + path + "?alt=sse", "reply": sc.reply},
			})
		})
	}
}
