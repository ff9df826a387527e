package codex

import (
	"errors"
	"io"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/ndjson"
)

// Parse runs a whole finished capture through a Parser: it frames stdout
// with an ndjson.Reader whose Tee keeps every byte, feeds every frame (and
// every over-long-line error) in order, reads stderr to its end, calls
// Finish(out) and fills RawStreams with the exact stdout and stderr bytes
// and the terminal. It starts no goroutine: stdout is read to EOF before
// stderr, so it is meant for captures, not live pipes.
//
// A read error on either stream is an infrastructure error: it is joined
// into Outcome.Err, so the checkpoint is invalid and Parse returns it along
// with the Response.
func Parse(stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	p := New(sink, opts)
	// strings.Builder: String does not copy the captured bytes.
	var raw strings.Builder
	if l, ok := stdout.(interface{ Len() int }); ok {
		raw.Grow(l.Len())
	}
	r := ndjson.NewReader(stdout, ndjson.Options{Tee: &raw})
	var sinkErr error
	for sinkErr == nil {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		var le *ndjson.LineError
		switch {
		case err == nil:
			sinkErr = p.Feed(f)
		case errors.As(err, &le):
			sinkErr = p.FeedError(err)
		default:
			out.Err = errors.Join(out.Err, err)
		}
		if err != nil && le == nil {
			break
		}
	}
	var errBuf []byte
	if stderr != nil {
		b, err := io.ReadAll(stderr)
		if err != nil {
			out.Err = errors.Join(out.Err, err)
		}
		errBuf = b
	}
	resp, err := p.Finish(out)
	if sinkErr != nil && err == nil {
		err = sinkErr
	}
	resp.RawStreams = &driver.RawStreams{Stdout: raw.String(), Stderr: string(errBuf), Terminal: p.Terminal()}
	return resp, err
}
