package sse

import (
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/agentwire/agentwire/internal/quote"
)

// DefaultMaxEventSize is the limit on the raw size of one block (an event
// with its lines, comments and terminating blank line) when
// Options.MaxEventSize is zero: 32 MiB, the per-line cap of the openai-go and
// anthropic-sdk-go decoders, applied here per event.
const DefaultMaxEventSize = 32 << 20

// Options configures a Reader or a Decoder. The zero value is ready to use.
type Options struct {
	// MaxEventSize limits the raw size in bytes of one block: the lines of an
	// event (or of a comment or field-only block) up to and including the
	// blank line that ends it. Zero or less means DefaultMaxEventSize.
	//
	// A larger block is reported once as an *Error wrapping
	// ErrEventTooLarge, positioned at the block's first byte; it is not
	// dispatched, its fields (id and retry included) have no effect, its
	// bytes are released as they arrive (as KindSkipped spans when Spans is
	// set), and decoding resumes after the next blank line. Memory
	// therefore stays within about four times the limit, whatever the
	// input (see the package doc).
	MaxEventSize int

	// Tee, when not nil, receives every byte read from the source (or passed
	// to Decoder.Write) before it is decoded, so that malformed input is
	// recorded too. A Tee write error is fatal and returned as is.
	Tee io.Writer

	// Spans makes Next (and the Decoder's emit function) also return the
	// bytes that do not belong to a dispatched event, as frames whose Kind
	// is not KindEvent: a leading BOM, comment-only blocks (keep-alives),
	// lone blank lines, blocks with fields but no data, and the residue of
	// an oversized or discarded event. With Spans set, the Raw of all frames
	// concatenated in order equals the input, byte for byte.
	Spans bool

	// DiscardIncomplete selects the WHATWG rule for the end of input: a
	// final event that is not followed by a blank line is not dispatched.
	// Next then returns an *Error wrapping ErrIncomplete in its place (and,
	// with Spans, a KindSkipped frame holding its bytes). By default the
	// event is delivered with Incomplete set, because providers do end
	// streams without the blank line.
	DiscardIncomplete bool
}

// Kind classifies a Frame.
type Kind uint8

const (
	// KindEvent is a dispatched event: a block that had at least one data
	// field, ended by a blank line (or by the end of input, see
	// Frame.Incomplete).
	KindEvent Kind = iota
	// KindComment is a block of comment lines only (lines starting with a
	// colon, such as the ": ping" keep-alives), with its blank line.
	KindComment
	// KindBlank is a blank line that ends an empty block.
	KindBlank
	// KindNoData is a block with fields but no data field (an "event:"-only,
	// "id:"-only or "retry:"-only block, or unknown fields). WHATWG
	// dispatches nothing for it; its id and retry fields still take effect.
	KindNoData
	// KindBOM is the UTF-8 byte order mark at the start of the stream.
	KindBOM
	// KindSkipped is input that was not decoded: all or part of an event
	// larger than MaxEventSize, or an incomplete final event under
	// DiscardIncomplete. An oversized event may come as several
	// consecutive KindSkipped frames.
	KindSkipped
)

var kindNames = [...]string{"event", "comment", "blank", "nodata", "bom", "skipped"}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Frame is one dispatched event or, with Options.Spans, one accounted span of
// the input.
//
// Reader.Next and a Decoder's emit function hand out the decoder's own
// Frame, by pointer, and reuse it for the next frame: the pointer is valid
// only until the next call to Next or Reset (for a Decoder, until the emit
// function returns). Data and Raw are borrowed the same way: they point
// into the decoder's buffers. Copy the Frame (*f) to keep its fields, and
// use Clone to keep Data and Raw too.
type Frame struct {
	Kind Kind

	// Event is the value of the block's last "event" field, or "" when it
	// had none (WHATWG then uses the type "message"; like the provider SDKs
	// we leave that choice to the caller).
	Event string

	// Data is the values of the block's "data" fields joined with "\n",
	// with no trailing newline. Invalid UTF-8 is passed through untouched.
	Data []byte

	// ID is the stream's last event ID when the frame was produced: the
	// value of the most recent "id" field without a NUL byte, in this block
	// or an earlier one. It persists across events, as WHATWG specifies.
	ID string

	// Retry is the reconnection time of the block's last valid "retry"
	// field (ASCII digits only, in milliseconds), and HasRetry says whether
	// the block had one. Reader.Retry reports the stream's current value.
	Retry    time.Duration
	HasRetry bool

	// Raw is the exact input bytes of the frame, line terminators, comment
	// lines and the terminating blank line included.
	Raw []byte

	// Offset is the byte offset of Raw[0] in the input, counting from 0.
	// Line is the 1-based number of the line Raw starts on; CRLF, LF and a
	// lone CR each end one line.
	Offset int64
	Line   int

	// Incomplete is set on the frame made of the bytes after the last blank
	// line when the input ends: the event was not terminated.
	Incomplete bool
}

// Pos returns Offset and Line: where the frame starts. A zero Frame (the
// one that comes with an error) has line 0.
func (f Frame) Pos() (offset int64, line int) { return f.Offset, f.Line }

// Clone returns a copy of f whose Data and Raw are owned by the caller, in
// one allocation.
func (f Frame) Clone() Frame {
	if f.Data == nil && f.Raw == nil {
		return f
	}
	b := make([]byte, len(f.Raw)+len(f.Data))
	n := copy(b, f.Raw)
	copy(b[n:], f.Data)
	if f.Raw != nil {
		f.Raw = b[:n:n]
	}
	if f.Data != nil {
		f.Data = b[n:]
	}
	return f
}

var (
	// ErrEventTooLarge is wrapped by the *Error reporting a block larger than
	// Options.MaxEventSize. It is not fatal: the next call goes on after
	// the next blank line.
	ErrEventTooLarge = errors.New("event too large")

	// ErrIncomplete is wrapped by the *Error that replaces an unterminated
	// final event under Options.DiscardIncomplete. The next call returns
	// io.EOF.
	ErrIncomplete = errors.New("incomplete event at end of input")

	// ErrClosed is returned by Next after Close, and by Decoder.Write after
	// Decoder.Close.
	ErrClosed = errors.New("sse: closed")

	// ErrInvalidField is returned by the Writer for an event name or ID that
	// contains a line break (or, for an ID, a NUL byte), which would
	// corrupt the stream.
	ErrInvalidField = errors.New("sse: field value contains a line break or NUL")
)

// Error is a positioned decoding error. It unwraps to ErrEventTooLarge or
// ErrIncomplete. Both are non-fatal: the stream may be read on.
type Error struct {
	Offset int64 // byte offset of the start of the offending block
	Line   int   // 1-based line number of that byte
	Err    error // ErrEventTooLarge or ErrIncomplete
	detail string
}

func newError(off int64, line int, err error, detail string, input []byte) *Error {
	if len(input) > 0 {
		detail += " starting " + quote.Bytes(input, quote.DefaultMax) + "..."
	}
	return &Error{Offset: off, Line: line, Err: err, detail: detail}
}

// Error returns a message such as
// `sse: line 12 (offset 3456): event too large (limit 1024 bytes) starting "data: ..."`.
func (e *Error) Error() string {
	s := "sse: line " + strconv.Itoa(e.Line) + " (offset " + strconv.FormatInt(e.Offset, 10) + "): "
	if e.Err != nil {
		s += e.Err.Error()
	}
	return s + e.detail
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// Pos returns Offset and Line.
func (e *Error) Pos() (offset int64, line int) { return e.Offset, e.Line }
