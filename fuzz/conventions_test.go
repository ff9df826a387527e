package fuzz_test

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/ndjson"
	"github.com/agentwire/agentwire/sse"
)

// The verbs the three framing packages share (package ndjson's doc, "The
// verbs sse, ndjson and jsonrpc share"). The interfaces make the compiler
// check the signatures; TestFramingConventions checks the behaviour.
type (
	convReader[F, O any] interface {
		Next() (F, error)
		All() iter.Seq2[F, error]
		Reset(src io.Reader, opts O)
	}
	convDecoder[F, O any] interface {
		Write(p []byte) (int, error)
		Close() error
		Reset(opts O, emit func(F, error) error)
	}
)

// framingCase is one framing package under the conventions: its
// constructors, IsRecoverable, a frame's raw bytes, options with small
// limits, and an input with frames, recoverable errors about skipped (and,
// for jsonrpc, damaged) input, and a final unterminated frame.
type framingCase[F, O any] struct {
	newReader   func(io.Reader, O) convReader[F, O]
	newDecoder  func(O, func(F, error) error) convDecoder[F, O]
	recoverable func(error) bool
	raw         func(F) []byte
	opts        O
	input       string
}

func TestFramingConventions(t *testing.T) {
	long := strings.Repeat("x", 100)
	t.Run("sse", framingCase[*sse.Frame, sse.Options]{
		newReader: func(r io.Reader, o sse.Options) convReader[*sse.Frame, sse.Options] { return sse.NewReader(r, o) },
		newDecoder: func(o sse.Options, e func(*sse.Frame, error) error) convDecoder[*sse.Frame, sse.Options] {
			return sse.NewDecoder(o, e)
		},
		recoverable: sse.IsRecoverable,
		raw: func(f *sse.Frame) []byte {
			if f == nil {
				return nil
			}
			return f.Raw
		},
		opts:  sse.Options{MaxEventSize: 64, DiscardIncomplete: true},
		input: "data: a\n\ndata: " + long + "\n\n: c\ndata: b\n\ndata: cut",
	}.run)
	t.Run("ndjson", framingCase[ndjson.Frame, ndjson.Options]{
		newReader: func(r io.Reader, o ndjson.Options) convReader[ndjson.Frame, ndjson.Options] {
			return ndjson.NewReader(r, o)
		},
		newDecoder: func(o ndjson.Options, e func(ndjson.Frame, error) error) convDecoder[ndjson.Frame, ndjson.Options] {
			return ndjson.NewDecoder(o, e)
		},
		recoverable: ndjson.IsRecoverable,
		raw:         func(f ndjson.Frame) []byte { return f.Raw },
		opts:        ndjson.Options{MaxLineSize: 32},
		input:       "{\"a\":1}\n\"" + long + "\"\n\n{\"b\":2}\n{\"c\"",
	}.run)
	t.Run("jsonrpc", framingCase[jsonrpc.Frame, jsonrpc.Options]{
		newReader: func(r io.Reader, o jsonrpc.Options) convReader[jsonrpc.Frame, jsonrpc.Options] {
			return jsonrpc.NewReader(r, o)
		},
		newDecoder: func(o jsonrpc.Options, e func(jsonrpc.Frame, error) error) convDecoder[jsonrpc.Frame, jsonrpc.Options] {
			return jsonrpc.NewDecoder(o, e)
		},
		recoverable: jsonrpc.IsRecoverable,
		raw:         func(f jsonrpc.Frame) []byte { return f.Raw },
		opts:        jsonrpc.Options{MaxLineSize: 40},
		input:       "{\"method\":\"a\"}\nnot json\n{\"method\":\"" + long + "\"}\n{\"id\":1,\"result\":null}\n{\"id\":true}",
	}.run)
}

// pair is one (Frame, error) result, as comparable text.
type pair struct {
	raw       string
	zero      bool
	err       error
	errString string
}

func (c framingCase[F, O]) pair(f F, err error) pair {
	p := pair{raw: string(c.raw(f)), zero: reflect.ValueOf(f).IsZero(), err: err}
	if err != nil {
		p.errString = err.Error()
	}
	return p
}

func (p pair) String() string { return fmt.Sprintf("(%q, %v)", p.raw, p.errString) }

// next reads r to its end (io.EOF or a fatal error, both included).
func (c framingCase[F, O]) next(r convReader[F, O]) []pair {
	var out []pair
	for i := 0; i < 1000; i++ {
		p := c.pair(r.Next())
		out = append(out, p)
		if p.err != nil && !c.recoverable(p.err) {
			return out
		}
	}
	panic("no end")
}

