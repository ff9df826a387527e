package mock

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/openai"
)

// openaiScenarios are the scenarios both OpenAI formats play; stop is the
// StopReason of the length scenario on each.
func openaiScenarios(length string) []scenario {
	return []scenario{
		{name: "text", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"Hel", "lo", " world"}}}}, output: "Hello world", finish: driver.FinishStop},
		{name: "reasoning", reply: Reply{Usage: &Usage{InputTokens: 20, OutputTokens: 30, CachedTokens: 8, ReasoningTokens: 25},
			Items: []Item{{Type: "reasoning", Deltas: []string{"**Plan**\n\n", "Say OK."}}, {Type: "text", Deltas: []string{"OK"}}}},
			output: "OK", finish: driver.FinishStop},
		{name: "tool-call", reply: Reply{Items: []Item{{Type: "tool_call", Name: "get_weather", Input: json.RawMessage(`{"location": "Boston"}`), Chunks: 3}}},
			finish: driver.FinishToolCalls, calls: 1},
		{name: "parallel-tool-calls", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"Checking both."}},
			{Type: "tool_call", Name: "get_weather", Input: json.RawMessage(`{"location": "Boston"}`)},
			{Type: "tool_call", Name: "get_weather", Input: json.RawMessage(`{"location": "New Delhi"}`)}}},
			output: "Checking both.", finish: driver.FinishToolCalls, calls: 2},
		{name: "length", reply: Reply{StopReason: length, Items: []Item{{Type: "text", Deltas: []string{"The sky is blue because"}}}},
			output: "The sky is blue because", finish: driver.FinishLength},
		{name: "refusal", reply: Reply{Items: []Item{{Type: "refusal", Deltas: []string{"I can't ", "help with that."}}}},
			finish: driver.FinishStop, refusal: "I can't help with that."},
		{name: "error", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"Par"}}},
			Error: &StreamError{Type: "server_error", Code: "server_error", Message: "mock: the server had an error"}},
			output: "Par", code: driver.FailureProviderError},
		{name: "disconnect", reply: Reply{Items: []Item{{Type: "text", Deltas: []string{"a", "b", "c", "d"}}}, DisconnectAfter: 4},
			code: driver.FailureIncomplete},
		{name: "http-error", reply: Reply{Status: 429}, code: driver.FailureProviderError},
	}
}

func TestOpenAIScenarios(t *testing.T) {
	for _, api := range []struct {
		api    API
		path   string
		format openai.Format
		length string
	}{{Chat, "/v1/chat/completions", openai.Chat, "length"}, {Responses, "/v1/responses", openai.Responses, "max_output_tokens"}} {
		for _, sc := range openaiScenarios(api.length) {
			t.Run(api.api.String()+"/"+sc.name, func(t *testing.T) {
				_, ts := newServer(t, Options{API: api.api, Replies: []Reply{sc.reply}})
				resp := post(t, ts.URL+api.path, `{"model":"gpt-mock","stream":true}`)
				sink := &adaptertest.RecordingSink{}
				r, err := openai.ParseHTTP(resp, sink, openai.Options{Streaming: true})
				sc.check(t, openai.Capability, sink, r, err)
				if sc.code == "" && api.format != openaiFormat(r.Provider) {
					t.Errorf("provider %q", r.Provider)
				}
				if sc.name == "reasoning" && (r.Usage == nil || *r.Usage != driver.Usage{InputTokens: 20, OutputTokens: 30, CachedInputTokens: 8, ReasoningTokens: 25}) {
					t.Errorf("usage %+v", r.Usage)
				}
				if api.api == Chat && sc.reply.Status == 0 && sc.code == "" && !strings.HasSuffix(r.RawStreams.Stdout, "data: [DONE]\n\n") {
					t.Errorf("no [DONE] at the end: %q", r.RawStreams.Stdout)
				}
			})
		}
	}
}

func openaiFormat(provider string) openai.Format {
	switch provider {
	case openai.ProviderChat:
		return openai.Chat
	case openai.ProviderResponses:
		return openai.Responses
	}
	return openai.Auto
}

// TestOpenAICorpusCases: the corpus cases corpus/openai-{chat,responses}/
// mock/<scenario> are exactly what the mock serves for the scenarios
// above (POST with {"model":"gpt-mock","stream":true}), so a change of the
// mock shows up as drift (mockCase).
func TestOpenAICorpusCases(t *testing.T) {
	for _, api := range []struct {
		api      API
		path     string
		provider string
		length   string
	}{{Chat, "/v1/chat/completions", openai.ProviderChat, "length"}, {Responses, "/v1/responses", openai.ProviderResponses, "max_output_tokens"}} {
		for _, sc := range openaiScenarios(api.length) {
			body, status, ctype, _ := serve(t, api.api, sc.reply, api.path, `{"model":"gpt-mock","stream":true}`)
			mockCase(t, filepath.Join("..", api.provider, "mock", sc.name), body, map[string]any{
				"provider": api.provider, "scenario": sc.name,
				"description":  "The corpus/mock " + api.api.String() + " endpoint's answer to the " + sc.name + " scenario of corpus/mock/openai_test.go (POST " + api.path + ` {"model":"gpt-mock","stream":true}).`,
				"source":       "corpus/mock (TestOpenAICorpusCases)",
				"http_status":  status,
				"content_type": ctype,
			})
		}
	}
}
