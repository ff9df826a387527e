package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/sse"
)

// accounting rebuilds the input from what a reader reports: the raw bytes
// of its frames and the spans it says it skipped.
type accounting struct {
	data   []byte
	raw    bytes.Buffer
	frames int
}

// frame adds a frame's raw bytes at offset off.
func (a *accounting) frame(what string, off int64, raw []byte) error {
	a.frames++
	if a.frames > len(a.data)+framesFixed {
		return fmt.Errorf("%s: more than %d frames for %d bytes", what, len(a.data)+framesFixed, len(a.data))
	}
	if off != int64(a.raw.Len()) {
		return fmt.Errorf("%s: frame %d at offset %d, but %d bytes were accounted before it", what, a.frames, off, a.raw.Len())
	}
	a.raw.Write(raw)
	if a.raw.Len() > len(a.data) || !bytes.Equal(raw, a.data[off:off+int64(len(raw))]) {
		return fmt.Errorf("%s: frame %d at offset %d: raw %q is not the input there", what, a.frames, off, clip(raw))
	}
	return nil
}

// skip accounts for n input bytes skipped at offset off (an oversize line).
func (a *accounting) skip(what string, off, n int64) error {
	if off < 0 || n <= 0 || off+n > int64(len(a.data)) {
		return fmt.Errorf("%s: skipped span [%d,+%d) outside a %d-byte input", what, off, n, len(a.data))
	}
	return a.frame(what, off, a.data[off:off+n])
}

