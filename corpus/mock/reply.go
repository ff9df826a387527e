package mock

import (
	"encoding/json"
	"fmt"
)

// A Reply is one scripted model response. The mock consumes one Reply per
// model request (POST /v1/responses or POST /v1/messages), in order.
//
// A Reply is either an HTTP error (Status >= 400) or a 200 SSE stream made of
// Items, followed by the provider's terminal events, unless Error,
// DisconnectAfter or Stall end the stream differently.
type Reply struct {
	// Status, when >= 400, makes the reply a plain HTTP error with Body (a
	// JSON document) and no SSE stream.
	Status int             `json:"status,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	// Headers are added to the HTTP response (e.g. retry-after).
	Headers map[string]string `json:"headers,omitempty"`

	// Items are the output items, streamed in order.
	Items []Item `json:"items,omitempty"`
	// Usage is reported in the terminal event.
	Usage *Usage `json:"usage,omitempty"`
	// StopReason overrides the Anthropic stop_reason ("end_turn", or
	// "tool_use" when an item is a tool call), the Gemini finishReason,
	// the Chat finish_reason ("stop", or "tool_calls"), or, on the
	// Responses API, makes the terminal response.incomplete with that
	// incomplete_details.reason ("max_output_tokens", "content_filter").
	StopReason string `json:"stop_reason,omitempty"`

	// Error, when set, ends the stream with the provider's in-stream error
	// (Responses: an "error" event then "response.failed"; Messages: an
	// "error" event) after the items.
	Error *StreamError `json:"error,omitempty"`
	// DisconnectAfter, when > 0, aborts the connection (no terminal event,
	// no final chunk) after that many SSE events.
	DisconnectAfter int `json:"disconnect_after,omitempty"`
	// Stall keeps the connection open without writing after the items until
	// the client goes away or the server closes.
	Stall bool `json:"stall,omitempty"`
	// DelayMS is slept before each SSE event (default 0).
	DelayMS int `json:"delay_ms,omitempty"`
}

// An Item is one output item of a Reply.
type Item struct {
	// Type is "text", "reasoning" (Responses reasoning summary; Anthropic
	// thinking block; Chat reasoning_content), "tool_call" (Responses
	// function_call; Anthropic tool_use) or "refusal" (Responses refusal
	// part; Chat delta.refusal; the other APIs leave it out).
	Type string `json:"type"`
	// Deltas are the text fragments of a text or reasoning item, streamed
	// one delta event each. For reasoning on the Responses API each element
	// of Parts is one summary part.
	Deltas []string `json:"deltas,omitempty"`
	// Parts are the reasoning summary parts (Responses only), each a list
	// of deltas. When empty, Deltas is one part.
	Parts [][]string `json:"parts,omitempty"`
	// Repeat, when > 1, streams Deltas that many times over (for large
	// answers without large scenario files).
	Repeat int `json:"repeat,omitempty"`
	// Name and Input describe a tool call. Input is the JSON arguments
	// object; it is streamed in Chunks fragments (default 2).
	Name   string          `json:"name,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	Chunks int             `json:"chunks,omitempty"`
}

// Usage is the token usage a reply reports.
type Usage struct {
	InputTokens     int `json:"input_tokens"`
	OutputTokens    int `json:"output_tokens"`
	CachedTokens    int `json:"cached_tokens,omitempty"`
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// StreamError is an error sent inside an SSE stream after HTTP 200.
type StreamError struct {
	Type    string `json:"type"`    // e.g. "server_error", "overloaded_error"
	Code    string `json:"code"`    // Responses only
	Message string `json:"message"` // human text
}

// Validate reports the first structural problem of r.
func (r *Reply) Validate() error {
	if r.Status != 0 && (r.Status < 400 || r.Status > 599) {
		return fmt.Errorf("status %d: want 400..599", r.Status)
	}
	if r.Status != 0 && len(r.Items) > 0 {
		return fmt.Errorf("status %d with items: an HTTP error has no stream", r.Status)
	}
	if r.Status != 0 && len(r.Body) > 0 && !json.Valid(r.Body) {
		return fmt.Errorf("body is not JSON")
	}
	for i, it := range r.Items {
		switch it.Type {
		case "text", "reasoning", "refusal":
			if len(it.Deltas) == 0 && len(it.Parts) == 0 {
				return fmt.Errorf("item %d (%s): no deltas", i, it.Type)
			}
		case "tool_call":
			if it.Name == "" {
				return fmt.Errorf("item %d: tool_call without name", i)
			}
			if len(it.Input) > 0 && !json.Valid(it.Input) {
				return fmt.Errorf("item %d: input is not JSON", i)
			}
		default:
			return fmt.Errorf("item %d: unknown type %q", i, it.Type)
		}
	}
	for i, it := range r.Items {
		if it.Repeat < 0 || it.Repeat > 100000 {
			return fmt.Errorf("item %d: repeat %d out of range", i, it.Repeat)
		}
	}
	if r.DisconnectAfter < 0 || r.DelayMS < 0 {
		return fmt.Errorf("negative disconnect_after or delay_ms")
	}
	return nil
}

func (it *Item) input() []byte {
	if len(it.Input) == 0 {
		return []byte("{}")
	}
	return it.Input
}

// chunks splits s into n roughly equal pieces on rune boundaries.
func chunks(s string, n int) []string {
	if n <= 1 || len(s) <= 1 {
		return []string{s}
	}
	r := []rune(s)
	if n > len(r) {
		n = len(r)
	}
	out := make([]string, 0, n)
	size := (len(r) + n - 1) / n
	for i := 0; i < len(r); i += size {
		j := min(i+size, len(r))
		out = append(out, string(r[i:j]))
	}
	return out
}

func (it *Item) parts() [][]string {
	if len(it.Parts) > 0 {
		return it.Parts
	}
	return [][]string{it.deltas()}
}

// deltas returns Deltas repeated Repeat times.
func (it *Item) deltas() []string {
	if it.Repeat <= 1 {
		return it.Deltas
	}
	out := make([]string, 0, len(it.Deltas)*it.Repeat)
	for range it.Repeat {
		out = append(out, it.Deltas...)
	}
	return out
}

func join(ss []string) string {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	b := make([]byte, 0, n)
	for _, s := range ss {
		b = append(b, s...)
	}
	return string(b)
}
