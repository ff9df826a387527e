package mock

import "fmt"

// rawData is SSE data written as it is, not marshalled: the [DONE]
// sentinel.
type rawData []byte

// writeChat streams reply r as an OpenAI Chat Completions stream
// (stream: true, stream_options.include_usage): a role chunk, one chunk
// per content, reasoning_content or refusal delta, each tool call as a
// first fragment (index, id, type, function.name, empty arguments) and its
// argument pieces (consecutive calls take consecutive indexes: parallel
// calls), a finish chunk (StopReason, else "tool_calls" after a call, else
// "stop"), the usage chunk with empty choices, then data: [DONE]. Every
// chunk carries the envelope (id, object, created, model,
// system_fingerprint). With Error, an error chunk ({"error": {...}}, as
// OpenAI writes it mid-stream) follows the items and the stream ends
// without finish or [DONE].
func writeChat(st *stream, tag string, model string) error {
	id := "chatcmpl-mock-" + tag
	chunk := func(choices []any, kv ...any) error {
		m := o("id", id, "object", "chat.completion.chunk", "created", createdAt, "model", model,
			"system_fingerprint", "fp_mock", "choices", choices)
		m = append(m, kv...)
		return st.event("", m)
	}
	choice := func(delta obj, finish any) []any {
		return []any{o("index", 0, "delta", delta, "logprobs", nil, "finish_reason", finish)}
	}
	if err := chunk(choice(o("role", "assistant", "content", "", "refusal", nil), nil), "usage", nil); err != nil {
		return err
	}
	calls := 0
	for i := range st.reply.Items {
		it := &st.reply.Items[i]
		switch it.Type {
		case "text", "reasoning", "refusal":
			field := map[string]string{"text": "content", "reasoning": "reasoning_content", "refusal": "refusal"}[it.Type]
			for _, d := range it.deltas() {
				if err := chunk(choice(o(field, d), nil), "usage", nil); err != nil {
					return err
				}
			}
		case "tool_call":
			callID := fmt.Sprintf("call_mock_%s_%d", tag, i)
			first := o("index", calls, "id", callID, "type", "function", "function", o("name", it.Name, "arguments", ""))
			if err := chunk(choice(o("tool_calls", []any{first}), nil), "usage", nil); err != nil {
				return err
			}
			n := it.Chunks
			if n == 0 {
				n = 2
			}
			for _, piece := range chunks(compactJSON(it.input()), n) {
				frag := o("index", calls, "function", o("arguments", piece))
				if err := chunk(choice(o("tool_calls", []any{frag}), nil), "usage", nil); err != nil {
					return err
				}
			}
			calls++
		}
	}
	if err := st.end(); err != nil {
		return err
	}
	if e := st.reply.Error; e != nil {
		return st.event("", o("error", o("message", e.Message, "type", e.Type, "param", nil, "code", e.Code)))
	}
	reason := "stop"
	switch {
	case st.reply.StopReason != "":
		reason = st.reply.StopReason
	case calls > 0:
		reason = "tool_calls"
	}
	if err := chunk(choice(o(), reason), "usage", nil); err != nil {
		return err
	}
	u := st.reply.Usage
	if u == nil {
		u = &Usage{InputTokens: 100, OutputTokens: 10}
	}
	usage := o("prompt_tokens", u.InputTokens, "completion_tokens", u.OutputTokens,
		"total_tokens", u.InputTokens+u.OutputTokens,
		"prompt_tokens_details", o("cached_tokens", u.CachedTokens, "audio_tokens", 0),
		"completion_tokens_details", o("reasoning_tokens", u.ReasoningTokens, "audio_tokens", 0))
	if err := chunk([]any{}, "usage", usage); err != nil {
		return err
	}
	return st.event("", rawData("[DONE]"))
}