func (a *accounting) done(what string) error {
	if !bytes.Equal(a.raw.Bytes(), a.data) {
		return fmt.Errorf("%s: raw spans hold %d bytes, input %d: bytes lost or duplicated", what, a.raw.Len(), len(a.data))
	}
	return nil
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// SSEFrames reads src with an sse.Reader (Spans on, MaxEventSize
// SSEMaxEvent, a Tee) and returns one line per frame or error, checking
// the accounting against data as it goes.
func SSEFrames(src io.Reader, data []byte) ([]string, error) {
	var tee bytes.Buffer
	r := sse.NewReader(src, sse.Options{MaxEventSize: SSEMaxEvent, Spans: true, Tee: &tee})
	return drain("sse", data, &tee, r.Next, func(acc *accounting, f *sse.Frame, err error) ([]string, error) {
		if err != nil {
			var se *sse.Error
			if !sse.IsRecoverable(err) || !errors.As(err, &se) {
				return nil, fmt.Errorf("sse: fatal error on an in-memory stream: %v", err)
			}
			if se.Offset < 0 || se.Offset > int64(len(data)) {
				return nil, fmt.Errorf("sse: error %v positioned outside the input", err)
			}
			if acc.frames++; acc.frames > len(data)+framesFixed {
				return nil, fmt.Errorf("sse: more than %d frames and errors", len(data)+framesFixed)
			}
			return []string{"error " + err.Error()}, nil
		}
		if err := acc.frame("sse", f.Offset, f.Raw); err != nil {
			return nil, err
		}
		if f.Kind == sse.KindEvent && len(f.Raw) > SSEMaxEvent {
			return nil, fmt.Errorf("sse: event of %d raw bytes at offset %d dispatched past MaxEventSize %d", len(f.Raw), f.Offset, SSEMaxEvent)
		}
		if len(f.Data) > len(f.Raw) {
			return nil, fmt.Errorf("sse: data of %d bytes from %d raw bytes", len(f.Data), len(f.Raw))
		}
		return []string{sseLine(f)}, nil
	})
}

// sseLine renders a frame for the comparison of SSEFrames and SSEPush.
func sseLine(f *sse.Frame) string {
	return fmt.Sprintf("%v @%d L%d ev=%q id=%q retry=%v/%v inc=%v data=%q", f.Kind, f.Offset, f.Line,
		f.Event, f.ID, f.Retry, f.HasRetry, f.Incomplete, f.Data)
}

// drain is the loop of the three framing oracles: it reads frames (and
// errors) with next up to io.EOF, hands each to each, which checks it
// against the accounting and renders it as lines, then checks that the
// accounting rebuilt the input and that the Tee saw every byte.
func drain[F any](what string, data []byte, tee *bytes.Buffer, next func() (F, error), each func(acc *accounting, f F, err error) ([]string, error)) ([]string, error) {
	acc := accounting{data: data}
	var out []string
	for {
		f, err := next()
		if err == io.EOF {
			break
		}
		lines, err := each(&acc, f, err)
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	if err := acc.done(what); err != nil {
		return nil, err
	}
	return out, teeCheck(what, tee, data)
}

// SSEPush feeds data to an sse.Decoder in the chunks of ch and returns
// the same lines as SSEFrames.
func SSEPush(data []byte, ch io.Reader) ([]string, error) {
	var out []string
	d := sse.NewDecoder(sse.Options{MaxEventSize: SSEMaxEvent, Spans: true}, func(f *sse.Frame, err error) error {
		if err != nil {
			out = append(out, "error "+err.Error())
			return nil
		}
		out = append(out, sseLine(f))
		return nil
	})
	buf := make([]byte, 4096)
	for {
		n, err := ch.Read(buf)
		if n > 0 {
			if _, werr := d.Write(buf[:n]); werr != nil {
				return nil, fmt.Errorf("sse decoder: Write: %v", werr)
			}
		}
		if err != nil {
			break
		}
	}
	if err := d.Close(); err != nil {
		return nil, fmt.Errorf("sse decoder: Close: %v", err)
	}
	return out, nil
}

// CheckSSE is the FuzzSSE oracle: the Reader over the whole input and the
// Decoder under a random chunking agree, every byte is accounted for, no
// event exceeds the limit, and work and memory stay linear.
func CheckSSE(data []byte) error {
	b := startBudget()
	c := &counter{r: bytes.NewReader(data)}
	whole, err := SSEFrames(c, data)
	if err != nil {
		return err
	}
	if err := c.check("sse", len(data)); err != nil {
		return err
	}
	push, err := SSEPush(data, chunked(data, 0))
	if err != nil {
		return err
	}
	if err := diff("sse Reader (whole) vs Decoder (chunked)", whole, push); err != nil {
		return err
	}
	return b.check("sse", len(data))
}

// diff reports the first difference between two frame lists, after
// merging runs of SSE skipped spans: the sse package releases the bytes of
// an oversized block as they arrive, so how many KindSkipped frames cover
// it depends on the read sizes (only their concatenation, checked by the
// accounting, is fixed).
func diff(what string, a, b []string) error {
	a, b = mergeSkipped(a), mergeSkipped(b)
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Errorf("%s: frame %d differs:\n  %s\n  %s", what, i, x, y)
		}
	}
	return nil
}

// NDJSONFrames reads src with an ndjson.Reader (MaxLineSize LineMax, a
// Tee), decodes every line through the depth guard, and returns one line
// per frame or error.
func NDJSONFrames(src io.Reader, data []byte) ([]string, error) {
	var tee bytes.Buffer
	r := ndjson.NewReader(src, ndjson.Options{MaxLineSize: LineMax, Tee: &tee})
	return drain("ndjson", data, &tee, r.Next, func(acc *accounting, f ndjson.Frame, err error) ([]string, error) {
		if err != nil {
			var le *ndjson.LineError
			if !errors.As(err, &le) || !errors.Is(err, ndjson.ErrLineTooLong) {
				return nil, fmt.Errorf("ndjson: unexpected error on an in-memory stream: %v", err)
			}
			if err := acc.skip("ndjson", le.Offset, le.Len); err != nil {
				return nil, err
			}
			return []string{"error " + err.Error()}, nil
		}
		if err := acc.frame("ndjson", f.Offset, f.Raw); err != nil {
			return nil, err
		}
		if len(f.Data) > LineMax {
			return nil, fmt.Errorf("ndjson: line of %d bytes returned past MaxLineSize %d", len(f.Data), LineMax)
		}
		return []string{ndjsonLine(f)}, nil
	})
}

