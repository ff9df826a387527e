package provider

import (
	"fmt"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/appserver"
)

// The app-server's switches.
const appserverLegacy = "legacy-turn-end"

func init() {
	Register(Provider{
		Name:    "appserver",
		Summary: "codex app-server JSON-RPC",
		Codec:   appserver.Codec,
		Framing: FramingJSONRPC,
		Fuzz:    Fuzz{Target: "FuzzAppServer"},
		Detect: func(head []byte) (int, bool) {
			// Any JSON-RPC message (ACP's refine it: see the acp row).
			return DetectJSONLines(head, func(o Object) bool {
				return o.Has("method") || o.Has("id") && (o.Has("result") || o.Has("error"))
			})
		},
		Switches: []Switch{{
			Name:  appserverLegacy,
			Usage: "appserver: the server predates turn/completed and ends a turn with codex/event/task_complete (default: from meta.json's version, below 0.59)",
			// Observed: 0.58.0 lacks turn/completed, 0.169.0 has it.
			FromMeta: func(m Meta) bool {
				var major, minor int
				if _, err := fmt.Sscanf(m.Version, "%d.%d", &major, &minor); err != nil {
					return false
				}
				return major == 0 && minor < 59
			},
		}},
		Capability: func(Input) driver.StreamCapability { return appserver.Capability },
		Parse: func(in Input, sink driver.EventSink) Parsed {
			var u unpaired
			opts := appserver.Options{Streaming: in.Streaming, SessionData: in.SessionData,
				LegacyTurnEnd: in.Settings[appserverLegacy], Observe: in.Observe, DiscardTranscript: in.DiscardTranscript, Bounded: in.Bounded, DiscardStdout: in.DiscardStdout, Unpaired: u.add}
			resp, err := appserver.ParseSession(in.Stdin, in.Stdout, in.Stderr, sink, opts, in.Outcome)
			return Parsed{Response: resp, Err: err, Findings: u}
		},
	})
}
