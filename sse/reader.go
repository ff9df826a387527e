package sse

import (
	"errors"
	"io"
	"iter"
	"time"

	"github.com/agentwire/agentwire/internal/seq"
)

// maxEmptyReads is how many consecutive (0, nil) reads Next tolerates before
// it fails with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// Reader reads SSE frames from an io.Reader. It is the pull face of the same
// state machine as Decoder. A Reader is not safe for concurrent use.
type Reader struct {
	m      machine
	src    io.Reader
	tee    io.Writer
	eof    bool
	err    error // sticky fatal error
	closed bool

	nextErr error // the error of the last next that returned nil
}

// NewReader returns a Reader that decodes r according to opts.
//
// When Next returns io.EOF, the Reader lends its buffers to a pool that
// NewReader and NewDecoder take from, so that reading many streams one
// after the other does not allocate and grow fresh buffers for each. A
// Reader reused through Reset keeps its own buffers instead.
func NewReader(r io.Reader, opts Options) *Reader {
	rd := &Reader{src: r, tee: opts.Tee}
	rd.m.init(opts)
	return rd
}

// Reset makes r read a new stream from src with opts, as NewReader would,
// but keeping the buffers r has grown, so that reading many streams does not
// allocate. From then on r keeps its buffers at the end of its streams too.
// It does not close the previous source.
func (r *Reader) Reset(src io.Reader, opts Options) {
	*r = Reader{m: r.m, src: src, tee: opts.Tee}
	r.m.reset(opts)
}

// Next returns the next frame: a dispatched event, or with Options.Spans
// any accounted span.
//
// The frame is the Reader's: the pointer, and the Data and Raw it holds,
// are valid until the next call to Next (or All's next iteration) or
// Reset, which reuse it for the next frame; after that they may hold
// another frame or the bytes of another stream. Keep a frame with
// f.Clone().
//
// With an error the frame is nil. At the end of input Next first returns
// the unterminated final event, if any, with Incomplete set (or, under
// Options.DiscardIncomplete, an *Error wrapping ErrIncomplete), then
// io.EOF. An event larger than Options.MaxEventSize yields an *Error
// wrapping ErrEventTooLarge; it is not fatal and the following call
// continues after the event. Errors from the underlying reader are
// returned as they are, after the frames completed before them, and are
// sticky, as are Tee errors. After Close, Next returns ErrClosed.
func (r *Reader) Next() (*Frame, error) {
	// A thin wrapper that the compiler inlines: the frame is not copied.
	if f := r.next(); f != nil {
		return f, nil
	}
	return nil, r.nextErr
}

// next is Next: it returns the machine's frame, or nil with the error in
// r.nextErr.
func (r *Reader) next() *Frame {
	if r.closed {
		r.nextErr = ErrClosed
		return nil
	}
	for {
		if r.m.fast() {
			return &r.m.out
		}
		switch r.m.step(r.eof) {
		case stFrame:
			return &r.m.out
		case stError:
			r.nextErr = r.m.outErr
			return nil
		case stEOF:
			// The frame before is no longer valid: the buffers may go
			// back to the pool.
			r.m.release()
			r.nextErr = io.EOF
			return nil
		}
		if r.err != nil {
			r.nextErr = r.err
			return nil
		}
		if r.eof {
			// Unreachable: at the end of input step always makes progress.
			r.nextErr = io.ErrUnexpectedEOF
			return nil
		}
		r.fill()
	}
}

