package gemini

import (
	"bufio"
	"bytes"
	"io"
	"net/http"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/sse"
)

// Parse runs a whole response body through a Parser with internal/feed's
// one loop: status and contentType are the response's (they become
// Options.HTTPStatus and Options.ContentType, overriding opts), body is
// read to its end and kept byte for byte in RawStreams.Stdout, and
// Options.Observe is told where each frame starts.
//
// The framing is sniffed from the body, never taken from contentType: a
// body whose first byte (after a byte order mark and whitespace) is '{' or
// '[' is one JSON value, read whole and fed as one frame (the API's error
// bodies are pretty-printed JSON even when served as text/event-stream,
// and streamGenerateContent without alt=sse answers with a JSON array);
// any other body is SSE, framed by an sse.Reader whose frames and framing
// errors are fed in order.
//
// A sink error stops the feeding, but the body is still read to its end
// and the sink error returned. A read error is joined into the Outcome's
// Err: the stream broke off, the run is an incomplete failure, and Parse
// returns the error with the Response.
func Parse(status int, contentType string, body io.Reader, sink driver.EventSink, opts Options) (driver.Response, error) {
	opts.HTTPStatus, opts.ContentType = status, contentType
	br := bufio.NewReaderSize(body, 4096)
	src := io.Reader(br)
	if l, ok := body.(interface{ Len() int }); ok {
		src = sized{br, l.Len()}
	}
	fr := sseFraming(opts.MaxEventSize)
	if looksJSON(br) {
		fr = jsonFraming
	}
	return feed.Parse(fr, New(sink, opts), feed.Capture{Stdout: src, Outcome: opts.Outcome, DiscardStdout: opts.DiscardStdout}, opts.Observe, nil)
}

// ParseResponse is Parse for an *http.Response, as net/http or an SDK's
// raw-response accessor returns it: it reads resp.Body to its end and
// closes it.
func ParseResponse(resp *http.Response, sink driver.EventSink, opts Options) (driver.Response, error) {
	defer resp.Body.Close()
	return Parse(resp.StatusCode, resp.Header.Get("Content-Type"), resp.Body, sink, opts)
}

// sized keeps the body's length visible through the sniffing reader, so
// that the raw copy is sized at once.
type sized struct {
	io.Reader
	n int
}

func (s sized) Len() int { return s.n }

// sseFraming frames an SSE body.
func sseFraming(maxEvent int) feed.Framing[sse.Frame] {
	return feed.Framing[sse.Frame]{
		Open: func(src io.Reader, tee io.Writer) feed.Reader[sse.Frame] {
			return sse.NewReader(src, sse.Options{Tee: tee, MaxEventSize: maxEvent})
		},
		Recoverable: sse.IsRecoverable,
	}
}

// jsonFraming gives a body that is one JSON value as one event frame whose
// Data and Raw are the whole body.
var jsonFraming = feed.Framing[sse.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[sse.Frame] {
		return &apistream.Whole[sse.Frame]{Src: src, Tee: tee, Frame: func(b []byte) sse.Frame {
			return sse.Frame{Kind: sse.KindEvent, Data: b, Raw: b, Line: 1}
		}}
	},
	Recoverable: sse.IsRecoverable,
}

// looksJSON reports whether the body's first byte after a byte order mark
// and JSON whitespace is '{' or '['. It peeks without consuming, at most
// the reader's buffer size.
func looksJSON(br *bufio.Reader) bool {
	for n := 1; n <= br.Size(); n *= 2 {
		b, err := br.Peek(n)
		if len(b) > 0 && (len(b) >= 3 || b[0] != 0xef) {
			// Decided at the first byte after the mark and whitespace.
			if rest := bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")); jsonguard.SkipWS(rest, 0) < len(rest) {
				return apistream.Sniff(b) == apistream.BodyJSON
			}
		}
		if err != nil {
			return false
		}
	}
	return false
}
