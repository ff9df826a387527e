package openai

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/sse"
)

// Parse runs a whole response through a Parser: status is the HTTP status
// (0 when unknown), contentType the Content-Type header ("" when unknown)
// and body the response body. It frames an event stream with an
// sse.Reader whose Tee keeps every byte, feeds every frame (and every
// framing error) in order, and calls Finish; a body that is not an event
// stream (the JSON error document of a non-2xx status, or a non-streamed
// JSON response) goes to FeedBody instead. RawStreams.Stdout holds the
// exact body.
//
// Which it is: a status outside 2xx is an error document whatever the
// content type; otherwise the body's first bytes decide when they are
// clear (a '{' or '[' is JSON, a line starting "data:", "event:", "id:",
// "retry:" or ":" is an event stream), and the content type when they are
// not. A read error of the body is an infrastructure error: it makes the
// run incomplete (unless its terminal had arrived) and is returned with
// the Response.
func Parse(status int, contentType string, body io.Reader, sink driver.EventSink, opts Options) (driver.Response, error) {
	if opts.HTTPStatus == 0 {
		opts.HTTPStatus = status
	}
	p := New(sink, opts)
	var raw strings.Builder
	if l, ok := body.(interface{ Len() int }); ok {
		raw.Grow(l.Len())
	}
	var out Outcome
	// Peek at the start to decide between an event stream and a document.
	var head [512]byte
	n, rerr := io.ReadAtLeast(body, head[:], len(head))
	if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
		rerr = nil
	}
	start := head[:n]
	rest := io.MultiReader(bytes.NewReader(start), body)
	var sinkErr error
	if rerr != nil {
		out.Err = rerr
		raw.Write(start)
	} else if status != 0 && (status < 200 || status > 299) || !isEventStream(start, contentType) {
		b, err := io.ReadAll(rest)
		raw.Write(b)
		if err != nil {
			out.Err = err
		}
		if len(b) > 0 || status < 200 || status > 299 {
			sinkErr = p.FeedBody(status, b)
		}
	} else {
		r := sse.NewReader(rest, sse.Options{Tee: &raw})
		for sinkErr == nil {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			var se *sse.Error
			switch {
			case err == nil:
				sinkErr = p.Feed(f)
			case errors.As(err, &se):
				sinkErr = p.FeedError(err)
			default:
				out.Err = err
			}
			if err != nil && se == nil {
				break
			}
		}
	}
	resp, err := p.Finish(out)
	if sinkErr != nil && err == nil {
		err = sinkErr
	}
	resp.RawStreams = &driver.RawStreams{Stdout: raw.String(), Terminal: p.Terminal()}
	return resp, err
}

// ParseHTTP is Parse for an *http.Response, as net/http returns it (or an
// SDK hands it over): its status, Content-Type and body, which it reads to
// the end and closes.
func ParseHTTP(r *http.Response, sink driver.EventSink, opts Options) (driver.Response, error) {
	defer r.Body.Close()
	return Parse(r.StatusCode, r.Header.Get("Content-Type"), r.Body, sink, opts)
}

// isEventStream decides whether a 2xx body is an event stream from its
// first bytes, or from the content type when they do not tell.
func isEventStream(start []byte, contentType string) bool {
	i := jsonguard.SkipWS(start, 0)
	if bytes.HasPrefix(start[i:], []byte("\xef\xbb\xbf")) {
		return true
	}
	if i < len(start) {
		switch start[i] {
		case '{', '[':
			return false
		case ':':
			return true
		}
		for _, f := range []string{"data", "event", "id", "retry"} {
			if bytes.HasPrefix(start[i:], []byte(f)) && len(start) > i+len(f) && start[i+len(f)] == ':' {
				return true
			}
		}
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt != "application/json"
}
