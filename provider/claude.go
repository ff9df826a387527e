package provider

import (
	"slices"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/claude"
)

// Claude's switches.
const (
	claudePartial = "partial-messages"
	claudeControl = "control-protocol"
)

func init() {
	Register(Provider{
		Name:    "claude",
		Summary: "Claude Code stream-json",
		Codec:   claude.Codec,
		Detect: func(head []byte) (int, bool) {
			return DetectJSONLines(head, func(o Object) bool {
				t, _ := o.String("type")
				return slices.Contains(claudeTypes, t)
			})
		},
		Switches: []Switch{{
			Name:     claudePartial,
			Usage:    "claude: the CLI ran with --include-partial-messages (default: from meta.json's argv, else detected from stream_event lines in the first MiB of stdout)",
			FromMeta: func(m Meta) bool { return m.HasArg("--include-partial-messages") },
			Detect:   func(stdout, _ []byte) bool { return HasJSONType(stdout, "stream_event") },
		}, {
			Name:     claudeControl,
			Usage:    "claude: the CLI ran with --input-format stream-json (default: from meta.json's argv, else detected from control_request lines in the first MiB of stdout or --stdin)",
			FromMeta: func(m Meta) bool { return m.HasArg("--input-format") },
			Detect:   func(stdout, stdin []byte) bool { return stdin != nil || HasJSONType(stdout, "control_request") },
		}},
		Capability: func(in Input) driver.StreamCapability { return claude.New(nil, claudeOptions(in)).Capability() },
		Parse: func(in Input, sink driver.EventSink) Parsed {
			var u unpaired
			opts := claudeOptions(in)
			opts.Observe, opts.Unpaired = in.Observe, u.add
			opts.DiscardTranscript, opts.DiscardStdout, opts.Bounded = in.DiscardTranscript, in.DiscardStdout, in.Bounded
			resp, err := claude.ParseSession(in.Stdin, in.Stdout, in.Stderr, sink, opts, in.Outcome)
			return Parsed{Response: resp, Err: err, Findings: u}
		},
	})
}

// claudeTypes are the top-level line types of Claude Code's stream-json.
var claudeTypes = []string{"system", "assistant", "user", "result", "stream_event", "control_request", "control_response", "control_cancel_request", "keep_alive"}

// claudeOptions are the parser options in sets (without its callbacks).
func claudeOptions(in Input) claude.Options {
	return claude.Options{Streaming: in.Streaming, SessionData: in.SessionData,
		PartialMessages: in.Settings[claudePartial], ControlProtocol: in.Settings[claudeControl]}
}
