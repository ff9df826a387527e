package provider

import (
	"errors"
	"io"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/gemini"
)

func init() {
	Register(Provider{
		Name:    gemini.Provider,
		Summary: "Gemini API streamGenerateContent SSE (Developer API and Vertex AI)",
		Detect:  gemini.Detect,
		Parse: func(in Input, sink driver.EventSink) Parsed {
			opts := gemini.Options{Streaming: in.Streaming, Outcome: in.Outcome, Observe: in.Observe}
			resp, err := gemini.Parse(in.HTTPStatus, in.ContentType, in.Stdout, sink, opts)
			// An HTTP response has no stderr; a capture that comes with
			// one keeps it, as every provider's RawStreams do.
			if in.Stderr != nil {
				b, rerr := io.ReadAll(in.Stderr)
				resp.RawStreams.Stderr = string(b)
				err = errors.Join(err, rerr)
			}
			return Parsed{Capability: gemini.Capability, Response: resp, Err: err}
		},
	})
}
