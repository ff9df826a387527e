package provider

import (
	"slices"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/codex"
)

func init() {
	Register(Provider{
		Name:    "codex",
		Summary: "codex exec --json JSONL",
		Codec:   codex.Codec,
		Detect: func(head []byte) (int, bool) {
			return DetectJSONLines(head, func(o Object) bool {
				t, _ := o.String("type")
				return slices.Contains(codexTypes, t)
			})
		},
		Capability: func(Input) driver.StreamCapability { return codex.Capability },
		Parse: func(in Input, sink driver.EventSink) Parsed {
			var u unpaired
			opts := codex.Options{Streaming: in.Streaming, SessionData: in.SessionData, Resume: in.Resume, Observe: in.Observe, DiscardTranscript: in.DiscardTranscript, Bounded: in.Bounded, DiscardStdout: in.DiscardStdout, Unpaired: u.add}
			resp, err := codex.Parse(in.Stdout, in.Stderr, sink, opts, in.Outcome)
			return Parsed{Response: resp, Err: err, Findings: u}
		},
	})
}

// codexTypes are the top-level event types of codex exec --json.
var codexTypes = []string{"thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed"}
