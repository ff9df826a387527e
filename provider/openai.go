package provider

import (
	"bytes"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/detect"
	"github.com/agentwire/agentwire/parsers/openai"
)

func init() {
	for _, f := range []struct {
		format  openai.Format
		summary string
		fuzz    Fuzz
	}{
		{openai.Responses, "OpenAI Responses API SSE (POST /v1/responses)", Fuzz{Target: "FuzzOpenAIResponses", Words: []string{
			"data: ", "event: ", "\n\n", "data: [DONE]\n\n", `"sequence_number"`, `"output_index"`, `"item_id"`,
			`"content_index"`, `"summary_index"`, `"delta"`, `"item"`, `"response"`, `"status"`, `"usage"`, `"error"`, `"code"`, `"message"`,
			`"call_id"`, `"arguments"`, `"incomplete_details"`, `"encrypted_content"`, `"response.completed"`, `"response.incomplete"`,
			`"response.failed"`, `"response.output_text.delta"`, `"response.output_item.added"`, `"response.output_item.done"`,
			`"response.function_call_arguments.delta"`, `"function_call"`, `"message"`, `"reasoning"`, `"web_search_call"`, `"max_output_tokens"`}}},
		{openai.Chat, "OpenAI Chat Completions SSE (POST /v1/chat/completions) of OpenAI and the compatibles", Fuzz{Target: "FuzzOpenAIChat", Words: []string{
			"data: ", "event: error\n", "\n\n", "data: [DONE]\n\n", `"choices"`, `"index"`, `"delta"`, `"message"`,
			`"content"`, `"refusal"`, `"reasoning_content"`, `"reasoning"`, `"tool_calls"`, `"function"`, `"name"`, `"arguments"`, `"id"`,
			`"finish_reason"`, `"usage"`, `"prompt_tokens"`, `"completion_tokens"`, `"prompt_tokens_details"`, `"cached_tokens"`,
			`"x_groq"`, `"error"`, `"code"`, `"stop"`, `"length"`, `"tool_calls"`, `"chat.completion.chunk"`, `"chat.completion"`}}},
	} {
		format := f.format
		Register(Provider{
			Name:       format.Provider(),
			Summary:    f.summary,
			Framing:    FramingSSE,
			Fuzz:       f.fuzz,
			Detect:     func(head []byte) (int, bool) { return detectOpenAI(head, format) },
			Capability: func(Input) driver.StreamCapability { return openai.Capability },
			Parse: func(in Input, sink driver.EventSink) Parsed {
				var u unpaired
				opts := openai.Options{Format: format, Streaming: in.Streaming, Outcome: in.Outcome, Observe: in.Observe, DiscardTranscript: in.DiscardTranscript, Bounded: in.Bounded, DiscardStdout: in.DiscardStdout, Unpaired: u.add}
				resp, err := openai.Parse(in.HTTPStatus, in.ContentType, in.Stdout, sink, opts)
				err = keepStderr(in, &resp, err)
				return Parsed{Response: resp, Err: err, Findings: u}
			},
		})
	}
}

// detectOpenAI finds the first event of head (an SSE data line, or a whole
// JSON body) that openai.FormatOf says is want's: the offset of its line.
func detectOpenAI(head []byte, want openai.Format) (int, bool) {
	event := ""
	for at, t := range detect.Lines(head) {
		var data []byte
		switch {
		case bytes.HasPrefix(t, []byte("event:")):
			event = string(bytes.TrimSpace(t[len("event:"):]))
			continue
		case bytes.HasPrefix(t, []byte("data:")):
			data = bytes.TrimSpace(t[len("data:"):])
		case at == 0 && len(bytes.TrimSpace(t)) > 0 && bytes.TrimSpace(t)[0] == '{':
			// A non-streamed body: the whole head is one document.
			data = head
		case len(bytes.TrimSpace(t)) == 0:
			event = ""
			continue
		default:
			continue
		}
		if openai.FormatOf(event, data) == want {
			return at, true
		}
		if at == 0 && len(data) == len(head) {
			return 0, false
		}
	}
	return 0, false
}
