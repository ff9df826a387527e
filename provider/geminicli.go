package provider

import (
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/parsers/geminicli"
)

func init() {
	Register(Provider{
		Name:    geminicli.Provider,
		Summary: "Gemini CLI -o stream-json JSONL",
		Codec:   geminicli.Codec,
		Detect: func(head []byte) (int, bool) {
			return DetectJSONLines(head, geminiCLILine)
		},
		// Claude Code writes "result" lines too; one with Gemini CLI's
		// members and without Claude's (see geminiCLILine) is Gemini CLI's.
		Refines: []string{"claude"},
		// FuzzGeminiCli, the default, would begin with gemini's FuzzGemini
		// (compile_native_go_fuzzer greps "func NAME"), and so would
		// FuzzGeminiCLI.
		Fuzz: Fuzz{Target: "FuzzCLIGemini", Words: []string{`"init"`, `"message"`, `"tool_use"`, `"tool_result"`, `"error"`, `"result"`,
			`"session_id"`, `"role"`, `"user"`, `"assistant"`, `"content"`, `"delta"`, `"tool_id"`, `"tool_name"`, `"parameters"`,
			`"status"`, `"success"`, `"output"`, `"severity"`, `"warning"`, `"stats"`, `"total_tokens"`, `"input_tokens"`,
			`"output_tokens"`, `"cached"`, `"FatalCancellationError"`}},
		Capability: func(Input) driver.StreamCapability { return geminicli.Capability },
		Parse: func(in Input, sink driver.EventSink) Parsed {
			var u unpaired
			opts := geminicli.Options{Streaming: in.Streaming, SessionData: in.SessionData, Resume: in.Resume, Observe: in.Observe, DiscardTranscript: in.DiscardTranscript, Bounded: in.Bounded, DiscardStdout: in.DiscardStdout, Unpaired: u.add}
			resp, err := geminicli.Parse(in.Stdout, in.Stderr, sink, opts, in.Outcome)
			return Parsed{Response: resp, Err: err, Findings: u}
		},
	})
}

// geminiCLILine reports whether a JSON line is a Gemini CLI stream-json
// event. The types alone would collide (Claude Code writes "result" lines
// too, Codex "error" lines), so each type must come with a member only
// Gemini CLI writes there: init's model and session_id without a subtype
// (Claude's init is type "system"), message's role, the tools' tool_id,
// error's severity, result's status and stats (Claude's result has a
// subtype instead); and never a uuid, which every Claude line but the
// control lines has.
func geminiCLILine(o Object) bool {
	t, _ := o.String("type")
	if o.Has("uuid") || o.Has("subtype") {
		return false
	}
	switch t {
	case "init":
		return o.Has("session_id") && o.Has("model")
	case "message":
		return o.Has("role") && o.Has("content")
	case "tool_use", "tool_result":
		return o.Has("tool_id")
	case "error":
		return o.Has("severity")
	case "result":
		return o.Has("status") && o.Has("stats")
	}
	return false
}
