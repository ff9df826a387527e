package openai

import "github.com/agentwire/agentwire/driver"

// readUsage normalizes a usage object of either API (see the usage table
// in the package doc). ok is false when v reports neither an input nor an
// output count (null, {}, or a shape this parser does not know).
func readUsage(v []byte) (*driver.Usage, bool) {
	o, isObj := object(v)
	if !isObj {
		return nil, false
	}
	var u driver.Usage
	seen := false
	hit, hasHit := 0, false
	for o.next() {
		switch string(o.key) {
		case "input_tokens", "prompt_tokens":
			if n, ok := num(o.v()); ok {
				u.InputTokens, seen = n, true
			}
		case "output_tokens", "completion_tokens":
			if n, ok := num(o.v()); ok {
				u.OutputTokens, seen = n, true
			}
		case "input_tokens_details", "prompt_tokens_details":
			d, _ := object(o.v())
			for d.next() {
				switch string(d.key) {
				case "cached_tokens":
					u.CachedInputTokens, _ = num(d.v())
				case "cache_write_tokens", "cache_creation_tokens", "cache_creation_input_tokens":
					u.CacheWriteInputTokens, _ = num(d.v())
				}
			}
		case "output_tokens_details", "completion_tokens_details":
			d, _ := object(o.v())
			for d.next() {
				if string(d.key) == "reasoning_tokens" {
					u.ReasoningTokens, _ = num(d.v())
				}
			}
		case "prompt_cache_hit_tokens":
			hit, hasHit = num(o.v())
		}
	}
	if !seen {
		return nil, false
	}
	if hasHit && u.CachedInputTokens == 0 {
		u.CachedInputTokens = hit
	}
	return &u, true
}
