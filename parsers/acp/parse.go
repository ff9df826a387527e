package acp

import (
	"io"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/jsonrpc"
)

// framing is how Parse reads stdout and stdin.
var framing = feed.Framing[jsonrpc.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[jsonrpc.Frame] {
		return frames{jsonrpc.NewReader(src, jsonrpc.Options{Tee: tee})}
	},
	Recoverable: jsonrpc.IsRecoverable,
}

// frames is the feeding loop's pointer face of a jsonrpc.Reader: its own
// Frame (NextFrame), not a copy of it as feed.Copied keeps; with an error
// the frame is nil, as feed.Copied gives it (an invalid line reaches
// FeedError as its *jsonrpc.MessageError).
type frames struct{ r *jsonrpc.Reader }

func (fr frames) Next() (*jsonrpc.Frame, error) {
	f, err := fr.r.NextFrame()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Parse runs a finished capture of an ACP agent's stdout and stderr
// through a Parser; it is ParseSession without the client side.
func Parse(stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	return ParseSession(nil, stdout, stderr, sink, opts, out)
}

// ParseSession runs a whole finished session through a Parser: the
// client's side (stdin, what was written to the agent; may be nil) is fed
// first with FeedClient, so that responses pair with their requests and
// permission answers with the agent's requests; then stdout is framed
// with a jsonrpc.Reader whose Tee keeps every byte, every frame (and
// framing error) fed in order; stderr is read to its end; Finish(out)
// runs, and RawStreams gets the exact stdout and stderr bytes and the
// terminal. It starts no goroutine, so it is for captures, not live
// pipes (a driver feeds a Parser itself).
//
// A sink error stops the feeding, but stdout is still read to its end, so
// RawStreams.Stdout is complete; the sink error is returned. A read error
// is joined into Outcome.Err (the checkpoint is then invalid) and returned
// with the Response. Options.Observe, when set, is told where each stdout
// frame starts before it is fed.
func ParseSession(stdin, stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	p := New(sink, opts)
	return feed.Parse(framing, p, feed.Capture{Stdout: stdout, Stderr: stderr, Outcome: out, DiscardStdout: opts.DiscardStdout}, opts.Observe,
		&feed.Client[jsonrpc.Frame]{Src: stdin, Feed: p.FeedClient})
}