// CheckNDJSON is the FuzzNDJSON oracle: like CheckSSE for the NDJSON
// reader, with every line decoded through the depth guard.
func CheckNDJSON(data []byte) error {
	return checkWholeVsChunked("ndjson", data, NDJSONFrames)
}

// JSONRPCFrames reads src with a jsonrpc.Reader (MaxLineSize LineMax,
// MaxDepth Depth, a Tee) and returns one line per frame or error, batch
// elements included.
func JSONRPCFrames(src io.Reader, data []byte) ([]string, error) {
	var tee bytes.Buffer
	r := jsonrpc.NewReader(src, jsonrpc.Options{MaxLineSize: LineMax, MaxDepth: Depth, Tee: &tee})
	return drain("jsonrpc", data, &tee, r.Next, func(acc *accounting, f jsonrpc.Frame, err error) ([]string, error) {
		if err != nil && !jsonrpc.IsRecoverable(err) {
			return nil, fmt.Errorf("jsonrpc: fatal error on an in-memory stream: %v", err)
		}
		if errors.Is(err, jsonrpc.ErrLineTooLong) {
			var me *jsonrpc.MessageError
			errors.As(err, &me)
			if err := acc.skip("jsonrpc", me.Offset, me.Len); err != nil {
				return nil, err
			}
			return []string{"error " + err.Error()}, nil
		}
		if err := acc.frame("jsonrpc", f.Offset, f.Raw); err != nil {
			return nil, err
		}
		if (err != nil) != (f.Class == jsonrpc.Invalid) {
			return nil, fmt.Errorf("jsonrpc: line %d: class %v with error %v", f.Line, f.Class, err)
		}
		if len(f.Data) > LineMax {
			return nil, fmt.Errorf("jsonrpc: line of %d bytes returned past MaxLineSize %d", len(f.Data), LineMax)
		}
		s, err := rpcLine(f, err)
		if err != nil {
			return nil, err
		}
		out := []string{s}
		if f.Class == jsonrpc.Batch {
			n := 0
			for e, eerr := range f.Batch() {
				if n++; n > len(f.Data) {
					return nil, fmt.Errorf("jsonrpc: batch at line %d yields more elements than bytes", f.Line)
				}
				s, err := rpcLine(e, eerr)
				if err != nil {
					return nil, err
				}
				out = append(out, "  "+s)
			}
		}
		return out, nil
	})
}

// rpcLine renders a classified frame and checks that its members are
// bytes of the line.
func rpcLine(f jsonrpc.Frame, err error) (string, error) {
	for _, m := range [][]byte{f.Method, f.Params, f.Result, f.Error} {
		if len(m) > len(f.Data) {
			return "", fmt.Errorf("jsonrpc: line %d: member of %d bytes in a %d-byte line", f.Line, len(m), len(f.Data))
		}
	}
	for _, m := range [][]byte{f.Params, f.Result, f.Error} {
		if m != nil && !bytes.Contains(f.Data, m) {
			return "", fmt.Errorf("jsonrpc: line %d: member %q is not bytes of the line", f.Line, clip(m))
		}
	}
	if !f.ID.IsZero() {
		if b, merr := f.ID.MarshalJSON(); merr != nil {
			return "", fmt.Errorf("jsonrpc: line %d: id %v does not marshal: %v", f.Line, f.ID, merr)
		} else if id, perr := jsonrpc.ParseID(b); perr != nil || !id.Equal(f.ID) {
			return "", fmt.Errorf("jsonrpc: line %d: id %s does not round-trip (%v)", f.Line, b, perr)
		}
	}
	return fmt.Sprintf("%v/%v @%d L%d m=%q id=%v p=%q r=%q e=%q err=%v", f.Kind, f.Class, f.Offset, f.Line,
		f.Method, f.ID, f.Params, f.Result, f.Error, err), nil
}

