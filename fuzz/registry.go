package fuzz

// Target is one end-to-end fuzz target.
type Target struct {
	// Name is the fuzz test's name (FuzzSSE, ...).
	Name string
	// Check is its oracle.
	Check func(data []byte) error
	// Dict is the base name of its libFuzzer dictionary under dict/.
	Dict string
}

// Targets lists the end-to-end targets, in campaign order.
var Targets = []Target{
	{"FuzzSSE", CheckSSE, "sse"},
	{"FuzzNDJSON", CheckNDJSON, "ndjson"},
	{"FuzzJSONRPC", CheckJSONRPC, "jsonrpc"},
	{"FuzzCodex", func(b []byte) error { return CheckParser(ProviderByName("codex"), b) }, "codex"},
	{"FuzzClaude", func(b []byte) error { return CheckParser(ProviderByName("claude"), b) }, "claude"},
	{"FuzzAppServer", func(b []byte) error { return CheckParser(ProviderByName("appserver"), b) }, "appserver"},
	{"FuzzGemini", func(b []byte) error { return CheckParser(ProviderByName("gemini"), b) }, "gemini"},
	{"FuzzAnthropicMessages", func(b []byte) error { return CheckParser(ProviderByName("anthropic-messages"), b) }, "anthropic-messages"},
	{"FuzzOpenAIResponses", func(b []byte) error { return CheckParser(ProviderByName("openai-responses"), b) }, "openai-responses"},
	{"FuzzOpenAIChat", func(b []byte) error { return CheckParser(ProviderByName("openai-chat"), b) }, "openai-chat"},
	{"FuzzChunking", CheckChunking, "all"},
	{"FuzzCodec", CheckCodec, "codec"},
}
