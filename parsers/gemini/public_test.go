package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
)

type publicCase struct {
	name   string
	status int
	body   string
}

// corpusRoot holds the gemini corpus: public captures (provenance in each
// meta.json) and the mock's scenarios. corpus.Test holds them to their
// golden.json; the tests here use them as inputs.
const corpusRoot = "../../corpus/gemini"

// publicCases are the cases of corpusRoot with their HTTP status.
func publicCases(t testing.TB) []publicCase {
	t.Helper()
	metas, _ := filepath.Glob(filepath.Join(corpusRoot, "*", "*", "meta.json"))
	if len(metas) < 20 {
		t.Fatalf("found %d gemini corpus cases", len(metas))
	}
	var cases []publicCase
	for _, m := range metas {
		dir := filepath.Dir(m)
		b, err := os.ReadFile(filepath.Join(dir, "stdout"))
		if err != nil {
			t.Fatal(err)
		}
		mb, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			HTTPStatus int `json:"http_status"`
		}
		if err := json.Unmarshal(mb, &meta); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		rel, _ := filepath.Rel(corpusRoot, dir)
		cases = append(cases, publicCase{name: filepath.ToSlash(rel), status: meta.HTTPStatus, body: string(b)})
	}
	return cases
}

// TestPublicCaptures replays every corpus case under every chunking, with
// and without streaming: zero violations, identical results, the raw body
// byte-exact, and the terminal the exact bytes of an event.
func TestPublicCaptures(t *testing.T) {
	for _, c := range publicCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var want result
			for i, ch := range chunkings(uint64(len(c.body))) {
				got, v := run(c.status, c.body, Options{Streaming: true}, ch.Mk)
				if len(v) > 0 {
					t.Fatalf("%s: violations:\n%s", ch.Name, v)
				}
				if got.Response.RawStreams.Stdout != c.body {
					t.Fatalf("%s: raw body differs from the capture", ch.Name)
				}
				if i == 0 {
					want = got
					continue
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%s differs from whole (-whole +%s):\n%s", ch.Name, ch.Name, d)
				}
			}
			if term := want.Response.RawStreams.Terminal; term != nil && !strings.Contains(c.body, string(term.JSON)) {
				t.Fatalf("terminal JSON is not the exact bytes of an event: %s", term.JSON)
			}
			plain, v := run(c.status, c.body, Options{}, nil)
			if len(v) > 0 || len(plain.Payloads) != 0 {
				t.Fatalf("non-streaming: %d payloads, violations:\n%s", len(plain.Payloads), v)
			}
			if d := cmp.Diff(want.Response, plain.Response); d != "" {
				t.Fatalf("non-streaming response differs:\n%s", d)
			}
		})
	}
}

// TestPublicSemantics asserts what each public capture means, beyond the
// goldens: the finish (or failure), the client calls, and the usage.
func TestPublicSemantics(t *testing.T) {
	type want struct {
		finish driver.FinishReason
		code   driver.FailureCode
		calls  int
		usage  *driver.Usage
	}
	wants := map[string]want{
		"adkgo-gemini25flash-three-function-calls":               {finish: driver.FinishToolCalls, calls: 3, usage: &driver.Usage{InputTokens: 171, OutputTokens: 131, ReasoningTokens: 77}},
		"adkgo-gemini25flash-unexpected-tool-call":               {finish: driver.FinishOther},
		"crewai-http400-invalid-api-key":                         {code: driver.FailureProviderError},
		"firebase-googleai-gemini25flash-thinking-function-call": {finish: driver.FinishToolCalls, calls: 1},
		"firebase-googleai-gemini25flash-url-context-grounding":  {finish: driver.FinishStop, usage: &driver.Usage{InputTokens: 1057, OutputTokens: 120, ReasoningTokens: 39}},
		"firebase-googleai-prompt-blocked-safety":                {finish: driver.FinishContentFilter},
		"firebase-vertexai-gemini15flash-finish-reason-safety":   {finish: driver.FinishContentFilter},
		"jsgenai-gemini25flash-max-tokens":                       {finish: driver.FinishLength},
		"jsgenai-gemini25flash-server-mcp-cached-tokens":         {finish: driver.FinishStop, calls: 1, usage: &driver.Usage{InputTokens: 3778, CachedInputTokens: 901, OutputTokens: 523, ReasoningTokens: 91}},
		"jsgenai-vertex-gemini25flash-max-tokens":                {finish: driver.FinishLength},
		"openinference-gemini20flash-text-12-chunks":             {finish: driver.FinishStop, usage: &driver.Usage{InputTokens: 9, OutputTokens: 527}},
		"openinference-gemini25flash-code-execution":             {finish: driver.FinishStop, calls: 1, usage: &driver.Usage{InputTokens: 796, OutputTokens: 717, ReasoningTokens: 240}},
		"openinference-gemini35flash-thinking-signature":         {finish: driver.FinishStop},
		"openinference-gemini35flash-two-function-calls":         {finish: driver.FinishToolCalls, calls: 2},
		"vercel-vertex-gemini31pro-streamed-function-call-args":  {finish: driver.FinishToolCalls, calls: 2},
	}
	seen := 0
	for _, c := range publicCases(t) {
		name, ok := strings.CutPrefix(c.name, "public/")
		if !ok {
			continue
		}
		w, ok := wants[name]
		if !ok {
			t.Errorf("%s: no expectation", name)
			continue
		}
		seen++
		r := mustRun(t, c.status, c.body)
		resp := r.Response
		switch {
		case w.code != "":
			if resp.Failure == nil || resp.Failure.Code != w.code {
				t.Errorf("%s: failure %+v, want %s", name, resp.Failure, w.code)
			}
		case resp.Failure != nil || resp.Finish == nil || resp.Finish.Reason != w.finish:
			t.Errorf("%s: failure %+v finish %+v, want %s", name, resp.Failure, resp.Finish, w.finish)
		}
		calls := 0
		for _, it := range r.Items {
			if it.Kind == driver.TranscriptToolCall {
				calls++
			}
		}
		if calls != w.calls {
			t.Errorf("%s: %d tool calls, want %d", name, calls, w.calls)
		}
		if w.usage != nil && cmp.Diff(w.usage, resp.Usage) != "" {
			t.Errorf("%s: usage %s", name, cmp.Diff(w.usage, resp.Usage))
		}
	}
	if seen != len(wants) {
		t.Errorf("checked %d of %d public captures", seen, len(wants))
	}
}
