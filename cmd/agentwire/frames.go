package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/sse"
)

const framesHelp = `Print the framing layer's view of a stream, one JSON object per frame, for
debugging captures: "offset" (byte offset of the frame), "line" (its 1-based
line), "raw_len" (its exact length, delimiters included) and the decoded
fields:

  sse      kind (event, comment, blank, nodata, bom, skipped: every byte is
           accounted for), event, data, id, retry (milliseconds, when the
           block had one), incomplete (the input ended inside the event)
  ndjson   kind (line, blank, bom), type (the top-level "type" member),
           unterminated (a last line without a newline)
  jsonrpc  class (request, notification, response, error_response, batch,
           invalid, none), method, id (the exact JSON token)

A frame the reader rejects (a line too long, an invalid JSON-RPC message, an
oversized SSE event) is printed as an object with "error" and the position,
and reading goes on; the exit status is then 1. FILE - or no FILE reads
standard input.`

// frameOut is one printed frame; the members that do not apply to the
// format are left out.
type frameOut struct {
	Offset       int64            `json:"offset"`
	Line         int              `json:"line"`
	RawLen       int              `json:"raw_len"`
	Kind         string           `json:"kind,omitempty"`
	Class        string           `json:"class,omitempty"`
	Method       string           `json:"method,omitempty"`
	ID           *json.RawMessage `json:"id,omitempty"`
	Type         string           `json:"type,omitempty"`
	Unterminated bool             `json:"unterminated,omitempty"`
	Error        string           `json:"error,omitempty"`
}

// sseOut is one printed SSE frame.
type sseOut struct {
	Offset     int64   `json:"offset"`
	Line       int     `json:"line"`
	RawLen     int     `json:"raw_len"`
	Kind       string  `json:"kind,omitempty"`
	Event      *string `json:"event,omitempty"`
	Data       *string `json:"data,omitempty"`
	ID         *string `json:"id,omitempty"`
	Retry      *int64  `json:"retry,omitempty"`
	Incomplete bool    `json:"incomplete,omitempty"`
	Error      string  `json:"error,omitempty"`
}

func runFrames(e *env, args []string) int {
	fs := newFlags("frames")
	format := fs.String("format", "", "the framing: sse, ndjson or jsonrpc (required)")
	pos, code, done := parseFlags(e, fs, "--format sse|ndjson|jsonrpc [FILE|-]", framesHelp, args)
	if done {
		return code
	}
	if len(pos) > 1 {
		return fail(e, "frames", fmt.Errorf("one input at most, got %d", len(pos)))
	}
	name, src := "<stdin>", e.stdin
	if len(pos) == 1 && pos[0] != "-" {
		name = pos[0]
		f, err := os.Open(name)
		if err != nil {
			return fail(e, "frames", fileError(name, err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return fail(e, "frames", fmt.Errorf("%s: is a directory; give the stream file (such as %s/stdout)", name, name))
		}
		src = f
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	bad := 0
	var err error
	switch *format {
	case "sse":
		bad, err = sseFrames(enc, src)
	case "ndjson":
		bad, err = ndjsonFrames(enc, src)
	case "jsonrpc":
		bad, err = jsonrpcFrames(enc, src)
	case "":
		return fail(e, "frames", errors.New("--format is required: sse, ndjson or jsonrpc"))
	default:
		return fail(e, "frames", fmt.Errorf("--format %q: want sse, ndjson or jsonrpc", *format))
	}
	if err != nil {
		w.Flush()
		return fail(e, "frames", fmt.Errorf("%s: %w", name, err))
	}
	if bad > 0 {
		w.Flush()
		fmt.Fprintf(e.stderr, "agentwire frames: %s: %d bad %s\n", name, bad, plural(bad, "frame", "frames"))
		return 1
	}
	return 0
}

func strp(s string) *string { return &s }

// encodeFrames writes one JSON object per pair that a framing's All
// yields (the three framings agree on those pairs; package ndjson's doc):
// out renders a frame, or a recoverable error with the frame it comes
// with; bad counts the recoverable errors, and a fatal one ends the run.
func encodeFrames[F any](enc *json.Encoder, all iter.Seq2[F, error], recoverable func(error) bool, out func(F, error) any) (bad int, err error) {
	for f, ferr := range all {
		if ferr != nil {
			if !recoverable(ferr) {
				return bad, ferr
			}
			bad++
		}
		if err := enc.Encode(out(f, ferr)); err != nil {
			return bad, err
		}
	}
	return bad, nil
}

func sseFrames(enc *json.Encoder, src io.Reader) (int, error) {
	return encodeFrames(enc, sse.NewReader(src, sse.Options{Spans: true}).All(), sse.IsRecoverable, func(f *sse.Frame, err error) any {
		if err != nil {
			var se *sse.Error
			errors.As(err, &se)
			return sseOut{Offset: se.Offset, Line: se.Line, Error: se.Error()}
		}
		o := sseOut{Offset: f.Offset, Line: f.Line, RawLen: len(f.Raw), Kind: f.Kind.String(), Incomplete: f.Incomplete}
		if f.Kind == sse.KindEvent {
			o.Event, o.Data, o.ID = strp(f.Event), strp(string(f.Data)), strp(f.ID)
			if f.HasRetry {
				ms := f.Retry.Milliseconds()
				o.Retry = &ms
			}
		}
		return o
	})
}

func ndjsonFrames(enc *json.Encoder, src io.Reader) (int, error) {
	return encodeFrames(enc, ndjson.NewReader(src, ndjson.Options{}).All(), ndjson.IsRecoverable, func(f ndjson.Frame, err error) any {
		if err != nil {
			var le *ndjson.LineError
			errors.As(err, &le)
			return frameOut{Offset: le.Offset, Line: le.Line, RawLen: int(le.Len), Error: le.Error()}
		}
		o := frameOut{Offset: f.Offset, Line: f.Line, RawLen: len(f.Raw), Kind: f.Kind.String(), Unterminated: f.Unterminated}
		if t, ok := f.Type(); ok {
			o.Type = string(t)
		}
		return o
	})
}

func jsonrpcFrames(enc *json.Encoder, src io.Reader) (int, error) {
	return encodeFrames(enc, jsonrpc.NewReader(src, jsonrpc.Options{}).All(), jsonrpc.IsRecoverable, func(f jsonrpc.Frame, err error) any {
		o := frameOut{Offset: f.Offset, Line: f.Line, RawLen: len(f.Raw), Class: className(f.Class), Method: string(f.Method), Unterminated: f.Unterminated}
		if !f.ID.IsZero() {
			id := json.RawMessage(append([]byte(nil), f.ID.Raw()...))
			o.ID = &id
		}
		if err != nil {
			o.Error = err.Error()
			var me *jsonrpc.MessageError
			if errors.As(err, &me) && f.Raw == nil {
				o.Offset, o.Line, o.RawLen, o.Class = me.Offset, me.Line, int(me.Len), ""
			}
		}
		return o
	})
}

// className is the snake_case name of a message class.
func className(c jsonrpc.Class) string {
	switch c {
	case jsonrpc.None:
		return "none"
	case jsonrpc.Request:
		return "request"
	case jsonrpc.Notification:
		return "notification"
	case jsonrpc.Response:
		return "response"
	case jsonrpc.ErrorResponse:
		return "error_response"
	case jsonrpc.Batch:
		return "batch"
	case jsonrpc.Invalid:
		return "invalid"
	}
	return c.String()
}
