// Package conn connects to a JSON-RPC 2.0 peer over newline-delimited
// stdio (the Codex app-server) with github.com/sourcegraph/jsonrpc2,
// framed by our own line reader and writer.
//
// # Stream
//
// [Stream] is a jsonrpc2.ObjectStream that fixes what the library's own
// codecs get wrong (shared/reference/readers.md A.5):
//
//   - framing is one message per line through jsonrpc.Reader, never a
//     json.Decoder on the pipe: two messages in one read are two messages,
//     and the bytes are teed ([StreamOptions.Read].Tee) before decoding;
//   - a line that is not a JSON-RPC message (a log line on stdout, a
//     truncated write) is reported to [StreamOptions.Observe] and skipped:
//     ReadObject returns only fatal read errors, so the connection stays
//     up (jsonrpc2.Conn closes itself on any ReadObject error);
//   - every inbound frame, with its exact bytes and position, goes to
//     Observe in wire order before jsonrpc2 sees it (jsonrpc2 re-encodes
//     params, so its Request.Params are not the bytes received);
//   - messages jsonrpc2 cannot represent (ids null, negative, fractional
//     or beyond uint64; batches of mixed kinds) are split or reported
//     rather than killing the connection; [StreamOptions.Intercept] lets a
//     caller take requests and notifications out of jsonrpc2's hands
//     entirely and answer them with their exact id ([Stream.Reply]);
//   - outbound messages are one line each, with the "jsonrpc" member only
//     when [StreamOptions.Version] is set (jsonrpc2 always writes it), and
//     are teed to [StreamOptions.OutTee].
//
// # Conn
//
// [Conn] drives a stdio server: [Conn.Call] with a context, notifications
// and server-to-client requests delivered synchronously on the read
// goroutine in wire order ([Options.Observe], [Options.Handle]), the
// handler's answer sent back with the request's exact id, and
// [Conn.Close] (or the cancellation of the context given to [Dial])
// closing both pipes and waiting for every goroutine the Conn started.
package conn

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/agentwire/agentwire/jsonrpc"
)

// StreamOptions configures a Stream.
type StreamOptions struct {
	// Read configures framing: MaxLineSize, MaxDepth, RequireVersion, and
	// Tee, which receives every inbound byte before it is decoded.
	Read jsonrpc.Options
	// OutTee, if not nil, receives every outbound line as written.
	OutTee io.Writer
	// Version adds "jsonrpc":"2.0" to outbound messages.
	Version bool
	// Observe, if not nil, is called on the reading goroutine for every
	// inbound frame in wire order, with its error (nil, or a non-fatal
	// *jsonrpc.MessageError for a line that is skipped). The frame's bytes
	// are valid until Observe returns. Batch elements are observed one by
	// one after their batch frame.
	Observe func(jsonrpc.Frame, error)
	// Intercept, if not nil, is called for every request and notification
	// (after Observe); when it returns true the message is consumed and
	// not given to jsonrpc2. The frame is valid until Intercept returns.
	Intercept func(jsonrpc.Frame) bool
}

// Stream is a jsonrpc2.ObjectStream over a line reader and a writer.
// ReadObject must be called from one goroutine at a time (jsonrpc2.Conn
// has one reader); WriteObject, Reply and ReplyError may be called from
// any goroutine.
type Stream struct {
	r       *jsonrpc.Reader
	closers []io.Closer
	opts    StreamOptions

	queue []jsonrpc.Frame // batch elements waiting for ReadObject (owned)

	wmu  sync.Mutex
	w    io.Writer
	enc  *jsonrpc.Encoder
	line []byte

	closeOnce sync.Once
	closeErr  error

	readDone chan struct{} // closed when ReadObject returns a fatal error
	readOnce sync.Once
}

// NewStream returns a Stream reading from r and writing to w. Close closes
// r and w when they are io.Closers (closing r is what unblocks a read in
// progress).
func NewStream(r io.Reader, w io.Writer, opts StreamOptions) *Stream {
	s := &Stream{r: jsonrpc.NewReader(r, opts.Read), opts: opts, w: w, readDone: make(chan struct{})}
	if opts.OutTee != nil {
		s.w = io.MultiWriter(w, opts.OutTee)
	}
	s.enc = jsonrpc.NewEncoder(s.w)
	s.enc.Version = opts.Version
	for _, c := range []any{w, r} {
		if c, ok := c.(io.Closer); ok {
			s.closers = append(s.closers, c)
		}
	}
	return s
}