// fill reads once (or until progress) into the machine's buffer.
func (r *Reader) fill() {
	m := &r.m
	m.makeRoom()
	for i := 0; i < maxEmptyReads; i++ {
		n, err := r.src.Read(m.buf[m.w:])
		if n < 0 || n > len(m.buf)-m.w {
			r.err = errors.New("sse: invalid Read count from the underlying reader")
			return
		}
		if n > 0 && r.tee != nil {
			if _, terr := r.tee.Write(m.buf[m.w : m.w+n]); terr != nil {
				r.err = terr
				return
			}
		}
		m.w += n
		if err == io.EOF {
			r.eof = true
			return
		}
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// All returns an iterator over the remaining frames: the pairs of Next
// (each frame with a nil error, each non-fatal *Error with a nil frame),
// each frame valid until the next iteration, as from Next,
// up to and including a fatal error; it stops silently at io.EOF.
// Breaking out of the loop leaves the Reader and its source as they are:
// a later Next or All goes on with the frame after the last one yielded.
// The source is the caller's to close (Close closes it when it is an
// io.Closer, such as an HTTP response body).
func (r *Reader) All() iter.Seq2[*Frame, error] {
	return seq.Frames(r.Next, IsRecoverable)
}

// IsRecoverable reports whether err, returned by Next or passed to a
// Decoder's emit function, leaves the stream readable: it is true for an
// *Error (ErrEventTooLarge, ErrIncomplete) and false for everything else.
func IsRecoverable(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Close marks the Reader closed and closes the underlying reader if it is
// an io.Closer, returning its error. Later calls return nil.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if c, ok := r.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// LastEventID returns the stream's last event ID: the value of the most
// recent "id" field without NUL read so far ("" if none).
func (r *Reader) LastEventID() string { return r.m.lastID }

// Retry returns the reconnection time set by the most recent valid "retry"
// field read so far, and whether there was one.
func (r *Reader) Retry() (time.Duration, bool) { return r.m.streamRetry, r.m.hasStreamRetry }

// Decoder is the push face of the SSE state machine: the caller writes
// input as it arrives and Close at the end, and the decoder calls emit for
// every frame and non-fatal error, in the order Reader.Next would return
// them. A Decoder is not safe for concurrent use.
type Decoder struct {
	m      machine
	tee    io.Writer
	emit   func(*Frame, error) error
	err    error
	closed bool
}

// NewDecoder returns a Decoder that decodes according to opts and calls
// emit with each frame (err == nil) or each non-fatal *Error (a nil
// frame). The frame is the Decoder's: the pointer, and its Data and Raw,
// are valid only until emit returns. If
// emit returns an error, decoding stops and Write or Close returns that
// error, now and on every later call. A nil emit discards everything (the
// Tee still sees the input). Close lends the Decoder's buffers to the pool
// described at NewReader, unless the Decoder was reused through Reset.
func NewDecoder(opts Options, emit func(*Frame, error) error) *Decoder {
	d := &Decoder{tee: opts.Tee, emit: emit}
	d.m.init(opts)
	return d
}

// Reset makes d decode a new stream with opts and emit, as NewDecoder
// would, but keeping the buffers d has grown.
func (d *Decoder) Reset(opts Options, emit func(*Frame, error) error) {
	*d = Decoder{m: d.m, tee: opts.Tee, emit: emit}
	d.m.reset(opts)
}

// Write decodes p, calling emit for each frame it completes. It never
// retains p. It returns len(p) and nil unless the Tee or emit failed, or
// the Decoder is closed (ErrClosed).
func (d *Decoder) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.closed {
		return 0, ErrClosed
	}
	if d.tee != nil {
		if _, err := d.tee.Write(p); err != nil {
			d.err = err
			return 0, err
		}
	}
	n := 0
	m := &d.m
	for n < len(p) {
		m.makeRoom()
		c := copy(m.buf[m.w:], p[n:])
		m.count(c)
		m.w += c
		n += c
		if err := d.run(false); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Close ends the input: it emits the unterminated final event, if any, as
// Reader.Next does at the end of input. It returns the error of emit, if
// any. After Close, Write returns ErrClosed.
func (d *Decoder) Close() error {
	if d.err != nil {
		return d.err
	}
	if d.closed {
		return nil
	}
	d.closed = true
	err := d.run(true)
	d.m.release()
	return err
}

func (d *Decoder) run(atEOF bool) error {
	m := &d.m
	for {
		var err error
		st := stFrame
		if !m.fast() {
			st = m.step(atEOF)
		}
		switch st {
		case stFrame:
			if d.emit != nil {
				err = d.emit(&m.out, nil)
			}
		case stError:
			if d.emit != nil {
				err = d.emit(nil, m.outErr)
			}
		default:
			return nil
		}
		if err != nil {
			d.err = err
			return err
		}
	}
}

// LastEventID returns the stream's last event ID, as Reader.LastEventID.
func (d *Decoder) LastEventID() string { return d.m.lastID }

// Retry returns the stream's reconnection time, as Reader.Retry.
func (d *Decoder) Retry() (time.Duration, bool) { return d.m.streamRetry, d.m.hasStreamRetry }
