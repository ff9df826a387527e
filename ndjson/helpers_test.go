package ndjson

import (
	"errors"
	"github.com/agentwire/agentwire/internal/chunk"
	"io"
)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// item is one result of framing, owned, for comparisons.
type item struct {
	Kind         Kind
	Data         string
	Raw          string
	Offset       int64
	Line         int
	Unterminated bool
	Err          string // error text; "" for a frame
	ErrLen       int64  // LineError.Len
}

func itemOf(f Frame, err error) item {
	if err != nil {
		it := item{Err: err.Error()}
		var le *LineError
		if errors.As(err, &le) {
			it.Offset, it.Line, it.ErrLen = le.Offset, le.Line, le.Len
		}
		return it
	}
	return item{Kind: f.Kind, Data: string(f.Data), Raw: string(f.Raw), Offset: f.Offset, Line: f.Line, Unterminated: f.Unterminated}
}

// readAll frames data with a Reader fed in reads of the given sizes (nil:
// one read). It stops at io.EOF or a fatal error, which is appended.
func readAll(t tb, data []byte, opts Options, sizes []int) []item {
	t.Helper()
	r := NewReader(chunk.Sizes(data, sizes...), opts)
	var out []item
	for {
		f, err := r.Next()
		if err == io.EOF {
			return out
		}
		out = append(out, itemOf(f, err))
		if err != nil && !IsRecoverable(err) {
			return out
		}
		if len(out) > len(data)+10 {
			t.Fatalf("too many results for %d bytes", len(data))
		}
	}
}

// pushAll frames data with a Decoder fed in writes of the given sizes
// (nil: one write), then Close.
func pushAll(t tb, data []byte, opts Options, sizes []int) []item {
	t.Helper()
	var out []item
	d := NewDecoder(opts, func(f Frame, err error) error {
		out = append(out, itemOf(f, err))
		return nil
	})
	i := 0
	for len(data) > 0 {
		n := len(data)
		if len(sizes) > 0 {
			n = min(max(sizes[i%len(sizes)], 0), len(data))
			i++
		}
		buf := append([]byte(nil), data[:n]...)
		if k, err := d.Write(buf); err != nil || k != n {
			t.Fatalf("Write = %d, %v; want %d, nil", k, err, n)
		}
		// Write must not retain its argument.
		for j := range buf {
			buf[j] = '!'
		}
		data = data[n:]
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out
}
