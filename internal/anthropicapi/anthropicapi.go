// Package anthropicapi holds the meaning of the Anthropic Messages API's
// own values, shared by the parsers that meet them: parsers/anthropic (the
// API stream) and parsers/claude (Claude Code, which reports the API's
// usage and stop_reason). The tables and the reasons for them are in the
// parsers/anthropic package doc.
package anthropicapi

import "github.com/agentwire/agentwire/driver"

// FinishReason maps a stop_reason to the FinishReason union. A value the
// table does not know (or "") is FinishUnknown.
func FinishReason(stopReason string) driver.FinishReason {
	switch stopReason {
	case "end_turn", "stop_sequence":
		return driver.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		return driver.FinishLength
	case "tool_use":
		return driver.FinishToolCalls
	case "refusal":
		return driver.FinishContentFilter
	case "pause_turn", "compaction":
		return driver.FinishOther
	}
	return driver.FinishUnknown
}

// Usage is the driver.Usage of Anthropic's figures. Anthropic reports the
// prompt in three disjoint parts, input_tokens (the uncached rest),
// cache_read_input_tokens and cache_creation_input_tokens, so InputTokens
// is their sum; output_tokens includes thinking, of which thinking is the
// output_tokens_details.thinking_tokens count (0 when not reported).
func Usage(input, cacheRead, cacheWrite, output, thinking int) *driver.Usage {
	return &driver.Usage{
		InputTokens:           input + cacheRead + cacheWrite,
		CachedInputTokens:     cacheRead,
		CacheWriteInputTokens: cacheWrite,
		OutputTokens:          output,
		ReasoningTokens:       thinking,
	}
}
