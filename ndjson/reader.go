package ndjson

import (
	"errors"
	"io"
	"iter"

	"github.com/agentwire/agentwire/internal/seq"
)

// Reader frames NDJSON read from an io.Reader. Create it with [NewReader].
type Reader struct {
	m    machine
	src  io.Reader
	tee  io.Writer
	opts Options
	rerr error // read error, returned once the buffered lines are drained
	err  error // sticky final error
}

// NewReader returns a Reader that reads from r. It reads in chunks of up to
// the free space of its buffer (64 KiB to start); wrap r in a
// bufio.Reader only if r is costly per call and delivers tiny chunks.
func NewReader(r io.Reader, opts Options) *Reader {
	rd := &Reader{}
	rd.Reset(r, opts)
	return rd
}

// Reset makes the Reader read a new stream from src with opts, as
// NewReader would, but keeping the buffer it has grown. Offsets and line
// numbers start again at 0 and 1. It does not close the previous source.
func (r *Reader) Reset(src io.Reader, opts Options) {
	r.opts = opts
	r.m.init(opts)
	r.src = src
	r.tee = opts.Tee
	r.rerr, r.err = nil, nil
}

// Next returns the next frame.
//
//   - At the end of the input it returns io.EOF, and io.EOF again on
//     later calls. A final line without LF is returned first, with
//     Unterminated set.
//   - For a line longer than MaxLineSize it returns a zero Frame and a
//     *LineError wrapping ErrLineTooLong, after skipping the line; the
//     error is not fatal and the next call goes on with the next line.
//   - A read error from the source is returned after the complete lines
//     read before it; a partial line at that point is dropped (the Tee has
//     it). A Tee error is returned at once. Both are sticky.
//
// The returned Data and Raw are valid until the next call to Next.
// In steady state Next does not allocate.
func (r *Reader) Next() (Frame, error) {
	if r.err != nil {
		return Frame{}, r.err
	}
	for {
		if err, ok := r.m.next(); ok {
			return r.m.f, err
		}
		if r.m.eof {
			r.err = io.EOF
			return Frame{}, io.EOF
		}
		if r.rerr != nil {
			r.err = r.rerr
			return Frame{}, r.err
		}
		if err := r.fill(); err != nil {
			r.err = err
			return Frame{}, err
		}
	}
}

// errNegativeRead is returned for a source that reports an impossible count.
var errNegativeRead = errors.New("ndjson: reader returned invalid count from Read")

// fill reads once into the buffer and tees the bytes. It returns only tee
// errors; read errors are kept in r.rerr until the buffer is drained.
func (r *Reader) fill() error {
	sp := r.m.space()
	for range 100 {
		n, err := r.src.Read(sp)
		if n < 0 || n > len(sp) {
			r.rerr = errNegativeRead
			return nil
		}
		if n > 0 {
			if r.tee != nil {
				if err := writeTee(r.tee, sp[:n]); err != nil {
					return err
				}
			}
			r.m.w += n
		}
		if err == io.EOF {
			r.m.eof = true
			return nil
		}
		if err != nil {
			r.rerr = err
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	r.rerr = io.ErrNoProgress
	return nil
}

func writeTee(w io.Writer, p []byte) error {
	n, err := w.Write(p)
	if err == nil && n != len(p) {
		err = io.ErrShortWrite
	}
	return err
}

// All returns an iterator over the remaining frames: the pairs of Next
// (each frame with a nil error, each *LineError with a zero Frame), up to
// and including a fatal error; it stops silently at io.EOF. Breaking out
// of the loop leaves the Reader and its source as they are: a later Next
// or All goes on with the frame after the last one yielded. The yielded
// slices are valid until the next iteration.
func (r *Reader) All() iter.Seq2[Frame, error] {
	return seq.Frames(r.Next, IsRecoverable)
}
