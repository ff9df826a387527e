// Package jsonrpc frames and classifies JSON-RPC 2.0 messages written as
// newline-delimited JSON over stdio, as the Codex app-server speaks it. It
// is a pure framing layer over [ndjson]: no goroutines, no context, no
// locks; a full connection built on github.com/sourcegraph/jsonrpc2 lives
// in the subpackage jsonrpc/conn.
//
// # Faces
//
// As in ndjson, one state machine has two faces: [Reader] pulls from an
// io.Reader ([Reader.Next], [Reader.All]); [Decoder] is pushed bytes
// ([Decoder.Write], [Decoder.Close]) and calls a function per frame. Both
// frame lines with ndjson (same rules: LF or CRLF terminators, a final
// line without LF is a frame, blank lines and a leading BOM are frames of
// their own, lines longer than [Options.MaxLineSize] are skipped and
// reported) and then [Classify] each line. [Options.Tee] receives every
// byte before it is parsed, so malformed input is still recorded.
//
// # Classification
//
// Each line is checked as exactly one JSON value (a non-recursive
// validator, nesting limited to [Options.MaxDepth]) and its top-level
// members are located without decoding. Then:
//
//   - "method" present (a string) and "id" present: [Request]. An id of
//     null is still a request: JSON-RPC 2.0 defines a notification as a
//     message without the id member (sourcegraph/jsonrpc2 wrongly treats
//     id null as a notification).
//   - "method" present and no "id": [Notification].
//   - no "method", "id" present and "result": [Response]; "id" and an
//     "error" object: [ErrorResponse]. The id may be null (the JSON-RPC
//     answer to a request whose id could not be read).
//   - a non-empty array: [Batch]. Its elements are classified on demand
//     with [Frame.Batch]; a batch inside a batch is invalid. The Codex
//     app-server never sends batches; they are recognised rather than
//     mistaken for garbage.
//   - anything else: [Invalid], with a [*MessageError] saying why. The
//     frame keeps its raw bytes and position and reading goes on.
//
// Member rules:
//
//   - "jsonrpc": optional by default, because the Codex app-server omits it
//     on every message; [Options.RequireVersion] makes it mandatory. When
//     present it must be exactly the string "2.0" ("1.0", which
//     sourcegraph/jsonrpc2 accepts silently, is invalid).
//   - "id": a string, a number or null. Numbers of any size and form (0,
//     -1, 2^70, 1.5, 1e3) are kept as their exact JSON token ([ID]), never
//     rewritten: sourcegraph/jsonrpc2 turns -1 into 18446744073709551615
//     and rejects 2^64, 1.0 and 1e3 (closing its connection). true, an
//     object or an array is invalid.
//   - "method" must be a string; a message with "method" and also "result"
//     or "error" is invalid (ambiguous).
//   - "params", when present, must be an object or an array; null is
//     accepted and treated as absent.
//   - a response with both "result" and "error", or neither, is invalid;
//     "error" must be an object. Its code and message are not checked
//     here ([Frame.DecodeError] reads them): some Codex builds send string
//     codes such as "input_too_large".
//   - other members are ignored (they stay in Raw). With duplicate names
//     the last one wins, as with every Go JSON decoder.
//
// # Buffer lifetimes
//
// A Frame's byte slices (Data, Raw, Method, Params, Result, Error and the
// ID's token) are borrowed from the reader's buffer: valid until the next
// call to Next, or until the Decoder's callback returns; the Frame that
// [Reader.NextFrame] hands out is itself the Reader's, valid as long.
// [Frame.Clone] makes an owned copy. Method and string ids that hold escapes are
// unescaped into a new slice, the only allocation of classification.
//
// # Limits
//
// Lines are limited by [Options.MaxLineSize] (ndjson's default, 64 MiB),
// nesting by [Options.MaxDepth] (512). Memory stays bounded by the line
// limit whatever the input.
//
// # Errors
//
// Per-message problems are [*MessageError]s, which never end the stream:
// an Invalid frame (Err is one of the ErrX sentinels of this package) or a
// line over the limit (Err is [ErrLineTooLong], zero Frame). Their message
// reads like
//
//	jsonrpc: line 12 (offset 3456): "id" is not a string, number or null: "true}"
//
// Read errors of the source and Tee errors are returned as they are and
// are fatal (sticky).
//
// What Next returns with an error, what All does when the loop breaks
// (nothing: the Reader and its source stay as they are), and Reset's
// signature are the same in sse, ndjson and jsonrpc; package ndjson's doc
// writes that agreement down once ("The verbs sse, ndjson and jsonrpc
// share").
//
// # Reading members
//
// A classified Frame keeps Params, Result and Error as exact bytes.
// [Frame.DecodeParams] and its siblings decode them (through the nesting
// guard, with segmentio/encoding/json); [Members] walks the top-level
// members of one of them without decoding, so that a consumer can read a
// few small members and skip a megabyte of command output ([Frame.Members]
// replays them from the classifying pass instead, and [Frame.Iter] and
// [Walk] are the same two as iterators); [String] decodes one string
// token.
//
// # Writing
//
// [Encoder] and the Append functions write one message per line, without
// the "jsonrpc" member unless asked, with ids echoed as their exact token
// (an approval request's id 0 is answered with id 0, a 2^70 id with the
// same digits). Raw JSON values are validated and compacted so that a
// newline inside a value never splits a message.
//
// # Performance
//
// Framing and classification run at several hundred MB/s on Codex
// app-server traffic with no allocation per message in steady state,
// tens of times the throughput of sourcegraph/jsonrpc2's Conn with its own
// codec on the same traffic (bench/jsonrpc; numbers in bench/README.md).
//
// # Concurrency
//
// Readers, Decoders and Encoders are not safe for concurrent use. The
// package starts no goroutines. The subpackage jsonrpc/conn holds the
// sourcegraph/jsonrpc2 ObjectStream and a stdio connection helper, which
// do use goroutines.
package jsonrpc

