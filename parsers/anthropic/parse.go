package anthropic

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/sse"
)

// FramingOptions are the sse.Options a Parser needs: Spans, so that the
// bytes of a body that is not an event stream reach Feed.
var FramingOptions = sse.Options{Spans: true}

// Parse runs a whole response body through a Parser: it frames body with
// an sse.Reader whose Tee keeps every byte, feeds every frame (and every
// oversized-event error) in order, calls Finish(out) and fills RawStreams
// with the exact body (as Stdout) and the terminal. opts.HTTPStatus and
// opts.ContentType say what the body is. A read error is joined into
// Outcome.Err: the stream is then incomplete and Parse returns the error
// with the Response.
func Parse(body io.Reader, sink driver.EventSink, opts Options, out Outcome) (driver.Response, error) {
	p := New(sink, opts)
	var raw strings.Builder
	if l, ok := body.(interface{ Len() int }); ok {
		raw.Grow(l.Len())
	}
	fo := FramingOptions
	fo.Tee = &raw
	r := sse.NewReader(body, fo)
	var sinkErr error
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !sse.IsRecoverable(err) {
			out.Err = errors.Join(out.Err, err)
			break
		}
		if sinkErr != nil {
			continue // read on for the raw bytes
		}
		if err != nil {
			sinkErr = p.FeedError(err)
		} else {
			sinkErr = p.Feed(f)
		}
	}
	resp, err := p.Finish(out)
	if sinkErr != nil && err == nil {
		err = sinkErr
	}
	resp.RawStreams = &driver.RawStreams{Stdout: raw.String(), Terminal: p.Terminal()}
	return resp, err
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
