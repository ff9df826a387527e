package provider

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/gemini"
)

func init() {
	Register(Provider{
		Name:    gemini.Provider,
		Summary: "Gemini API streamGenerateContent SSE (Developer API and Vertex AI)",
		Detect:  gemini.Detect,
		Framing: FramingSSE,
		Fuzz: Fuzz{Words: []string{"data: ", "\r\n\r\n", `"candidates"`, `"content"`, `"parts"`, `"text"`, `"thought"`, `"thoughtSignature"`,
			`"functionCall"`, `"partialArgs"`, `"willContinue"`, `"finishReason"`, `"usageMetadata"`, `"promptFeedback"`, `"blockReason"`,
			`"error"`, `"code"`, `"status"`, `"executableCode"`, `"codeExecutionResult"`, `"functionResponse"`, `"jsonPath"`, `"stringValue"`, `"STOP"`, `"MAX_TOKENS"`}},
		Capability: func(Input) driver.StreamCapability { return gemini.Capability },
		Parse: func(in Input, sink driver.EventSink) Parsed {
			opts := gemini.Options{Streaming: in.Streaming, Outcome: in.Outcome, Observe: in.Observe, DiscardTranscript: in.DiscardTranscript, Bounded: in.Bounded, DiscardStdout: in.DiscardStdout}
			resp, err := gemini.Parse(in.HTTPStatus, in.ContentType, in.Stdout, sink, opts)
			err = keepStderr(in, &resp, err)
			return Parsed{Response: resp, Err: err}
		},
	})
}
