package anthropic

import (
	"io"
	"net/http"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/sse"
)

// framing is how Parse reads the body: with Spans, so that the bytes of a
// body that is not an event stream (an error document) reach Feed.
var framing = feed.Framing[sse.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[sse.Frame] {
		return sse.NewReader(src, sse.Options{Spans: true, Tee: tee})
	},
	Recoverable: sse.IsRecoverable,
}

// Parse runs a whole response body through a Parser with internal/feed's
// loop: it frames body with an sse.Reader whose Tee keeps every byte,
// feeds every frame (and every oversized-event error) in order, calls
// Finish(out) and fills RawStreams with the exact body (as Stdout) and the
// terminal. opts.HTTPStatus and opts.ContentType say what the body is.
//
// A sink error stops the feeding, but the body is still read to its end
// and the sink error is returned. A read error is joined into Outcome.Err:
// the stream is then incomplete (its message says why) and Parse returns
// the error with the Response.
func Parse(body io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	return feed.Parse(framing, New(sink, opts), feed.Capture{Stdout: body, Outcome: out, DiscardStdout: opts.DiscardStdout}, opts.Observe, nil)
}

// ParseHTTP is Parse for an *http.Response of POST /v1/messages (from
// net/http, or the raw response an SDK exposes): the status code and the
// Content-Type header go into opts, the body is read to its end and
// closed. The request-id header, when present, is kept in
// Response.Metadata[MetaRequestID] unless the error body named one.
func ParseHTTP(resp *http.Response, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	opts.HTTPStatus = resp.StatusCode
	opts.ContentType = resp.Header.Get("Content-Type")
	defer resp.Body.Close()
	r, err := Parse(resp.Body, sink, opts, out)
	if id := resp.Header.Get("Request-Id"); id != "" && r.Metadata[MetaRequestID] == "" {
		r.Metadata[MetaRequestID] = id
	}
	return r, err
}
