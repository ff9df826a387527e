package openai

import (
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/apistream"
	"github.com/agentwire/agentwire/internal/feed"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/sse"
)

// streamFraming frames an event-stream body.
var streamFraming = feed.Framing[sse.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[sse.Frame] {
		return sse.NewReader(src, sse.Options{Tee: tee})
	},
	Recoverable: sse.IsRecoverable,
}

// documentFraming frames a body that is not an event stream as one frame
// holding all of it, for FeedBody (see documentParser).
var documentFraming = feed.Framing[sse.Frame]{
	Open: func(src io.Reader, tee io.Writer) feed.Reader[sse.Frame] {
		return &apistream.Whole[sse.Frame]{Src: src, Tee: tee, Frame: bodyFrame}
	},
	Recoverable: func(error) bool { return false },
}

// bodyFrame is the one event frame holding a whole body.
func bodyFrame(b []byte) sse.Frame { return sse.Frame{Kind: sse.KindEvent, Data: b, Raw: b, Line: 1} }

// documentParser feeds the one frame of documentFraming to FeedBody.
type documentParser struct {
	*Parser
	status int
}

func (d documentParser) Feed(f sse.Frame) error { return d.FeedBody(d.status, f.Data) }

// Parse runs a whole response through a Parser: status is the HTTP status
// (0 when unknown), contentType the Content-Type header ("" when unknown)
// and body the response body. It runs internal/feed's one loop: an event
// stream is framed by an sse.Reader whose Tee keeps every byte, and every
// frame (and every framing error) is fed in order; a body that is not an
// event stream (the JSON error document of a non-2xx status, or a
// non-streamed JSON response) is given whole to FeedBody. Then Finish;
// RawStreams.Stdout holds the exact body. Options.Observe, when set, is
// told where each frame starts before it is fed.
//
// Which it is: a status outside 2xx is an error document whatever the
// content type; otherwise the body's first bytes decide when they are
// clear (a '{' or '[' is JSON, a line starting "data:", "event:", "id:",
// "retry:" or ":" is an event stream), and the content type when they are
// not. A sink error stops the feeding (the body is still read to its end
// and the error returned). A read error of the body is joined into
// Outcome.Err: the run is incomplete unless its terminal had arrived, and
// the error is returned with the Response.
func Parse(status int, contentType string, body io.Reader, sink driver.EventSink, opts Options) (driver.Response, error) {
	if opts.HTTPStatus == 0 {
		opts.HTTPStatus = status
	}
	p := New(sink, opts)
	// Peek at the start to tell an event stream from a document.
	var head [512]byte
	n, err := io.ReadFull(body, head[:])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	src := &peeked{head: head[:n], r: body, err: err}
	c := feed.Capture{Stdout: src, Outcome: opts.Outcome, DiscardStdout: opts.DiscardStdout}
	if !apistream.StatusOK(status) || !isEventStream(head[:n], contentType) {
		return feed.Parse(documentFraming, documentParser{p, status}, c, opts.Observe, nil)
	}
	return feed.Parse(streamFraming, feed.Parser[sse.Frame](p), c, opts.Observe, nil)
}

// peeked is a body whose first bytes were read ahead (err is the error
// that read met); it has the Len of the body when the body has one, so
// that the tee is sized at once.
type peeked struct {
	head []byte
	r    io.Reader
	err  error
}

func (p *peeked) Read(b []byte) (int, error) {
	if len(p.head) > 0 {
		n := copy(b, p.head)
		p.head = p.head[n:]
		return n, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Read(b)
}

// Len is the number of bytes left, when the body tells.
func (p *peeked) Len() int {
	n := len(p.head)
	if l, ok := p.r.(interface{ Len() int }); ok {
		n += l.Len()
	}
	return n
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
	if bytes.HasPrefix(start[jsonguard.SkipWS(start, 0):], []byte("\xef\xbb\xbf")) {
		return true // a byte order mark: only an event stream has one here
	}
	switch apistream.Sniff(start) {
	case apistream.BodyJSON:
		return false
	case apistream.BodySSE:
		return true
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt != "application/json"
}
