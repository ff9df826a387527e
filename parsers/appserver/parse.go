package appserver

import (
	"errors"
	"io"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/jsonrpc"
)

// Parse runs a finished capture of the app-server's stdout and stderr
// through a Parser; it is ParseSession without the client side.
func Parse(stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	return ParseSession(nil, stdout, stderr, sink, opts, out)
}

// ParseSession runs a whole finished session through a Parser: the
// client's side (stdin, what was written to the app-server; may be nil)
// is fed first with FeedClient, so that responses pair with their
// requests and approval answers with the server's requests; then stdout
// is framed with a jsonrpc.Reader whose Tee keeps every byte, every frame
// (and framing error) fed in order; stderr is read to its end; Finish(out)
// runs, and RawStreams gets the exact stdout and stderr bytes and the
// terminal. It starts no goroutine, so it is for captures, not live
// pipes. A read error is joined into Outcome.Err (the checkpoint is then
// invalid) and returned with the Response.
func ParseSession(stdin, stdout, stderr io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	p := New(sink, opts)
	var sinkErr error
	if stdin != nil {
		r := jsonrpc.NewReader(stdin, jsonrpc.Options{})
		for f, err := range r.All() {
			if err != nil && !jsonrpc.IsMessageError(err) {
				out.Err = errors.Join(out.Err, err)
				break
			}
			if err == nil && sinkErr == nil {
				sinkErr = p.FeedClient(f)
			}
		}
	}
	// The tee builds the string RawStreams.Stdout returns, without a final
	// copy; a source that knows its length sizes it at once.
	var raw strings.Builder
	if l, ok := stdout.(interface{ Len() int }); ok {
		raw.Grow(l.Len())
	}
	r := jsonrpc.NewReader(stdout, jsonrpc.Options{Tee: &raw})
	for sinkErr == nil {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !jsonrpc.IsMessageError(err) {
			out.Err = errors.Join(out.Err, err)
			break
		}
		if err != nil {
			sinkErr = p.FeedError(err)
			continue
		}
		sinkErr = p.Feed(f)
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
