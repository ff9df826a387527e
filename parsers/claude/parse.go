package claude

import (
	"io"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/ndjson"
)

// framing is how Parse reads stdout and stdin.
var framing = feed.Framing[ndjson.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[ndjson.Frame] {
		return &feed.Copied[ndjson.Frame]{R: ndjson.NewReader(src, ndjson.Options{Tee: tee})}
	},
	Recoverable: ndjson.IsRecoverable,
}

// Parse runs framing and the parser over a finished capture; it is
// ParseSession without the host's side.
func Parse(stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	return ParseSession(nil, stdout, stderr, sink, opts, out)
}

// ParseSession runs framing and the parser over a finished session: it
// reads stdout to EOF through an ndjson.Reader that tees every byte and
// feeds every frame (framing errors through FeedError), then reads stderr,
// calls Finish and fills RawStreams.Stdout and Stderr with the exact
// bytes.
//
// stdin (may be nil) is what the host wrote to the CLI under the control
// protocol: each control_response there answers a control_request of
// stdout, and is given to FeedInput right after the request it answers
// (the first answer per request id counts), as a live host's answer would
// follow it.
//
// A sink error stops the feeding, but stdout is still read to its end, so
// RawStreams.Stdout is complete; the sink error is returned. A read error
// is an infrastructure error (joined to out.Err). Options.Observe, when
// set, is told where each stdout frame starts before it is fed. No
// goroutines: stdout is read before stderr, so a live process must not be
// given to it (a full stderr pipe would block the writer).
func ParseSession(stdin, stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	p := New(sink, opts)
	c := feed.Capture{Stdout: stdout, Stderr: stderr, Outcome: out, DiscardStdout: opts.DiscardStdout}
	if stdin == nil {
		return feed.Parse(framing, p, c, opts.Observe, nil)
	}
	a := &answering{Parser: p, answers: map[string]ndjson.Frame{}}
	return feed.Parse[ndjson.Frame](framing, a, c, opts.Observe, &feed.Client[ndjson.Frame]{Src: stdin, Feed: a.index})
}

// answering feeds the host's recorded answer to each control_request
// right after it.
type answering struct {
	*Parser
	answers map[string]ndjson.Frame
}

// index keeps the first control_response of stdin for each request id.
func (a *answering) index(f ndjson.Frame) error {
	if t, ok := f.Type(); !ok || string(t) != "control_response" {
		return nil
	}
	var l controlLine
	if f.Decode(&l) != nil || l.Response == nil || l.Response.RequestID == "" {
		return nil
	}
	if _, dup := a.answers[l.Response.RequestID]; !dup {
		a.answers[l.Response.RequestID] = f.Clone()
	}
	return nil
}

func (a *answering) Feed(f ndjson.Frame) error {
	if err := a.Parser.Feed(f); err != nil {
		return err
	}
	if typ, _ := f.Type(); string(typ) == "control_request" {
		if id, ok := f.Peek("request_id"); ok {
			if ans, ok := a.answers[string(id)]; ok {
				return a.FeedInput(ans)
			}
		}
	}
	return nil
}
