package sse

import (
	"io"
	"strconv"
	"strings"
	"time"
)

// Event is an event for Writer.WriteEvent.
type Event struct {
	// Event is written as an "event:" field unless empty.
	Event string
	// ID is written as an "id:" field unless empty.
	ID string
	// Retry is written as a "retry:" field, in whole milliseconds, when
	// positive.
	Retry time.Duration
	// Data is written as one "data:" line per line of Data; CRLF, LF and a
	// lone CR all separate lines. Empty Data is written as one "data:" line,
	// which a reader dispatches as an event with empty data.
	Data []byte
}

// Writer writes an SSE stream, for servers (such as mock model servers).
// Each WriteEvent and WriteComment makes exactly one Write call on the
// underlying writer and, when AutoFlush is set (NewWriter sets it), flushes
// it so the client sees the event at once. A Writer is not safe for
// concurrent use.
type Writer struct {
	// AutoFlush makes WriteEvent and WriteComment call Flush.
	AutoFlush bool
	// CRLF ends every line with CRLF instead of LF, as the Gemini API
	// (and many Google front ends) write their streams.
	CRLF bool

	w   io.Writer
	buf []byte
	err error
}

// NewWriter returns a Writer on w with AutoFlush set. w is typically an
// http.ResponseWriter; the caller sets the response headers
// (Content-Type: text/event-stream, Cache-Control: no-cache).
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, AutoFlush: true}
}

// WriteEvent writes e followed by the blank line that dispatches it. It
// returns ErrInvalidField, writing nothing, if e.Event or e.ID contains a
// CR or LF, or e.ID contains a NUL byte (a reader would ignore such an ID).
// Write errors are returned and are sticky.
func (w *Writer) WriteEvent(e Event) error {
	if w.err != nil {
		return w.err
	}
	if strings.ContainsAny(e.Event, "\r\n") || strings.ContainsAny(e.ID, "\r\n\x00") {
		return ErrInvalidField
	}
	eol := w.eol()
	b := w.buf[:0]
	if e.Event != "" {
		b = append(b, "event: "...)
		b = append(b, e.Event...)
		b = append(b, eol...)
	}
	if e.ID != "" {
		b = append(b, "id: "...)
		b = append(b, e.ID...)
		b = append(b, eol...)
	}
	if e.Retry > 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, int64(e.Retry/time.Millisecond), 10)
		b = append(b, eol...)
	}
	b = appendLines(b, "data", e.Data, eol)
	b = append(b, eol...)
	return w.write(b)
}

// WriteComment writes text as comment lines (": text"), one per line of
// text, followed by a blank line; readers ignore it. An empty text writes
// ":". Comments are the usual keep-alive.
func (w *Writer) WriteComment(text string) error {
	if w.err != nil {
		return w.err
	}
	b := appendLines(w.buf[:0], "", []byte(text), w.eol())
	b = append(b, w.eol()...)
	return w.write(b)
}

// eol is the line terminator the Writer writes.
func (w *Writer) eol() string {
	if w.CRLF {
		return "\r\n"
	}
	return "\n"
}

// appendLines appends one "name: line" per line of data, splitting at CRLF,
// LF and lone CR, each ended by eol. For a comment, name is "".
func appendLines(b []byte, name string, data []byte, eol string) []byte {
	for {
		i := 0
		for i < len(data) && data[i] != '\n' && data[i] != '\r' {
			i++
		}
		b = append(b, name...)
		b = append(b, ':')
		if i > 0 {
			b = append(b, ' ')
			b = append(b, data[:i]...)
		}
		b = append(b, eol...)
		if i == len(data) {
			return b
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
}

func (w *Writer) write(b []byte) error {
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		return err
	}
	if w.AutoFlush {
		return w.Flush()
	}
	return nil
}

// Flush flushes the underlying writer if it has a FlushError() error,
// Flush() error (bufio.Writer) or Flush() (http.Flusher) method.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	var err error
	switch f := w.w.(type) {
	case interface{ FlushError() error }:
		err = f.FlushError()
	case interface{ Flush() error }:
		err = f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	if err != nil {
		w.err = err
	}
	return err
}
