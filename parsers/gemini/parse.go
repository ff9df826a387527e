package gemini

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/sse"
)

// Parse runs a whole response body through a Parser: status and
// contentType are the response's (they become Options.HTTPStatus and
// Options.ContentType, overriding opts), body is read to its end and kept
// byte for byte in RawStreams.Stdout.
//
// The framing is sniffed from the body, never taken from contentType: a
// body whose first byte (after a byte order mark and whitespace) is '{' or
// '[' is one JSON value and goes to FeedJSON (the API's error bodies are
// pretty-printed JSON even when served as text/event-stream, and
// streamGenerateContent without alt=sse answers with a JSON array); any
// other body is SSE, framed by an sse.Reader whose frames and framing
// errors are fed in order. A JSON body is read whole before it is parsed.
//
// A read error is the Outcome's Err: the stream broke off, the run is an
// incomplete failure, and Parse returns the error with the Response.
func Parse(status int, contentType string, body io.Reader, sink driver.EventSink, opts Options) (driver.Response, error) {
	opts.HTTPStatus, opts.ContentType = status, contentType
	p := New(sink, opts)
	var raw strings.Builder
	if l, ok := body.(interface{ Len() int }); ok {
		raw.Grow(l.Len())
	}
	var out Outcome
	br := bufio.NewReaderSize(body, 4096)
	sinkErr, readErr := feedBody(p, br, &raw)
	if readErr != nil {
		out.Err = readErr
	}
	resp, err := p.Finish(out)
	if sinkErr != nil && err == nil {
		err = sinkErr
	}
	if resp.RawStreams == nil {
		resp.RawStreams = &driver.RawStreams{}
	}
	resp.RawStreams.Stdout = raw.String()
	return resp, err
}

// ParseResponse is Parse for an *http.Response, as net/http or an SDK's
// raw-response accessor returns it: it reads resp.Body to its end and
// closes it.
func ParseResponse(resp *http.Response, sink driver.EventSink, opts Options) (driver.Response, error) {
	defer resp.Body.Close()
	return Parse(resp.StatusCode, resp.Header.Get("Content-Type"), resp.Body, sink, opts)
}

// feedBody sniffs the framing and feeds the whole body; it returns the
// first sink error and the read error.
func feedBody(p *Parser, br *bufio.Reader, raw *strings.Builder) (sinkErr, readErr error) {
	if looksJSON(br) {
		b, err := io.ReadAll(br)
		raw.Write(b)
		if err != nil {
			readErr = err
		}
		return p.FeedJSON(b), readErr
	}
	r := sse.NewReader(br, sse.Options{Tee: raw, MaxEventSize: p.opts.MaxEventSize})
	for sinkErr == nil {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		switch {
		case err == nil:
			sinkErr = p.Feed(f)
		case isFramingError(err):
			sinkErr = p.FeedError(err)
		default:
			return sinkErr, err
		}
	}
	if sinkErr != nil {
		// Keep the rest of the body in the raw bytes.
		_, _ = io.Copy(raw, br)
	}
	return sinkErr, nil
}

// looksJSON reports whether the body's first byte after a byte order mark
// and JSON whitespace is '{' or '['. It peeks without consuming.
func looksJSON(br *bufio.Reader) bool {
	for n := 1; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			return false
		}
		i := 0
		if len(b) >= 3 && string(b[:3]) == "\xef\xbb\xbf" {
			i = 3
		} else if n < 3 && strings.HasPrefix("\xef\xbb\xbf", string(b)) {
			continue
		}
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
		if i < len(b) {
			return b[i] == '{' || b[i] == '['
		}
		if err != nil {
			return false
		}
	}
	return false
}

// isFramingError reports whether err is the sse reader's positioned,
// recoverable error (an oversized event) rather than a read error.
func isFramingError(err error) bool {
	var se *sse.Error
	return errors.As(err, &se)
}
