package mock

import "fmt"

// writeMessages streams reply r as an Anthropic Messages API event stream:
// message_start, ping, per item content_block_start / *_delta /
// content_block_stop, then message_delta and message_stop (or an error
// event).
func writeMessages(st *stream, tag string, model string) error {
	u := st.reply.Usage
	if u == nil {
		u = &Usage{InputTokens: 100, OutputTokens: 10}
	}
	msgID := "msg_mock_" + tag
	startUsage := o("input_tokens", u.InputTokens, "cache_creation_input_tokens", 0,
		"cache_read_input_tokens", u.CachedTokens,
		"cache_creation", o("ephemeral_5m_input_tokens", 0, "ephemeral_1h_input_tokens", 0),
		"output_tokens", 1, "service_tier", "standard")
	if err := st.event("message_start", o("type", "message_start", "message", o(
		"id", msgID, "type", "message", "role", "assistant", "model", model,
		"content", []any{}, "stop_reason", nil, "stop_sequence", nil, "usage", startUsage))); err != nil {
		return err
	}
	if err := st.event("ping", o("type", "ping")); err != nil {
		return err
	}
	stop := "end_turn"
	for i := range st.reply.Items {
		it := &st.reply.Items[i]
		var err error
		switch it.Type {
		case "text":
			err = messagesBlock(st, i, o("type", "text", "text", ""), "text_delta", "text", it.deltas())
		case "reasoning":
			err = messagesBlock(st, i, o("type", "thinking", "thinking", "", "signature", ""), "thinking_delta", "thinking", it.deltas())
			if err == nil {
				// The signature arrives as its own delta just before the block stops.
				err = st.event("content_block_delta", o("type", "content_block_delta", "index", i,
					"delta", o("type", "signature_delta", "signature", fmt.Sprintf("mocksig_%s_%d", tag, i))))
			}
		case "tool_call":
			stop = "tool_use"
			n := it.Chunks
			if n == 0 {
				n = 2
			}
			// The first input_json_delta fragment is empty, as the real API sends it.
			parts := append([]string{""}, chunks(compactJSON(it.input()), n)...)
			err = messagesBlock(st, i, o("type", "tool_use", "id", fmt.Sprintf("toolu_mock_%s_%d", tag, i),
				"name", it.Name, "input", o()), "input_json_delta", "partial_json", parts)
		}
		if err != nil {
			return err
		}
		if err := st.event("content_block_stop", o("type", "content_block_stop", "index", i)); err != nil {
			return err
		}
	}
	if err := st.end(); err != nil {
		return err
	}
	if e := st.reply.Error; e != nil {
		return st.event("error", o("type", "error", "error", o("type", e.Type, "message", e.Message)))
	}
	if st.reply.StopReason != "" {
		stop = st.reply.StopReason
	}
	if err := st.event("message_delta", o("type", "message_delta",
		"delta", o("stop_reason", stop, "stop_sequence", nil),
		"usage", o("input_tokens", u.InputTokens, "cache_creation_input_tokens", 0,
			"cache_read_input_tokens", u.CachedTokens, "output_tokens", u.OutputTokens))); err != nil {
		return err
	}
	return st.event("message_stop", o("type", "message_stop"))
}

// messagesBlock writes content_block_start and one delta per fragment; the
// caller writes content_block_stop.
func messagesBlock(st *stream, idx int, block obj, deltaType, field string, deltas []string) error {
	if err := st.event("content_block_start", o("type", "content_block_start", "index", idx, "content_block", block)); err != nil {
		return err
	}
	for _, d := range deltas {
		if err := st.event("content_block_delta", o("type", "content_block_delta", "index", idx,
			"delta", o("type", deltaType, field, d))); err != nil {
			return err
		}
	}
	return nil
}
