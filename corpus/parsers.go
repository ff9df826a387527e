package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/parsers/appserver"
	"github.com/agentwire/agentwire/parsers/claude"
	"github.com/agentwire/agentwire/parsers/codex"
)

// Outcome is the process outcome given to a parser's Finish.
type Outcome = driver.Outcome

// Input is what a Parser parses: the case (for its options and the runs
// it resumes), stdout and stdin as readers that may deliver the bytes in
// any chunking, and the process outcome.
type Input struct {
	Case    *Case
	Stdout  io.Reader
	Stdin   io.Reader // nil when the case has no stdin
	Outcome Outcome
	// Streaming asks for stream payloads (on in every replay but
	// Options.NoStream).
	Streaming bool
}

// Parsed is what a Parser returns.
type Parsed struct {
	// Capability is the parser's stream capability for this case.
	Capability driver.StreamCapability
	// Streaming says whether stream payloads were requested.
	Streaming bool
	// Response is Finish's response, RawStreams filled with the exact
	// stdout the framing tee saw (and the case's stderr).
	Response driver.Response
	// Err is the error Finish (or a sink call) returned.
	Err error
	// Codec is the provider's session codec, for adaptertest RSP-04.
	Codec driver.SessionCodec
}

// A Parser replays one case into sink. It frames in.Stdout itself, calls
// sink.At with the offset and line of every frame (and framing error)
// before feeding it, and returns Finish's response. ParserOf gives the
// parser of each provider; a downstream corpus may bring its own
// (Options.Parser, TestOptions.Parser).
type Parser func(in Input, sink *Sink) Parsed

// ParserOf returns the Parser of a provider, or nil for an unknown one.
func ParserOf(provider string) Parser {
	switch provider {
	case ProviderCodex:
		return parseCodex
	case ProviderClaude:
		return parseClaude
	case ProviderAppServer:
		return parseAppServer
	}
	return nil
}

func sessionData(c *Case) map[string]string {
	if c.Meta.Cwd == "" {
		return nil
	}
	return map[string]string{driver.ParamCWD: c.Meta.Cwd}
}

// endAt points the sink at the end of stdout for what Finish emits.
func endAt(sink *Sink, raw int) { sink.At(int64(raw), 0) }

// AppServerOptions returns the appserver parser options a case implies:
// codex releases before 0.59 have no turn/completed and end a turn with
// codex/event/task_complete, which only Options.LegacyTurnEnd accepts.
func AppServerOptions(c *Case) appserver.Options {
	return appserver.Options{SessionData: sessionData(c), LegacyTurnEnd: legacyAppServer(c.Meta.Version)}
}

// legacyAppServer reports whether a codex version predates turn/completed
// (observed: 0.58.0 lacks it, 0.169.0 has it).
func legacyAppServer(version string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major == 0 && minor < 59
}

// ClaudeOptions returns the claude parser options a case's argv implies.
func ClaudeOptions(c *Case) claude.Options {
	return claude.Options{
		Streaming:       true,
		SessionData:     sessionData(c),
		PartialMessages: c.Meta.HasArg("--include-partial-messages"),
		ControlProtocol: c.Meta.HasArg("--input-format"),
	}
}

func parseCodex(in Input, sink *Sink) Parsed {
	c := in.Case
	opts := codex.Options{Streaming: in.Streaming, SessionData: sessionData(c)}
	if c.Prev != nil {
		// The driver resumes with the previous run's checkpoint state.
		if prev, err := Replay(c.Prev); err == nil {
			if cp := prev.Response.Checkpoint; cp != nil && cp.Valid {
				opts.Resume = cp.State
			}
		}
	}
	p := codex.New(sink, opts)
	var raw bytes.Buffer
	out := in.Outcome
	r := ndjson.NewReader(in.Stdout, ndjson.Options{Tee: &raw})
	var sinkErr error
	for sinkErr == nil {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		var le *ndjson.LineError
		switch {
		case err == nil:
			sink.At(f.Offset, f.Line)
			sinkErr = p.Feed(f)
		case errors.As(err, &le):
			sink.At(le.Offset, le.Line)
			sinkErr = p.FeedError(err)
		default:
			out.Err = errors.Join(out.Err, err)
		}
		if err != nil && le == nil {
			break
		}
	}
	endAt(sink, raw.Len())
	resp, err := p.Finish(out)
	if sinkErr != nil && err == nil {
		err = sinkErr
	}
	resp.RawStreams = &driver.RawStreams{Stdout: raw.String(), Stderr: string(c.Stderr), Terminal: p.Terminal()}
	return Parsed{Capability: p.Capability(), Streaming: in.Streaming, Response: resp, Err: err, Codec: codex.Codec}
}

