package jsonrpc

import (
	"bytes"
	"io"
	"strconv"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/segmentio/encoding/json"
)

// Encoder writes outbound messages, one line each, in a single Write call
// per message.
type Encoder struct {
	w io.Writer
	// Version, when true, adds "jsonrpc":"2.0" to every message. The Codex
	// app-server accepts messages with or without it.
	Version bool
	buf     []byte
}

// NewEncoder returns an Encoder writing to w, without the "jsonrpc" member.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// Request writes a request. params is marshalled with segmentio's
// encoder (json.RawMessage and []byte holding JSON are written as they
// are); nil params omits the member.
func (e *Encoder) Request(id ID, method string, params any) error {
	return e.write(func(b []byte) ([]byte, error) { return AppendRequest(b, e.Version, id, method, params) })
}

// Notify writes a notification.
func (e *Encoder) Notify(method string, params any) error {
	return e.write(func(b []byte) ([]byte, error) { return AppendNotification(b, e.Version, method, params) })
}

// Respond writes a response with result (nil is written as null).
func (e *Encoder) Respond(id ID, result any) error {
	return e.write(func(b []byte) ([]byte, error) { return AppendResponse(b, e.Version, id, result) })
}

// RespondError writes an error response.
func (e *Encoder) RespondError(id ID, code int64, message string, data any) error {
	return e.write(func(b []byte) ([]byte, error) { return AppendError(b, e.Version, id, code, message, data) })
}

func (e *Encoder) write(f func([]byte) ([]byte, error)) error {
	b, err := f(e.buf[:0])
	if err != nil {
		return err
	}
	e.buf = b
	n, err := e.w.Write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	return err
}

func appendHead(b []byte, version bool) []byte {
	b = append(b, '{')
	if version {
		b = append(b, `"jsonrpc":"2.0",`...)
	}
	return b
}

func appendID(b []byte, id ID) []byte {
	b = append(b, `"id":`...)
	if id.IsZero() {
		return append(b, "null"...)
	}
	return append(b, id.raw...)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case json.RawMessage:
		if len(x) == 0 {
			return append(b, "null"...), nil
		}
		return appendCompact(b, x)
	case []byte:
		return appendCompact(b, x)
	}
	n := len(b)
	out, err := json.Append(b, v, json.SortMapKeys)
	if err != nil {
		return b, err
	}
	// Marshalers (json.RawMessage fields among them) may emit whitespace,
	// including newlines, which would split the message on the wire.
	if bytes.IndexByte(out[n:], '\n') >= 0 {
		val := append([]byte(nil), out[n:]...)
		return appendCompact(out[:n], val)
	}
	return out, nil
}

// appendCompact appends a JSON value, validated and without newlines (a
// newline inside the value would split the message on the wire).
func appendCompact(b, v []byte) ([]byte, error) {
	if err := checkValue(v); err != nil {
		return b, err
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case ' ', '\t', '\r', '\n':
		case '"':
			j := jsonguard.ValueEnd(v, i)
			b = append(b, v[i:j]...)
			i = j - 1
		default:
			b = append(b, c)
		}
	}
	return b, nil
}

func checkValue(v []byte) error {
	var m Frame
	w := append(append([]byte(`{"id":0,"result":`), v...), '}')
	if me := classify(&m, w, 0, false, false, nil); me != nil {
		return me
	}
	return nil
}

// AppendRequest appends a request line (with its LF) to b.
func AppendRequest(b []byte, version bool, id ID, method string, params any) ([]byte, error) {
	b = appendHead(b, version)
	b = appendID(b, id)
	b = append(b, `,"method":`...)
	b = appendString(b, method)
	return appendParams(b, params)
}

// AppendNotification appends a notification line (with its LF) to b.
func AppendNotification(b []byte, version bool, method string, params any) ([]byte, error) {
	b = appendHead(b, version)
	b = append(b, `"method":`...)
	b = appendString(b, method)
	return appendParams(b, params)
}

func appendString(b []byte, s string) []byte {
	out, err := json.Append(b, s, 0)
	if err != nil {
		return strconv.AppendQuote(b, s)
	}
	return out
}

func appendParams(b []byte, params any) ([]byte, error) {
	if params != nil {
		b = append(b, `,"params":`...)
		var err error
		if b, err = appendValue(b, params); err != nil {
			return b, err
		}
	}
	return append(b, "}\n"...), nil
}

// AppendResponse appends a response line (with its LF) to b.
func AppendResponse(b []byte, version bool, id ID, result any) ([]byte, error) {
	b = appendHead(b, version)
	b = appendID(b, id)
	b = append(b, `,"result":`...)
	b, err := appendValue(b, result)
	if err != nil {
		return b, err
	}
	return append(b, "}\n"...), nil
}

// AppendError appends an error response line (with its LF) to b.
func AppendError(b []byte, version bool, id ID, code int64, message string, data any) ([]byte, error) {
	b = appendHead(b, version)
	b = appendID(b, id)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	if data != nil {
		b = append(b, `,"data":`...)
		var err error
		if b, err = appendValue(b, data); err != nil {
			return b, err
		}
	}
	return append(b, "}}\n"...), nil
}

// AppendRawError appends an error response line whose error member is the
// JSON object errObj (validated and compacted), as received from elsewhere.
func AppendRawError(b []byte, version bool, id ID, errObj []byte) ([]byte, error) {
	b = appendHead(b, version)
	b = appendID(b, id)
	b = append(b, `,"error":`...)
	b, err := appendCompact(b, errObj)
	if err != nil {
		return b, err
	}
	return append(b, "}\n"...), nil
}
