package provider

import (
	"encoding/json"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/acp"
)

func init() {
	Register(Provider{
		Name:    acp.Provider,
		Summary: "Agent Client Protocol JSON-RPC (Gemini CLI --acp, opencode acp, Copilot CLI --acp, Qwen Code --acp)",
		Codec:   acp.Codec,
		Framing: FramingJSONRPC,
		Fuzz: Fuzz{Target: "FuzzACP", Words: []string{
			`"agent_thought_chunk"`, `"user_message_chunk"`, `"tool_call_update"`, `"usage_update"`,
			`"current_mode_update"`, `"config_option_update"`, `"session_info_update"`, `"plan"`,
			`"max_tokens"`, `"max_turn_requests"`, `"refusal"`, `"cancelled"`, `"loadSession"`,
			`"rawInput"`, `"rawOutput"`, `"messageId"`, `"_meta"`, `"quota"`, `"thoughtTokens"`,
			`"cachedReadTokens"`, `"fs/write_text_file"`, `"terminal/create"`, `"reject_once"`,
		}},
		Detect: func(head []byte) (int, bool) {
			return DetectJSONLines(head, isACP)
		},
		// app-server claims every JSON-RPC message; an ACP-shaped one is
		// ACP's (no app-server sends one).
		Refines:    []string{"appserver"},
		Capability: func(Input) driver.StreamCapability { return acp.Capability },
		Parse: func(in Input, sink driver.EventSink) Parsed {
			var u unpaired
			opts := acp.Options{Streaming: in.Streaming, SessionData: in.SessionData, Observe: in.Observe, DiscardTranscript: in.DiscardTranscript, Bounded: in.Bounded, DiscardStdout: in.DiscardStdout, Unpaired: u.add}
			if in.Resume != nil {
				// A resumed run loads the session of the run before it.
				opts.SessionID, opts.Load = in.Resume.ResumeID, true
			}
			resp, err := acp.ParseSession(in.Stdin, in.Stdout, in.Stderr, sink, opts, in.Outcome)
			return Parsed{Response: resp, Err: err, Findings: u}
		},
	})
}

// isACP reports whether a line is an ACP agent message: a method of the
// protocol's agent-to-client namespaces (session/update,
// session/request_permission, fs/*, terminal/*), or a result in the shape
// of an initialize, session/new or session/prompt response.
func isACP(o Object) bool {
	if m, ok := o.String("method"); ok {
		return strings.HasPrefix(m, "session/") || strings.HasPrefix(m, "fs/") || strings.HasPrefix(m, "terminal/")
	}
	var r map[string]json.RawMessage
	if !o.Has("id") || json.Unmarshal(o["result"], &r) != nil {
		return false
	}
	_, init := r["protocolVersion"]
	_, session := r["sessionId"]
	_, stop := r["stopReason"]
	return init || session || stop
}
