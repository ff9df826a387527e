// Package ndjson frames newline-delimited JSON (NDJSON, JSONL) as written
// by agent CLIs (Codex `exec --json`, Claude Code `--output-format
// stream-json`, the Codex app-server) into lines with their exact raw bytes
// and positions, and decodes lines safely.
//
// # Faces
//
// One split state machine has two faces:
//   - [Reader] pulls from an [io.Reader]: [Reader.Next] returns one [Frame]
//     per call and [io.EOF] at the end; [Reader.All] is the same as an
//     iterator.
//   - [Decoder] is pushed bytes with [Decoder.Write] and [Decoder.Close]
//     and calls a function for each frame.
//
// Both run the same code, so feeding one byte at a time and reading the
// whole stream at once give the same frames and the same errors.
//
// # Framing rules
//
//   - A line ends at LF. A CR immediately before the LF is part of the
//     terminator: it stays in [Frame.Raw] and is stripped from
//     [Frame.Data]. Any other CR is data.
//   - A final line without LF is a frame with [Frame.Unterminated] set.
//     Empty input yields no frame.
//   - A UTF-8 byte order mark (EF BB BF) at offset 0, and only there, is a
//     frame of kind [KindBOM]; the rest of line 1 follows as its own frame.
//     Every agentwire parser treats it the same way: no CLI writes one, but
//     the tools that save a capture (editors, PowerShell redirection) add
//     it, so it is skipped, kept in the raw stream, is not malformed and
//     leaves the checkpoint alone; line 1 is still the line it begins.
//   - A line whose content is empty or only JSON whitespace (space, tab,
//     CR) is a frame of kind [KindBlank]. Every other line is [KindLine].
//     Callers that only want JSON lines skip the other kinds.
//   - Bytes pass through untouched: invalid UTF-8, NUL, raw U+2028 and
//     U+2029 (which some readers wrongly treat as line breaks) are data.
//
// Every byte is accounted for: in input order, the Raw of every frame plus
// the span of every [ErrLineTooLong] error ([LineError.Offset],
// [LineError.Len]) tile the input exactly. [Options.Tee] receives every
// byte read, before it is parsed, so the too-long lines that are not
// buffered are still recorded there.
//
// # Limits
//
// A line's content (without its terminator) may be at most
// [Options.MaxLineSize] bytes, [DefaultMaxLineSize] (64 MiB) by default.
// A longer line is not an end of the stream: Next (or the Decoder's
// callback) reports a [*LineError] wrapping [ErrLineTooLong] with the
// line's position and total length once its end is found, the line's bytes
// are skipped without being buffered, and framing resumes after the next
// LF. The reader's buffer never grows beyond MaxLineSize+2 bytes (growing
// it that far allocates at most 1.5 times that in total), so memory stays
// bounded by the limit whatever the input: a test streams a 1 GiB line
// through an 8 MiB limit and allocates 12 MiB.
//
// # Buffer lifetimes
//
// A Frame's Data and Raw are borrowed: they point into the reader's buffer
// and are valid only until the next call to Next (for a Reader) or until
// the callback returns (for a Decoder). Use [Frame.Clone] to keep a frame.
// [Decoder.Write] never retains the slice it is given.
//
// # JSON
//
// [Frame.Decode] decodes a line with github.com/segmentio/encoding/json
// (about 3x encoding/json) after a non-recursive nesting check
// ([DefaultMaxDepth] = 512 levels): segmentio recurses per level and would
// otherwise crash the process with a stack overflow on a line of a few MB
// of '['. Its errors are [*LineError]s with the line number and the exact
// offset of the problem. [Frame.Type] and [Frame.Method] peek at the
// top-level "type" and "method" strings without decoding, for dispatch.
//
// # The verbs sse, ndjson and jsonrpc share
//
// The three framing packages (sse, ndjson and jsonrpc, which frames its
// lines with this package) agree on their common verbs; this is the one
// place the agreement is written, and fuzz's TestFramingConventions holds
// all three to it:
//
//   - Next returns (frame, nil); or (frame, err) with a recoverable err
//     about that frame, whose Raw and position are the damaged input
//     (jsonrpc's Invalid message); or (zero Frame, err) with a recoverable
//     err about input that was skipped (a line or event over the limit, an
//     incomplete event discarded), whose position and, where the package
//     has it, length say what; or (zero Frame, fatal err), sticky: a
//     read or Tee error, and io.EOF at the end. A fatal error never comes
//     with a frame. sse's frame is a *sse.Frame, the Reader's own (valid
//     until the next Next, as the bytes it points to; nil is its zero
//     Frame); ndjson's and jsonrpc's are values.
//   - IsRecoverable(err) is the one spelling of "the stream goes on": true
//     for the package's positioned error type (*sse.Error,
//     *ndjson.LineError, *jsonrpc.MessageError, each with Pos() (offset,
//     line)), false for everything else, io.EOF included.
//   - All yields the pairs of Next, up to and including a fatal error, and
//     stops silently at io.EOF. Breaking out of the loop leaves the Reader
//     and its source as they are: a later Next or All goes on with the frame
//     after the last one yielded. The source is the caller's to close (only
//     sse.Reader has a Close, for HTTP response bodies).
//   - Reset takes what the constructor takes and does what it would do,
//     keeping the buffers already grown: Reader.Reset(src, opts),
//     Decoder.Reset(opts, emit). It does not close the previous source.
//   - A Decoder calls emit with the pairs Next would return, in the same
//     order, never io.EOF; an error emit returns stops Write or Close and
//     is sticky.
//
// # Concurrency
//
// Readers and Decoders are not safe for concurrent use. The package starts
// no goroutines.
package ndjson

