package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// createdAt is the fixed creation time the mock reports, so that repeated
// recordings differ only where the CLIs add their own volatility.
const createdAt = 1764460800 // 2025-11-30T00:00:00Z

// writeResponses streams reply r as an OpenAI Responses API event stream:
// response.created, response.in_progress, per item output_item.added ...
// output_item.done, then response.completed (or error + response.failed).
// Every event carries sequence_number from 0.
func writeResponses(st *stream, tag string, model string) error {
	respID := "resp_mock_" + tag
	sn := 0
	ev := func(typ string, kv ...any) error {
		m := append(o("type", typ, "sequence_number", sn), kv...)
		sn++
		return st.event(typ, m)
	}
	snapshot := func(status string, output []any, usage any, errv any) obj {
		return o("id", respID, "object", "response", "created_at", createdAt,
			"status", status, "background", false, "error", errv,
			"incomplete_details", nil, "instructions", nil,
			"model", model, "output", output, "parallel_tool_calls", false,
			"previous_response_id", nil, "store", false,
			"tool_choice", "auto", "tools", []any{}, "usage", usage)
	}
	if err := ev("response.created", "response", snapshot("in_progress", []any{}, nil, nil)); err != nil {
		return err
	}
	if err := ev("response.in_progress", "response", snapshot("in_progress", []any{}, nil, nil)); err != nil {
		return err
	}
	var output []any
	for i := range st.reply.Items {
		it := &st.reply.Items[i]
		var done any
		var err error
		switch it.Type {
		case "text":
			done, err = responsesText(ev, tag, i, it)
		case "reasoning":
			done, err = responsesReasoning(ev, tag, i, it)
		case "tool_call":
			done, err = responsesCall(ev, tag, i, it)
		case "refusal":
			done, err = responsesRefusal(ev, tag, i, it)
		}
		if err != nil {
			return err
		}
		output = append(output, done)
	}
	if output == nil {
		output = []any{}
	}
	if err := st.end(); err != nil {
		return err
	}
	if e := st.reply.Error; e != nil {
		if err := ev("error", "error", o("type", e.Type, "code", e.Code, "message", e.Message, "param", nil)); err != nil {
			return err
		}
		return ev("response.failed", "response", snapshot("failed", output, nil, o("code", e.Code, "message", e.Message)))
	}
	u := st.reply.Usage
	if u == nil {
		u = &Usage{InputTokens: 100, OutputTokens: 10}
	}
	usage := o("input_tokens", u.InputTokens,
		"input_tokens_details", o("cached_tokens", u.CachedTokens),
		"output_tokens", u.OutputTokens,
		"output_tokens_details", o("reasoning_tokens", u.ReasoningTokens),
		"total_tokens", u.InputTokens+u.OutputTokens)
	if r := st.reply.StopReason; r != "" {
		resp := snapshot("incomplete", output, usage, nil)
		for i := 0; i+1 < len(resp); i += 2 {
			if resp[i] == "incomplete_details" {
				resp[i+1] = o("reason", r)
			}
		}
		return ev("response.incomplete", "response", resp)
	}
	return ev("response.completed", "response", snapshot("completed", output, usage, nil))
}

// responsesRefusal streams a message item whose one part is a refusal.
func responsesRefusal(ev evFunc, tag string, idx int, it *Item) (any, error) {
	id := fmt.Sprintf("msg_mock_%s_%d", tag, idx)
	text := join(it.deltas())
	if err := ev("response.output_item.added", "output_index", idx,
		"item", o("id", id, "type", "message", "status", "in_progress", "content", []any{}, "role", "assistant")); err != nil {
		return nil, err
	}
	if err := ev("response.content_part.added", "item_id", id, "output_index", idx, "content_index", 0,
		"part", o("type", "refusal", "refusal", "")); err != nil {
		return nil, err
	}
	for _, d := range it.deltas() {
		if err := ev("response.refusal.delta", "item_id", id, "output_index", idx, "content_index", 0, "delta", d); err != nil {
			return nil, err
		}
	}
	if err := ev("response.refusal.done", "item_id", id, "output_index", idx, "content_index", 0, "refusal", text); err != nil {
		return nil, err
	}
	part := o("type", "refusal", "refusal", text)
	if err := ev("response.content_part.done", "item_id", id, "output_index", idx, "content_index", 0, "part", part); err != nil {
		return nil, err
	}
	item := o("id", id, "type", "message", "status", "completed", "content", []any{part}, "role", "assistant")
	return item, ev("response.output_item.done", "output_index", idx, "item", item)
}

