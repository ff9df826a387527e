package jsonrpc

import (
	"errors"
	"github.com/agentwire/agentwire/internal/chunk"
)

// item is one result of reading, owned, for comparisons.
type item struct {
	Class        Class
	Method, ID   string
	Params       string
	Result       string
	Error        string
	Raw          string
	Offset       int64
	Line         int
	Unterminated bool
	Err          string
	ErrOffset    int64
	ErrLen       int64
}

func itemOf(f Frame, err error) item {
	it := item{Class: f.Class, Method: string(f.Method), ID: string(f.ID.Raw()), Params: string(f.Params), Result: string(f.Result), Error: string(f.Error), Raw: string(f.Raw), Offset: f.Offset, Line: f.Line, Unterminated: f.Unterminated}
	if err != nil {
		it.Err = err.Error()
		var me *MessageError
		if errors.As(err, &me) {
			it.ErrOffset, it.ErrLen = me.Offset, me.Len
		}
	}
	return it
}

// readAll reads the whole input with a Reader over reads of sizes and
// returns the items and the tee.
func readAll(in []byte, sizes []int, opts Options) ([]item, string, error) {
	var tee teeBuf
	opts.Tee = &tee
	r := NewReader(chunk.Sizes(in, sizes...), opts)
	var out []item
	for f, err := range r.All() {
		if err != nil && !IsRecoverable(err) {
			return out, string(tee), err
		}
		out = append(out, itemOf(f, err))
	}
	return out, string(tee), nil
}

// pushAll feeds the input to a Decoder in writes of sizes.
func pushAll(in []byte, sizes []int, opts Options) ([]item, string, error) {
	var tee teeBuf
	opts.Tee = &tee
	var out []item
	d := NewDecoder(opts, func(f Frame, err error) error {
		out = append(out, itemOf(f, err))
		return nil
	})
	for i := 0; len(in) > 0; i++ {
		n := len(in)
		if len(sizes) > 0 {
			n = min(max(sizes[i%len(sizes)], 1), len(in))
		}
		if _, err := d.Write(in[:n]); err != nil {
			return out, string(tee), err
		}
		in = in[n:]
	}
	return out, string(tee), d.Close()
}

type teeBuf []byte

func (t *teeBuf) Write(p []byte) (int, error) { *t = append(*t, p...); return len(p), nil }