import (
	"errors"
	"io"
	"strconv"

	"github.com/agentwire/agentwire/internal/jsonguard"
)

// DefaultMaxLineSize is the line size limit used when
// [Options.MaxLineSize] is zero: 64 MiB. Real agent output has single
// lines of tens of MB (tool results, file reads).
const DefaultMaxLineSize = 64 << 20

// DefaultMaxDepth is the nesting limit of [Frame.Decode].
const DefaultMaxDepth = jsonguard.DefaultMaxDepth

// Options configures a [Reader] or a [Decoder]. The zero value is ready to
// use.
type Options struct {
	// MaxLineSize is the largest line content, in bytes and without the
	// LF or CRLF terminator, that is returned as a frame. Zero or less
	// means DefaultMaxLineSize. The buffer starts at 64 KiB and never
	// exceeds MaxLineSize+2 bytes.
	MaxLineSize int

	// Tee, if not nil, receives every byte of input, in order, before it
	// is parsed: the tee holds the stream even when lines are malformed or
	// too long. A Tee error (or short write) stops the Reader or Decoder
	// and is returned, sticky, from then on.
	Tee io.Writer
}

// Kind classifies a [Frame].
type Kind uint8

const (
	// KindLine is a line with content other than whitespace: the JSON
	// value candidates.
	KindLine Kind = iota + 1
	// KindBlank is an empty line or one holding only spaces, tabs or CRs.
	KindBlank
	// KindBOM is the 3-byte UTF-8 byte order mark at offset 0.
	KindBOM
)

func (k Kind) String() string {
	switch k {
	case KindLine:
		return "line"
	case KindBlank:
		return "blank"
	case KindBOM:
		return "bom"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Frame is one span of input: a line, a blank line or the BOM.
//
// Data and Raw are borrowed (see the package doc); [Frame.Clone] copies
// them.
type Frame struct {
	Kind Kind
	// Data is the line content: Raw without the final LF or CRLF. For a
	// BOM frame it is empty.
	Data []byte
	// Raw is the exact input bytes of the frame, terminator included.
	Raw []byte
	// Offset is the byte offset of Raw[0] in the stream.
	Offset int64
	// Line is the 1-based line number. The BOM is on line 1, as is the
	// line that follows it.
	Line int
	// Unterminated is set for a final line that ended at EOF without LF.
	Unterminated bool
}

// Pos returns Offset and Line: where the frame starts. A zero Frame (the
// one that comes with an error) has line 0.
func (f Frame) Pos() (offset int64, line int) { return f.Offset, f.Line }

// Clone returns a copy of f whose Data and Raw are owned by the caller
// (one allocation).
func (f Frame) Clone() Frame {
	if f.Raw == nil {
		return f
	}
	raw := make([]byte, len(f.Raw))
	copy(raw, f.Raw)
	f.Raw = raw
	if f.Data != nil {
		f.Data = raw[:len(f.Data):len(f.Data)]
	}
	return f
}

// ErrLineTooLong is wrapped by the [*LineError] reported for a line longer
// than [Options.MaxLineSize]. It is not fatal: reading continues after the
// line.
var ErrLineTooLong = errors.New("ndjson: line too long")

// ErrClosed is returned by [Decoder.Write] after [Decoder.Close].
var ErrClosed = errors.New("ndjson: write after Close")

// LineError is a problem with one line: a line longer than the limit
// (Err is [ErrLineTooLong]), or a line that does not decode (Err is a
// *jsonguard.SyntaxError, which wraps jsonguard.ErrTooDeep for nesting
// beyond the limit, or the decoder's type error, such as
// *json.UnmarshalTypeError). A LineError never ends the stream.
//
// Its message reads like
//
//	ndjson: line 12 (offset 3456): invalid character 'x' after object key: "x}"
type LineError struct {
	// Line is the 1-based line number.
	Line int
	// Offset is the stream offset of the problem: of the offending byte
	// for a syntax error, of the start of the line otherwise.
	Offset int64
	// Column is the 1-based byte column of the offending byte within the
	// line for a syntax error, and 0 when the error concerns the whole
	// line.
	Column int
	// Len is, for ErrLineTooLong, the number of bytes skipped: the whole
	// line including its terminator. It is 0 for decode errors.
	Len int64
	// Err is the cause.
	Err error

	excerpt string // quoted input, computed when the error is built
}

func (e *LineError) Error() string {
	b := make([]byte, 0, 96+len(e.excerpt))
	b = append(b, "ndjson: line "...)
	b = strconv.AppendInt(b, int64(e.Line), 10)
	b = append(b, " (offset "...)
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, "): "...)
	if errors.Is(e.Err, ErrLineTooLong) {
		b = append(b, "line too long ("...)
		b = strconv.AppendInt(b, e.Len, 10)
		b = append(b, " bytes skipped)"...)
	} else if e.Err != nil {
		b = append(b, e.Err.Error()...)
	}
	if e.excerpt != "" {
		b = append(b, ": "...)
		b = append(b, e.excerpt...)
	}
	return string(b)
}

// Unwrap returns e.Err.
func (e *LineError) Unwrap() error { return e.Err }

// Pos returns Offset and Line.
func (e *LineError) Pos() (offset int64, line int) { return e.Offset, e.Line }

// IsRecoverable reports whether err, returned by Next or passed to a
// Decoder's emit function, leaves the stream readable: it is true for a
// *LineError and false for everything else (a read or Tee error).
func IsRecoverable(err error) bool {
	var le *LineError
	return errors.As(err, &le)
}