import (
	"errors"
	"io"
	"strconv"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/internal/quote"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/segmentio/encoding/json"
)

// DefaultMaxDepth is the nesting limit used when [Options.MaxDepth] is
// zero.
const DefaultMaxDepth = jsonguard.DefaultMaxDepth

// Options configures a [Reader], a [Decoder] or [Classify]. The zero value
// is ready to use.
type Options struct {
	// MaxLineSize is the largest line content in bytes (ndjson's rule);
	// zero means ndjson.DefaultMaxLineSize (64 MiB).
	MaxLineSize int
	// MaxDepth is the largest nesting depth of a message; zero means
	// DefaultMaxDepth (512). A deeper line is Invalid with ErrTooDeep.
	MaxDepth int
	// Tee, if not nil, receives every input byte before it is parsed.
	Tee io.Writer
	// RequireVersion makes the "jsonrpc":"2.0" member mandatory: a message
	// without it is Invalid with ErrMissingVersion. The default accepts its
	// absence, as the Codex app-server never writes it.
	RequireVersion bool
}

// Class is what a line holds.
type Class uint8

// The classes.
const (
	// None: a blank line or the BOM, no message (Frame.Kind says which).
	None Class = iota
	// Request: method and id (the id may be null).
	Request
	// Notification: method and no id.
	Notification
	// Response: id and result.
	Response
	// ErrorResponse: id and an error object.
	ErrorResponse
	// Batch: a non-empty JSON array of messages; see Frame.Batch.
	Batch
	// Invalid: a line that is not a JSON-RPC 2.0 message; the error
	// returned with it says why.
	Invalid
)