type evFunc func(typ string, kv ...any) error

func responsesText(ev evFunc, tag string, idx int, it *Item) (any, error) {
	id := fmt.Sprintf("msg_mock_%s_%d", tag, idx)
	text := join(it.deltas())
	if err := ev("response.output_item.added", "output_index", idx,
		"item", o("id", id, "type", "message", "status", "in_progress", "content", []any{}, "role", "assistant")); err != nil {
		return nil, err
	}
	if err := ev("response.content_part.added", "item_id", id, "output_index", idx, "content_index", 0,
		"part", o("type", "output_text", "annotations", []any{}, "logprobs", []any{}, "text", "")); err != nil {
		return nil, err
	}
	for _, d := range it.deltas() {
		if err := ev("response.output_text.delta", "item_id", id, "output_index", idx, "content_index", 0,
			"delta", d, "logprobs", []any{}); err != nil {
			return nil, err
		}
	}
	if err := ev("response.output_text.done", "item_id", id, "output_index", idx, "content_index", 0,
		"text", text, "logprobs", []any{}); err != nil {
		return nil, err
	}
	part := o("type", "output_text", "annotations", []any{}, "logprobs", []any{}, "text", text)
	if err := ev("response.content_part.done", "item_id", id, "output_index", idx, "content_index", 0, "part", part); err != nil {
		return nil, err
	}
	item := o("id", id, "type", "message", "status", "completed", "content", []any{part}, "role", "assistant")
	return item, ev("response.output_item.done", "output_index", idx, "item", item)
}

func responsesReasoning(ev evFunc, tag string, idx int, it *Item) (any, error) {
	id := fmt.Sprintf("rs_mock_%s_%d", tag, idx)
	if err := ev("response.output_item.added", "output_index", idx,
		"item", o("id", id, "type", "reasoning", "summary", []any{})); err != nil {
		return nil, err
	}
	var summary []any
	for si, part := range it.parts() {
		if err := ev("response.reasoning_summary_part.added", "item_id", id, "output_index", idx,
			"summary_index", si, "part", o("type", "summary_text", "text", "")); err != nil {
			return nil, err
		}
		for _, d := range part {
			if err := ev("response.reasoning_summary_text.delta", "item_id", id, "output_index", idx,
				"summary_index", si, "delta", d); err != nil {
				return nil, err
			}
		}
		text := join(part)
		if err := ev("response.reasoning_summary_text.done", "item_id", id, "output_index", idx,
			"summary_index", si, "text", text); err != nil {
			return nil, err
		}
		p := o("type", "summary_text", "text", text)
		if err := ev("response.reasoning_summary_part.done", "item_id", id, "output_index", idx,
			"summary_index", si, "part", p); err != nil {
			return nil, err
		}
		summary = append(summary, p)
	}
	item := o("id", id, "type", "reasoning", "summary", summary)
	return item, ev("response.output_item.done", "output_index", idx, "item", item)
}

func responsesCall(ev evFunc, tag string, idx int, it *Item) (any, error) {
	id := fmt.Sprintf("fc_mock_%s_%d", tag, idx)
	callID := fmt.Sprintf("call_mock_%s_%d", tag, idx)
	args := compactJSON(it.input())
	if err := ev("response.output_item.added", "output_index", idx,
		"item", o("id", id, "type", "function_call", "status", "in_progress", "arguments", "", "call_id", callID, "name", it.Name)); err != nil {
		return nil, err
	}
	n := it.Chunks
	if n == 0 {
		n = 2
	}
	for _, d := range chunks(args, n) {
		if err := ev("response.function_call_arguments.delta", "item_id", id, "output_index", idx, "delta", d); err != nil {
			return nil, err
		}
	}
	if err := ev("response.function_call_arguments.done", "item_id", id, "output_index", idx, "arguments", args); err != nil {
		return nil, err
	}
	item := o("id", id, "type", "function_call", "status", "completed", "arguments", args, "call_id", callID, "name", it.Name)
	return item, ev("response.output_item.done", "output_index", idx, "item", item)
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}