// ReadObject reads the next message jsonrpc2 should see into v (jsonrpc2's
// private message type, decoded with encoding/json). Invalid lines, blank
// lines, messages jsonrpc2 cannot decode and intercepted messages are
// skipped. It returns only fatal errors: io.EOF at the end of input, the
// source's read error, or the Tee's error.
func (s *Stream) ReadObject(v any) error {
	for {
		if len(s.queue) > 0 {
			f := s.queue[0]
			s.queue = s.queue[1:]
			if s.deliver(f, v) {
				return nil
			}
			continue
		}
		f, err := s.r.Next()
		if err != nil && !jsonrpc.IsRecoverable(err) {
			s.readOnce.Do(func() { close(s.readDone) })
			return err
		}
		if s.opts.Observe != nil {
			s.opts.Observe(f, err)
		}
		switch {
		case err != nil, f.Class == jsonrpc.None:
			continue
		case f.Class == jsonrpc.Batch:
			for e, eerr := range f.Batch() {
				if s.opts.Observe != nil {
					s.opts.Observe(e, eerr)
				}
				if eerr == nil {
					s.queue = append(s.queue, e.Clone())
				}
			}
			continue
		}
		if s.deliver(f, v) {
			return nil
		}
	}
}

// deliver hands one message to jsonrpc2 unless it is intercepted or
// jsonrpc2 cannot decode it.
func (s *Stream) deliver(f jsonrpc.Frame, v any) bool {
	if (f.Class == jsonrpc.Request || f.Class == jsonrpc.Notification) && s.opts.Intercept != nil && s.opts.Intercept(f) {
		return false
	}
	if err := json.Unmarshal(f.Data, v); err != nil {
		if s.opts.Observe != nil {
			s.opts.Observe(f, &jsonrpc.MessageError{Line: f.Line, Offset: f.Offset, Err: ErrUnsupported})
		}
		return false
	}
	return true
}

// ErrUnsupported is reported to Observe for a valid message that
// jsonrpc2 cannot decode (an id that is null, negative, fractional or
// beyond uint64); the message is skipped.
var ErrUnsupported = errors.New("message not representable by jsonrpc2")

// WriteObject writes a jsonrpc2 message as one line. jsonrpc2's own
// encoding is re-framed: the "jsonrpc" member only with Version, the
// "meta" and extra members dropped, members otherwise byte-identical.
func (s *Stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	f, cerr := jsonrpc.ClassifyBytes(b, jsonrpc.Options{})
	if cerr != nil {
		return cerr
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	line := s.line[:0]
	switch f.Class {
	case jsonrpc.Request:
		line, err = jsonrpc.AppendRequest(line, s.opts.Version, f.ID, string(f.Method), rawOrNil(f.Params))
	case jsonrpc.Notification:
		line, err = jsonrpc.AppendNotification(line, s.opts.Version, string(f.Method), rawOrNil(f.Params))
	case jsonrpc.Response:
		line, err = jsonrpc.AppendResponse(line, s.opts.Version, f.ID, json.RawMessage(f.Result))
	case jsonrpc.ErrorResponse:
		line, err = jsonrpc.AppendRawError(line, s.opts.Version, f.ID, f.Error)
	default:
		return errors.New("conn: WriteObject: not a JSON-RPC message")
	}
	if err != nil {
		return err
	}
	s.line = line
	return writeFull(s.w, line)
}

func rawOrNil(b []byte) any {
	if b == nil {
		return nil
	}
	return json.RawMessage(b)
}

func writeFull(w io.Writer, b []byte) error {
	n, err := w.Write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	return err
}

// Reply answers a request with its exact id.
func (s *Stream) Reply(id jsonrpc.ID, result any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.enc.Respond(id, result)
}

// ReplyError answers a request with an error.
func (s *Stream) ReplyError(id jsonrpc.ID, code int64, message string, data any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.enc.RespondError(id, code, message, data)
}

// Notify writes a notification.
func (s *Stream) Notify(method string, params any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.enc.Notify(method, params)
}

// Close closes the writer and the reader (when they are io.Closers), once.
func (s *Stream) Close() error {
	s.closeOnce.Do(func() {
		for _, c := range s.closers {
			if err := c.Close(); err != nil && s.closeErr == nil {
				s.closeErr = err
			}
		}
	})
	return s.closeErr
}
