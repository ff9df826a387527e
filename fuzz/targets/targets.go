// Package targets holds the fuzz functions of package fuzz in a non-test
// file, so that OSS-Fuzz's compile_native_go_fuzzer (go-118-fuzz-build)
// can build each one as a libFuzzer target. The native Go fuzz tests in
// package fuzz call these same functions.
package targets

import (
	"testing"

	"github.com/agentwire/agentwire/fuzz"
)

func run(f *testing.F, check func([]byte) error) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzz.MaxInput {
			return
		}
		if err := check(data); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzSSE runs fuzz.CheckSSE.
func FuzzSSE(f *testing.F) { run(f, fuzz.CheckSSE) }

// FuzzNDJSON runs fuzz.CheckNDJSON.
func FuzzNDJSON(f *testing.F) { run(f, fuzz.CheckNDJSON) }

// FuzzJSONRPC runs fuzz.CheckJSONRPC.
func FuzzJSONRPC(f *testing.F) { run(f, fuzz.CheckJSONRPC) }

// FuzzCodex runs fuzz.CheckParser for the codex exec parser.
func FuzzCodex(f *testing.F) {
	run(f, func(b []byte) error { return fuzz.CheckParser(fuzz.ProviderByName("codex"), b) })
}

// FuzzClaude runs fuzz.CheckParser for the Claude Code stream-json parser.
func FuzzClaude(f *testing.F) {
	run(f, func(b []byte) error { return fuzz.CheckParser(fuzz.ProviderByName("claude"), b) })
}

// FuzzAppServer runs fuzz.CheckParser for the Codex app-server parser.
func FuzzAppServer(f *testing.F) {
	run(f, func(b []byte) error { return fuzz.CheckParser(fuzz.ProviderByName("appserver"), b) })
}

// FuzzGemini runs fuzz.CheckParser for the Gemini API stream parser.
func FuzzGemini(f *testing.F) {
	run(f, func(b []byte) error { return fuzz.CheckParser(fuzz.ProviderByName("gemini"), b) })
}

// FuzzAnthropicMessages runs fuzz.CheckParser for the Anthropic Messages
// API stream parser (an HTTP body, status and content type unknown).
func FuzzAnthropicMessages(f *testing.F) {
	run(f, func(b []byte) error { return fuzz.CheckParser(fuzz.ProviderByName("anthropic-messages"), b) })
}

// FuzzOpenAIResponses runs fuzz.CheckParser for the OpenAI Responses
// stream parser.
func FuzzOpenAIResponses(f *testing.F) {
	run(f, func(b []byte) error { return fuzz.CheckParser(fuzz.ProviderByName("openai-responses"), b) })
}

// FuzzOpenAIChat runs fuzz.CheckParser for the Chat Completions stream
// parser.
func FuzzOpenAIChat(f *testing.F) {
	run(f, func(b []byte) error { return fuzz.CheckParser(fuzz.ProviderByName("openai-chat"), b) })
}

// FuzzChunking runs fuzz.CheckChunking.
func FuzzChunking(f *testing.F) { run(f, fuzz.CheckChunking) }

// FuzzCodec runs fuzz.CheckCodec.
func FuzzCodec(f *testing.F) { run(f, fuzz.CheckCodec) }
