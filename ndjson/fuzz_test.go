package ndjson

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/google/go-cmp/cmp"
)

// planOf derives the fuzz run's knobs from plan: the line limit, the
// initial buffer size and the read/write sizes.
func planOf(plan []byte) (maxLine, bufSize int, sizes []int) {
	maxLine = DefaultMaxLineSize
	bufSize = 64 << 10
	if len(plan) > 0 {
		if plan[0]%4 != 0 {
			maxLine = int(plan[0]) // small limits exercise the skip path
		}
		plan = plan[1:]
	}
	if len(plan) > 0 {
		bufSize = 1 + int(plan[0])%64
		plan = plan[1:]
	}
	for _, b := range plan {
		n := int(b) % 32
		if n == 0 && (len(sizes) == 0 || sizes[len(sizes)-1] == 0) {
			n = 1 // an empty read, but never many in a row (io.ErrNoProgress)
		}
		sizes = append(sizes, n)
	}
	return maxLine, bufSize, sizes
}

// FuzzDecoder checks a whole stream: the Reader fed in one read, the
// Reader and the Decoder fed with the chunking drawn from plan, and the
// reference splitter all agree, and every line decodes through the guard
// without crashing, agreeing with Check on validity.
func FuzzDecoder(f *testing.F) {
	for _, seed := range [][2]string{
		{"", ""},
		{"\r", "\x01"},
		{"\xEF\xBB\xBF", "\x00\x01\x01"},
		{"\xEF\xBB\xBF{\"type\":\"a\"}\r\n\n{}", "\x00\x05\x01\x02"},
		{"{\"type\":\"system\"}\n" + "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n", "\x07\x03\x05"},
		{"yyyyy\r\nzzzzzz\n{}", "\x05\x02\x01"},
		{"{\"a\":\"\\\"type\\\"\"}\n\"type\"\n{\"type\":1,\"type\":\"x\"}", ""},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(fuzzDecoder)
}

func fuzzDecoder(t *testing.T, data, plan []byte) {
	{
		if len(data) > 1<<20 {
			t.Skip()
		}
		maxLine, bufSize, sizes := planOf(plan)
		defer setInitialBufferSize(bufSize)()
		opts := Options{MaxLineSize: maxLine}
		want := refFrames(data, maxLine)
		if got := readAll(t, data, opts, nil); !slices.Equal(want, got) {
			t.Fatalf("Reader, one read (-ref +got):\n%s", cmp.Diff(want, got))
		}
		if got := readAll(t, data, opts, sizes); !slices.Equal(want, got) {
			t.Fatalf("Reader, chunked %v (-ref +got):\n%s", sizes, cmp.Diff(want, got))
		}
		if got := pushAll(t, data, opts, sizes); !slices.Equal(want, got) {
			t.Fatalf("Decoder, chunked %v (-ref +got):\n%s", sizes, cmp.Diff(want, got))
		}
		r := NewReader(bytes.NewReader(data), opts)
		for f, err := range r.All() {
			if err != nil {
				continue
			}
			var v any
			derr := f.Decode(&v)
			cerr := jsonguard.Check(f.Data, DefaultMaxDepth)
			if derr != nil && cerr == nil {
				// Valid JSON that does not fit v: a number beyond
				// float64's range (1e700), found by this target. It must
				// not be reported as a syntax error, and encoding/json
				// must refuse it too.
				var se *jsonguard.SyntaxError
				var ref any
				if errors.As(derr, &se) || stdjson.Unmarshal(f.Data, &ref) == nil {
					t.Fatalf("line %d %q: Decode %v, Check nil, encoding/json accepts it", f.Line, f.Data, derr)
				}
				continue
			}
			if (derr == nil) != (cerr == nil) {
				t.Fatalf("line %d %q: Decode %v, Check %v", f.Line, f.Data, derr, cerr)
			}
			if derr != nil {
				var le *LineError
				if !errors.As(derr, &le) || le.Line != f.Line || le.Offset < f.Offset || le.Offset > f.Offset+int64(len(f.Data)) {
					t.Fatalf("line %d at %d: bad error %#v", f.Line, f.Offset, derr)
				}
				continue
			}
			// Peek agrees with the decoded value.
			m, isObj := v.(map[string]any)
			s, isStr := m["type"].(string)
			typ, ok := f.Type()
			if ok != (isObj && isStr) || (ok && string(typ) != s) {
				t.Fatalf("line %q: Type() = %q, %v; decode says %q, %v", f.Data, typ, ok, s, isObj && isStr)
			}
		}
	}
}