// CheckJSONRPC is the FuzzJSONRPC oracle: like CheckNDJSON for the
// JSON-RPC reader, plus the classification invariants (Invalid exactly
// when an error is returned, members are bytes of the line, ids
// round-trip).
func CheckJSONRPC(data []byte) error {
	return checkWholeVsChunked("jsonrpc", data, JSONRPCFrames)
}

// checkWholeVsChunked is the oracle shared by the line readers: frames
// read whole from a counting source (each byte read once, linear reads)
// equal frames read in random chunks, within the allocation budget.
func checkWholeVsChunked(name string, data []byte, frames func(io.Reader, []byte) ([]string, error)) error {
	b := startBudget()
	c := &counter{r: bytes.NewReader(data)}
	whole, err := frames(c, data)
	if err != nil {
		return err
	}
	if err := c.check(name, len(data)); err != nil {
		return err
	}
	chunked, err := frames(chunked(data, 0), data)
	if err != nil {
		return err
	}
	if err := diff(name+" whole vs chunked", whole, chunked); err != nil {
		return err
	}
	return b.check(name, len(data))
}

// ndjsonLine renders an NDJSON frame, decoded through the depth guard.
func ndjsonLine(f ndjson.Frame) string {
	var v any
	derr := f.DecodeDepth(&v, Depth)
	typ, _ := f.Type()
	return fmt.Sprintf("%v @%d L%d unterm=%v type=%q decode=%v data=%q", f.Kind, f.Offset, f.Line, f.Unterminated, typ, derr, f.Data)
}

// NDJSONPush feeds data to an ndjson.Decoder in the chunks of ch and
// returns the same lines as NDJSONFrames.
func NDJSONPush(data []byte, ch io.Reader) ([]string, error) {
	var out []string
	d := ndjson.NewDecoder(ndjson.Options{MaxLineSize: LineMax}, func(f ndjson.Frame, err error) error {
		if err != nil {
			out = append(out, "error "+err.Error())
		} else {
			out = append(out, ndjsonLine(f))
		}
		return nil
	})
	return out, push("ndjson", d.Write, d.Close, ch)
}

// JSONRPCPush feeds data to a jsonrpc.Decoder in the chunks of ch and
// returns the same lines as JSONRPCFrames.
func JSONRPCPush(data []byte, ch io.Reader) ([]string, error) {
	var out []string
	var ferr error
	d := jsonrpc.NewDecoder(jsonrpc.Options{MaxLineSize: LineMax, MaxDepth: Depth}, func(f jsonrpc.Frame, err error) error {
		if errors.Is(err, jsonrpc.ErrLineTooLong) {
			out = append(out, "error "+err.Error())
			return nil
		}
		s, cerr := rpcLine(f, err)
		if cerr != nil && ferr == nil {
			ferr = cerr
		}
		out = append(out, s)
		if f.Class == jsonrpc.Batch {
			for e, eerr := range f.Batch() {
				s, _ := rpcLine(e, eerr)
				out = append(out, "  "+s)
			}
		}
		return nil
	})
	if err := push("jsonrpc", d.Write, d.Close, ch); err != nil {
		return nil, err
	}
	return out, ferr
}

// push writes the chunks of ch to a push decoder and closes it.
func push(what string, write func([]byte) (int, error), closer func() error, ch io.Reader) error {
	buf := make([]byte, 4096)
	for {
		n, err := ch.Read(buf)
		if n > 0 {
			if m, werr := write(buf[:n]); werr != nil || m != n {
				return fmt.Errorf("%s decoder: Write(%d bytes) = %d, %v", what, n, m, werr)
			}
		}
		if err != nil {
			break
		}
	}
	if err := closer(); err != nil {
		return fmt.Errorf("%s decoder: Close: %v", what, err)
	}
	return nil
}

func mergeSkipped(l []string) []string {
	out := l[:0:0]
	for _, s := range l {
		if strings.HasPrefix(s, "skipped ") && len(out) > 0 && strings.HasPrefix(out[len(out)-1], "skipped ") {
			continue
		}
		out = append(out, s)
	}
	return out
}
