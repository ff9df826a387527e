package provider

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/detect"
	"github.com/agentwire/agentwire/parsers/anthropic"
)

func init() {
	Register(Provider{
		Name:       "anthropic-messages",
		Summary:    "Anthropic Messages API SSE (POST /v1/messages, also Vertex and Bedrock streaming)",
		Detect:     detectAnthropic,
		Framing:    FramingSSE,
		Fuzz:       Fuzz{Words: []string{"data: ", "event: ", "\n\n", ": ping\n\n"}},
		Capability: func(Input) driver.StreamCapability { return anthropic.Capability },
		Parse: func(in Input, sink driver.EventSink) Parsed {
			var u unpaired
			opts := anthropic.Options{Streaming: in.Streaming, HTTPStatus: in.HTTPStatus, ContentType: in.ContentType, Observe: in.Observe, DiscardTranscript: in.DiscardTranscript, Bounded: in.Bounded, DiscardStdout: in.DiscardStdout, Unpaired: u.add}
			resp, err := anthropic.Parse(in.Stdout, sink, opts, in.Outcome)
			err = keepStderr(in, &resp, err)
			return Parsed{Response: resp, Err: err, Findings: u}
		},
	})
}

// anthropicEvents are the Messages stream's event types that no other
// provider uses ("error" is everyone's, and "ping" a keep-alive name too
// common to be evidence; a stream starts with message_start anyway).
var anthropicEvents = []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}

// detectAnthropic finds the first line that names a Messages event: an
// SSE "event:" field with one of anthropicEvents, or a "data:" field whose
// JSON type is one; or, for an error body, the API's error document
// ({"type":"error","error":{...}}) as the whole head.
func detectAnthropic(head []byte) (int, bool) {
	for at, l := range detect.Lines(head) {
		if name, ok := bytes.CutPrefix(l, []byte("event:")); ok {
			if slices.Contains(anthropicEvents, string(bytes.TrimSpace(name))) {
				return at, true
			}
			continue
		}
		if data, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			if _, ok := DetectJSONLines(bytes.TrimSpace(data), func(o Object) bool {
				t, _ := o.String("type")
				return slices.Contains(anthropicEvents, t)
			}); ok {
				return at, true
			}
			continue
		}
	}
	// An error document, one line or pretty-printed.
	var o Object
	if json.Unmarshal(detect.TrimBOM(bytes.TrimSpace(head)), &o) == nil {
		if t, _ := o.String("type"); t == "error" && o.Has("error") {
			return 0, true
		}
	}
	return 0, false
}
