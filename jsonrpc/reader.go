package jsonrpc

import (
	"errors"
	"io"
	"iter"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/seq"

	"github.com/agentwire/agentwire/ndjson"
)

// Reader frames and classifies JSON-RPC messages read from an io.Reader.
type Reader struct {
	r     *ndjson.Reader
	opts  Options
	index jsonguard.Index // the frame's index, reused
	f     Frame           // the frame NextFrame hands out
}

// NewReader returns a Reader over src.
func NewReader(src io.Reader, opts Options) *Reader {
	return &Reader{r: ndjson.NewReader(src, opts.lines()), opts: opts}
}

// lines are the options of the line framing under the messages.
func (o Options) lines() ndjson.Options {
	return ndjson.Options{MaxLineSize: o.MaxLineSize, Tee: o.Tee}
}

// Reset makes the Reader read a new stream from src with opts, as
// NewReader would, but keeping the buffer it has grown. It does not close
// the previous source.
func (r *Reader) Reset(src io.Reader, opts Options) {
	r.opts = opts
	r.r.Reset(src, opts.lines())
}

// Next returns the next frame.
//
//   - A valid message, a blank line or the BOM: the frame and nil.
//   - A line that is not a JSON-RPC message: the frame (class Invalid, Raw
//     and position kept) and a *MessageError; not fatal.
//   - A line longer than MaxLineSize: a zero Frame and a *MessageError
//     wrapping ErrLineTooLong (with Offset and Len of the skipped span);
//     not fatal.
//   - io.EOF at the end, after a final unterminated line; a source read
//     error after the complete lines before it; a Tee error at once. These
//     are sticky.
//
// The frame's slices are valid until the next call. Next does not allocate
// in steady state.
func (r *Reader) Next() (Frame, error) {
	f, err := r.NextFrame()
	if f == nil {
		return Frame{}, err
	}
	return *f, err
}

// NextFrame is Next handing out the Reader's own Frame by pointer: the
// same frame and error, nil where Next returns the zero Frame (a line over
// MaxLineSize, io.EOF, a read or Tee error). The Frame, like its slices,
// is valid until the next call to Next or NextFrame, or Reset. It copies
// no frame: a frame of a few hundred bytes that went by value through
// every layer (the classification, Next, a feeding loop) cost a copy at
// each.
func (r *Reader) NextFrame() (*Frame, error) {
	lf, err := r.r.Next()
	if err != nil {
		return nil, lineError(err)
	}
	if err := classifyInto(&r.f, lf, r.opts, &r.index); err != nil {
		return &r.f, err
	}
	return &r.f, nil
}

// classifyFrame is Classify returning a nil error interface for valid
// frames.
func classifyFrame(f ndjson.Frame, opts Options, idx *jsonguard.Index) (Frame, error) {
	m, err := classifyIndexed(f, opts, idx)
	if m.Class == Invalid {
		return m, err
	}
	return m, nil
}

// lineError converts ndjson's too-long report; other errors pass through.
func lineError(err error) error {
	var le *ndjson.LineError
	if errors.As(err, &le) {
		return &MessageError{Line: le.Line, Offset: le.Offset, Len: le.Len, Err: le.Err}
	}
	return err
}

// IsRecoverable reports whether err, returned by Next or passed to a
// Decoder's emit function, leaves the stream readable: it is true for a
// *MessageError (a per-line problem) and false for everything else (a read
// or Tee error).
func IsRecoverable(err error) bool {
	var me *MessageError
	return errors.As(err, &me)
}

// All returns an iterator over the remaining frames: the pairs of Next
// (each frame with its error: nil, or a non-fatal *MessageError), up to and
// including a fatal error; it stops silently at io.EOF. Breaking out of
// the loop leaves the Reader and its source as they are: a later Next or
// All goes on with the frame after the last one yielded.
func (r *Reader) All() iter.Seq2[Frame, error] {
	return seq.Frames(r.Next, IsRecoverable)
}

// Decoder is the push face: bytes go in through Write, frames come out
// through the function given to NewDecoder, in input order.
type Decoder struct {
	d     *ndjson.Decoder
	opts  Options
	emit  func(Frame, error) error
	index jsonguard.Index // the frame's index, reused
}

// NewDecoder returns a Decoder that calls emit for every frame, with the
// same (Frame, error) pairs as Reader.Next returns (never io.EOF). The
// frame's slices are valid only until emit returns. An error returned by
// emit stops the Write or Close that called it and is sticky.
func NewDecoder(opts Options, emit func(Frame, error) error) *Decoder {
	d := &Decoder{opts: opts, emit: emit}
	d.d = ndjson.NewDecoder(opts.lines(), d.frame)
	return d
}

func (d *Decoder) frame(f ndjson.Frame, err error) error {
	if err != nil {
		return d.emit(Frame{}, lineError(err))
	}
	return d.emit(classifyFrame(f, d.opts, &d.index))
}

// Write feeds p (teed first); every frame it completes is emitted before
// Write returns. Write never retains p. It returns the Tee's or emit's
// error, or ndjson.ErrClosed after Close.
func (d *Decoder) Write(p []byte) (int, error) { return d.d.Write(p) }

// Close ends the input: a final line without LF is emitted. Later Writes
// fail.
func (d *Decoder) Close() error { return d.d.Close() }

// Reset makes d decode a new stream with opts and emit, as NewDecoder
// would, but keeping the buffer it has grown.
func (d *Decoder) Reset(opts Options, emit func(Frame, error) error) {
	d.opts, d.emit = opts, emit
	d.d.Reset(opts.lines(), d.frame)
}