func (c framingCase[F, O]) run(t *testing.T) {
	want := c.next(c.newReader(strings.NewReader(c.input), c.opts))
	var recovered, withFrame int
	for _, p := range want {
		switch {
		case p.err == nil:
		case c.recoverable(p.err):
			recovered++
			var pos interface{ Pos() (int64, int) }
			if !errors.As(p.err, &pos) {
				t.Errorf("recoverable %v has no Pos", p.err)
			}
			if !p.zero {
				// A frame with an error is the damaged input itself.
				withFrame++
				if p.raw == "" || !strings.Contains(c.input, p.raw) {
					t.Errorf("recoverable %v comes with a frame whose Raw %q is not input", p.err, p.raw)
				}
			}
		case !p.zero:
			t.Errorf("fatal %v comes with a frame %s", p.err, p)
		}
	}
	if recovered == 0 {
		t.Fatalf("the input gave no recoverable error: %v", want)
	}
	if last := want[len(want)-1]; last.err != io.EOF {
		t.Fatalf("last pair %s, want io.EOF", last)
	}
	t.Logf("%d pairs, %d recoverable errors (%d with their frame)", len(want), recovered, withFrame)

	// IsRecoverable: the package's positioned errors only.
	for _, err := range []error{nil, io.EOF, io.ErrUnexpectedEOF, errors.New("read failed")} {
		if c.recoverable(err) {
			t.Errorf("IsRecoverable(%v) = true", err)
		}
	}

	// io.EOF and a read error are sticky and come with a zero Frame.
	r := c.newReader(strings.NewReader(c.input), c.opts)
	c.next(r)
	if p := c.pair(r.Next()); p.err != io.EOF || !p.zero {
		t.Errorf("Next after io.EOF = %s", p)
	}
	boom := errors.New("boom")
	r = c.newReader(io.MultiReader(strings.NewReader(c.input[:len(c.input)/2]), &failReader{boom}), c.opts)
	got := c.next(r)
	if last := got[len(got)-1]; last.err != boom || !last.zero {
		t.Errorf("a read error ends the stream with %s, want (zero Frame, boom)", last)
	}
	if p := c.pair(r.Next()); p.err != boom {
		t.Errorf("the read error is not sticky: then %s", p)
	}
	if c.recoverable(boom) {
		t.Errorf("a read error is recoverable")
	}

	// All yields Next's pairs but io.EOF; a break leaves the Reader and its
	// source as they are.
	for stop := range len(want) - 1 {
		src := &closeCount{Reader: strings.NewReader(c.input)}
		r := c.newReader(src, c.opts)
		var got []pair
		for f, err := range r.All() {
			got = append(got, c.pair(f, err))
			if len(got) == stop+1 {
				break
			}
		}
		if src.closed != 0 {
			t.Fatalf("breaking out of All after %d pairs closed the source", stop+1)
		}
		for f, err := range r.All() {
			got = append(got, c.pair(f, err))
		}
		got = append(got, c.pair(r.Next()))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("All broken after %d pairs, then All again:\n got %v\nwant %v", stop+1, got, want)
		}
	}

	// Reset(src, opts) is NewReader(src, opts) on the same Reader and does
	// not close the previous source.
	old := &closeCount{Reader: strings.NewReader("")}
	r = c.newReader(old, c.opts)
	r.Next()
	var zeroOpts O
	r.Reset(strings.NewReader(c.input), zeroOpts)
	r.Reset(strings.NewReader(c.input), c.opts)
	if got := c.next(r); fmt.Sprint(got) != fmt.Sprint(want) || old.closed != 0 {
		t.Errorf("after Reset: %v (previous source closed %d times)\nwant %v", got, old.closed, want)
	}

	// The Decoder emits Next's pairs (never io.EOF), in one Write or byte
	// by byte, and Reset(opts, emit) starts over with the new emit.
	var emitted []pair
	emit := func(f F, err error) error { emitted = append(emitted, c.pair(f, err)); return nil }
	d := c.newDecoder(c.opts, func(F, error) error { return errors.New("the emit Reset replaced was called") })
	d.Write([]byte("data: x\n"))
	d.Reset(c.opts, emit)
	for i := range len(c.input) {
		if _, err := d.Write([]byte{c.input[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if w := want[:len(want)-1]; fmt.Sprint(emitted) != fmt.Sprint(w) {
		t.Errorf("Decoder emitted %v\nwant %v", emitted, w)
	}
}

type failReader struct{ err error }

func (f *failReader) Read([]byte) (int, error) { return 0, f.err }

type closeCount struct {
	io.Reader
	closed int
}

func (c *closeCount) Close() error { c.closed++; return nil }
