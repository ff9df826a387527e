package anthropicapi

import (
	"testing"

	"github.com/agentwire/agentwire/driver"
)

func TestFinishReason(t *testing.T) {
	for raw, want := range map[string]driver.FinishReason{
		"end_turn": driver.FinishStop, "stop_sequence": driver.FinishStop, "max_tokens": driver.FinishLength,
		"model_context_window_exceeded": driver.FinishLength, "tool_use": driver.FinishToolCalls, "refusal": driver.FinishContentFilter,
		"pause_turn": driver.FinishOther, "compaction": driver.FinishOther, "brand_new": driver.FinishUnknown, "": driver.FinishUnknown,
	} {
		if got := FinishReason(raw); got != want || !got.Valid() {
			t.Errorf("FinishReason(%q) = %s, want %s", raw, got, want)
		}
	}
}

func TestUsage(t *testing.T) {
	got := *Usage(10, 100, 3, 50, 20)
	want := driver.Usage{InputTokens: 113, CachedInputTokens: 100, CacheWriteInputTokens: 3, OutputTokens: 50, ReasoningTokens: 20}
	if got != want {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
}