// claudeAnswers indexes the control_response lines of a recorded stdin by
// the request id they answer.
func claudeAnswers(stdin io.Reader) map[string]ndjson.Frame {
	answers := map[string]ndjson.Frame{}
	if stdin == nil {
		return answers
	}
	r := ndjson.NewReader(stdin, ndjson.Options{})
	for {
		f, err := r.Next()
		if err == io.EOF {
			return answers
		}
		if err != nil {
			var le *ndjson.LineError
			if errors.As(err, &le) {
				continue
			}
			return answers
		}
		var l struct {
			Type     string `json:"type"`
			Response *struct {
				RequestID string `json:"request_id"`
			} `json:"response"`
		}
		if f.Decode(&l) == nil && l.Type == "control_response" && l.Response != nil && l.Response.RequestID != "" {
			if _, dup := answers[l.Response.RequestID]; !dup {
				answers[l.Response.RequestID] = f.Clone()
			}
		}
	}
}

func parseClaude(in Input, sink *Sink) Parsed {
	c := in.Case
	opts := ClaudeOptions(c)
	opts.Streaming = in.Streaming
	answers := claudeAnswers(in.Stdin)
	p := claude.New(sink, opts)
	var raw bytes.Buffer
	out := in.Outcome
	r := ndjson.NewReader(in.Stdout, ndjson.Options{Tee: &raw})
	feeding := true
	var sinkErr error
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var le *ndjson.LineError
			if !errors.As(err, &le) {
				out.Err = errors.Join(out.Err, err)
				break
			}
			if feeding {
				sink.At(le.Offset, le.Line)
				if sinkErr = p.FeedError(err); sinkErr != nil {
					feeding = false
				}
			}
			continue
		}
		if !feeding {
			continue // the sink failed: keep reading for the raw bytes
		}
		sink.At(f.Offset, f.Line)
		if sinkErr = p.Feed(f); sinkErr != nil {
			feeding = false
			continue
		}
		// The host's recorded answer to a control request follows it.
		if typ, _ := f.Type(); string(typ) == "control_request" {
			if id, ok := f.Peek("request_id"); ok {
				if a, ok := answers[string(id)]; ok {
					if sinkErr = p.FeedInput(a); sinkErr != nil {
						feeding = false
					}
				}
			}
		}
	}
	endAt(sink, raw.Len())
	resp, err := p.Finish(out)
	if sinkErr != nil && err == nil {
		err = sinkErr
	}
	if resp.RawStreams == nil {
		resp.RawStreams = &driver.RawStreams{}
	}
	resp.RawStreams.Stdout = raw.String()
	resp.RawStreams.Stderr = string(c.Stderr)
	return Parsed{Capability: p.Capability(), Streaming: in.Streaming, Response: resp, Err: err, Codec: claude.Codec}
}

func parseAppServer(in Input, sink *Sink) Parsed {
	c := in.Case
	opts := AppServerOptions(c)
	opts.Streaming = in.Streaming
	p := appserver.New(sink, opts)
	out := in.Outcome
	var sinkErr error
	if in.Stdin != nil {
		// The client side first, so that responses pair with their
		// requests (appserver.ParseSession does the same).
		r := jsonrpc.NewReader(in.Stdin, jsonrpc.Options{})
		for f, err := range r.All() {
			if err != nil && !jsonrpc.IsRecoverable(err) {
				out.Err = errors.Join(out.Err, err)
				break
			}
			if err == nil && sinkErr == nil {
				sinkErr = p.FeedClient(f)
			}
		}
	}
	var raw bytes.Buffer
	r := jsonrpc.NewReader(in.Stdout, jsonrpc.Options{Tee: &raw})
	for sinkErr == nil {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !jsonrpc.IsRecoverable(err) {
			out.Err = errors.Join(out.Err, err)
			break
		}
		if err != nil {
			var me *jsonrpc.MessageError
			if errors.As(err, &me) {
				sink.At(lineStart(f, me), me.Line)
			}
			sinkErr = p.FeedError(err)
			continue
		}
		sink.At(f.Offset, f.Line)
		sinkErr = p.Feed(f)
	}
	endAt(sink, raw.Len())
	resp, err := p.Finish(out)
	if sinkErr != nil && err == nil {
		err = sinkErr
	}
	resp.RawStreams = &driver.RawStreams{Stdout: raw.String(), Stderr: string(c.Stderr), Terminal: p.Terminal()}
	return Parsed{Capability: p.Capability(), Streaming: in.Streaming, Response: resp, Err: err, Codec: appserver.Codec}
}

// lineStart is the offset of the line a message error belongs to: the
// frame's when the reader returned one, else the error's.
func lineStart(f jsonrpc.Frame, me *jsonrpc.MessageError) int64 {
	if f.Raw != nil {
		return f.Offset
	}
	return me.Offset
}