var classNames = [...]string{"none", "request", "notification", "response", "error_response", "batch", "invalid"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// Frame is one line of input, classified.
type Frame struct {
	// Kind is the ndjson kind: KindLine, or KindBlank / KindBOM for frames
	// of class None.
	Kind ndjson.Kind
	// Class is the message class.
	Class Class
	// Method is the method name (unescaped) of a request or notification.
	Method []byte
	// ID is the id of a request, response or error response; the zero ID
	// (IsZero) for notifications, batches and blank lines. An Invalid
	// message whose "id" member is valid keeps it, so that a peer can
	// answer it with an error response.
	ID ID
	// Params is the exact "params" value (an object or array) of a request
	// or notification, nil when absent or null.
	Params []byte
	// Result is the exact "result" value of a response.
	Result []byte
	// Error is the exact "error" object of an error response.
	Error []byte
	// Data is the line without its terminator; Raw the exact input bytes,
	// terminator included.
	Data, Raw []byte
	// Offset is the stream offset of Raw[0]; Line its 1-based line number.
	Offset int64
	Line   int
	// Unterminated marks a final line that ended at EOF without LF.
	Unterminated bool

	requireVersion bool
	maxDepth       int
	index          *[jsonguard.MaxLevels][]jsonguard.Entry // the members found by classify (Members), per level, borrowed like Data
}

// IsMessage reports whether the frame holds one message (a request, a
// notification, a response or an error response).
func (f Frame) IsMessage() bool { return f.Class >= Request && f.Class <= ErrorResponse }

// MethodString returns Method as a string (one allocation).
func (f Frame) MethodString() string { return string(f.Method) }

// Pos returns Offset and Line: where the frame's line starts. A zero Frame
// (the one that comes with a line-too-long error) has line 0.
func (f Frame) Pos() (offset int64, line int) { return f.Offset, f.Line }

// Clone returns a copy of f whose slices are owned by the caller.
func (f Frame) Clone() Frame {
	if f.Raw == nil {
		return f
	}
	raw := make([]byte, len(f.Raw))
	copy(raw, f.Raw)
	sub := func(s []byte) []byte {
		if s == nil {
			return nil
		}
		if o, ok := within(f.Raw, s); ok {
			return raw[o : o+len(s) : o+len(s)]
		}
		return append([]byte(nil), s...)
	}
	f.Method, f.Params, f.Result, f.Error = sub(f.Method), sub(f.Params), sub(f.Result), sub(f.Error)
	f.ID.raw = sub(f.ID.raw)
	f.Data = sub(f.Data)
	f.Raw = raw
	if f.index != nil {
		lv := *f.index
		for l := range lv {
			lv[l] = append([]jsonguard.Entry(nil), lv[l]...)
		}
		f.index = &lv
	}
	return f
}

// within reports the offset of s in b when s is a subslice of b.
func within(b, s []byte) (int, bool) {
	if len(s) == 0 || len(b) == 0 {
		return 0, false
	}
	o := cap(b) - cap(s)
	if o < 0 || o+len(s) > len(b) || &b[o] != &s[0] {
		return 0, false
	}
	return o, true
}

// DecodeParams decodes Params into v (through the nesting guard, with
// segmentio/encoding/json). Absent params decode as JSON null (v is left
// unchanged for pointers and maps).
func (f Frame) DecodeParams(v any) error { return f.decodeMember(f.Params, v) }

// DecodeResult decodes Result into v.
func (f Frame) DecodeResult(v any) error { return f.decodeMember(f.Result, v) }

// ErrorObject is the error member of an error response. Code keeps the
// exact JSON token (normally an integer; some Codex builds send a string).
type ErrorObject struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CodeInt returns the code as an integer when it is one.
func (e ErrorObject) CodeInt() (int64, bool) {
	n, err := strconv.ParseInt(string(e.Code), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// DecodeError decodes the error object of an error response.
func (f Frame) DecodeError() (ErrorObject, error) {
	var e ErrorObject
	err := f.decodeMember(f.Error, &e)
	return e, err
}

var null = []byte("null")

func (f Frame) decodeMember(b []byte, v any) error {
	if b == nil {
		b = null
	}
	err := jsonguard.Unmarshal(b, v, f.maxDepth)
	if err == nil {
		return nil
	}
	me := &MessageError{Line: f.Line, Offset: f.Offset, Err: ErrDecode, detail: err.Error()}
	if o, ok := within(f.Data, b); ok {
		me.Offset += int64(o)
		var se *jsonguard.SyntaxError
		if errors.As(err, &se) {
			me.Offset += int64(se.Offset)
			me.Column = o + se.Offset + 1
		}
	}
	return me
}

// Batch classifies the elements of a Batch frame, in order. Each element
// Frame has the batch's Line, the exact Offset of the element and its
// exact bytes as Raw and Data (subslices of the batch's, with the same
// lifetime); an element that is not a message is Invalid and comes with
// its *MessageError. For a frame of another class Batch yields nothing.
func (f Frame) Batch() func(yield func(Frame, error) bool) {
	return func(yield func(Frame, error) bool) {
		if f.Class != Batch {
			return
		}
		b := f.Data
		i := jsonguard.SkipWS(b, 0) + 1
		for {
			i = jsonguard.SkipWS(b, i)
			if i >= len(b) || b[i] == ']' {
				return
			}
			end := jsonguard.ValueEnd(b, i)
			el := b[i:end:end]
			m := Frame{Kind: ndjson.KindLine, Data: el, Raw: el, Offset: f.Offset + int64(i), Line: f.Line, requireVersion: f.requireVersion, maxDepth: f.maxDepth}
			var err error
			if me := classify(&m, el, f.maxDepth, f.requireVersion, false, nil); me != nil {
				m.Class = Invalid
				me.Line, me.Offset = f.Line, m.Offset+me.Offset
				if me.Column > 0 {
					me.Column = int(me.Offset-f.Offset) + 1
				}
				err = me
			}
			if !yield(m, err) {
				return
			}
			i = jsonguard.SkipWS(b, end)
			if i < len(b) && b[i] == ',' {
				i++
			}
		}
	}
}

// Sentinel causes of a *MessageError.
var (
	// ErrSyntax: the line is not exactly one JSON value.
	ErrSyntax = errors.New("invalid JSON")
	// ErrTooDeep: the line nests deeper than Options.MaxDepth.
	ErrTooDeep = errors.New("exceeded max depth")
	// ErrNotObject: the line is a JSON value other than an object or array.
	ErrNotObject = errors.New("not a JSON-RPC message object")
	// ErrVersion: "jsonrpc" is present and not the string "2.0".
	ErrVersion = errors.New(`"jsonrpc" is not "2.0"`)
	// ErrMissingVersion: "jsonrpc" is absent and Options.RequireVersion is
	// set.
	ErrMissingVersion = errors.New(`missing "jsonrpc" member`)
	// ErrBadID: "id" is not a string, number or null.
	ErrBadID = errors.New(`"id" is not a string, number or null`)
	// ErrBadMethod: "method" is not a string.
	ErrBadMethod = errors.New(`"method" is not a string`)
	// ErrBadParams: "params" is not an object, array or null.
	ErrBadParams = errors.New(`"params" is not an object or array`)
	// ErrAmbiguous: "method" together with "result" or "error".
	ErrAmbiguous = errors.New(`"method" together with "result" or "error"`)
	// ErrNoMethod: an object with none of "method", "id".
	ErrNoMethod = errors.New(`neither "method" nor "id"`)
	// ErrMissingID: "result" or "error" without "id".
	ErrMissingID = errors.New(`response without "id"`)
	// ErrNoResult: "id" without "method", "result" or "error".
	ErrNoResult = errors.New(`response without "result" or "error"`)
	// ErrResultAndError: a response with both "result" and "error".
	ErrResultAndError = errors.New(`response with both "result" and "error"`)
	// ErrBadError: "error" is not an object.
	ErrBadError = errors.New(`"error" is not an object`)
	// ErrEmptyBatch: the line is "[]".
	ErrEmptyBatch = errors.New("empty batch")
	// ErrNestedBatch: a batch element is itself an array.
	ErrNestedBatch = errors.New("batch inside a batch")
	// ErrDecode: DecodeParams, DecodeResult or DecodeError failed.
	ErrDecode = errors.New("cannot decode member")
	// ErrLineTooLong is ndjson.ErrLineTooLong: a line over MaxLineSize,
	// skipped.
	ErrLineTooLong = ndjson.ErrLineTooLong
)

// MessageError is a problem with one line. It never ends the stream.
type MessageError struct {
	// Line is the 1-based line number.
	Line int
	// Offset is the stream offset of the offending byte (for syntax errors
	// and bad members) or of the start of the line.
	Offset int64
	// Column is the 1-based byte column of the offending byte in the line,
	// 0 when the problem concerns the whole line.
	Column int
	// Len is the number of bytes skipped for ErrLineTooLong, else 0.
	Len int64
	// Err is one of the sentinels of this package.
	Err error

	detail  string // the JSON parser's message, for ErrSyntax and ErrDecode
	excerpt string
}

func (e *MessageError) Error() string {
	b := make([]byte, 0, 96+len(e.detail)+len(e.excerpt))
	b = append(b, "jsonrpc: line "...)
	b = strconv.AppendInt(b, int64(e.Line), 10)
	b = append(b, " (offset "...)
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, "): "...)
	switch {
	case e.detail != "":
		if e.Err == ErrDecode {
			b = append(b, e.Err.Error()...)
			b = append(b, ": "...)
		}
		b = append(b, e.detail...)
	case errors.Is(e.Err, ErrLineTooLong):
		b = append(b, "line too long ("...)
		b = strconv.AppendInt(b, e.Len, 10)
		b = append(b, " bytes skipped)"...)
	case e.Err != nil:
		b = append(b, e.Err.Error()...)
	}
	if e.excerpt != "" {
		b = append(b, ": "...)
		b = append(b, e.excerpt...)
	}
	return string(b)
}

// Unwrap returns e.Err.
func (e *MessageError) Unwrap() error { return e.Err }

// Pos returns Offset and Line.
func (e *MessageError) Pos() (offset int64, line int) { return e.Offset, e.Line }

// excerptSize bounds the input quoted in error messages.
var excerptSize = 40

func quoteBytes(b []byte) string { return quote.Bytes(b, excerptSize) }
