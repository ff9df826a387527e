package geminicli

import (
	"io"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/ndjson"
)

// framing is how Parse reads stdout.
var framing = feed.Framing[ndjson.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[ndjson.Frame] {
		return &feed.Copied[ndjson.Frame]{R: ndjson.NewReader(src, ndjson.Options{Tee: tee})}
	},
	Recoverable: ndjson.IsRecoverable,
}

// Parse runs a whole finished capture through a Parser: it frames stdout
// with an ndjson.Reader whose Tee keeps every byte, feeds every frame (and
// every over-long-line error) in order, reads stderr to its end, calls
// Finish(out) and fills RawStreams with the exact stdout and stderr bytes
// and the terminal. It starts no goroutine: stdout is read to EOF before
// stderr, so it is meant for captures, not live pipes.
//
// A sink error stops the feeding, but stdout is still read to its end, so
// RawStreams.Stdout is complete; the sink error is returned. A read error
// on either stream is an infrastructure error: it is joined into
// Outcome.Err, so the checkpoint is invalid and Parse returns it along
// with the Response. Options.Observe, when set, is told where each frame
// starts before it is fed.
func Parse(stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	return feed.Parse(framing, New(sink, opts), feed.Capture{Stdout: stdout, Stderr: stderr, Outcome: out, DiscardStdout: opts.DiscardStdout}, opts.Observe, nil)
}
