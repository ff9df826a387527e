package ndjson

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/agentwire/agentwire/internal/quote"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// refFrames is a deliberately naive reference for the framing rules,
// working on the whole input at once.
func refFrames(in []byte, maxLine int) []item {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineSize
	}
	var out []item
	off := int64(0)
	ln := 1
	if bytes.HasPrefix(in, bom) {
		out = append(out, item{Kind: KindBOM, Raw: string(bom), Line: 1})
		in = in[3:]
		off = 3
	}
	for len(in) > 0 {
		raw := in
		term := false
		if i := bytes.IndexByte(in, '\n'); i >= 0 {
			raw = in[:i+1]
			term = true
		}
		in = in[len(raw):]
		data := raw
		if term {
			data = bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
		}
		if len(data) > maxLine {
			n := min(excerptSize, maxLine+1)
			ex := quote.Bytes(data[:n], n) + "..."
			out = append(out, item{
				Err:    fmt.Sprintf("ndjson: line %d (offset %d): line too long (%d bytes skipped): %s", ln, off, len(raw), ex),
				Offset: off, Line: ln, ErrLen: int64(len(raw)),
			})
		} else {
			kind := KindLine
			if len(bytes.Trim(data, " \t\r")) == 0 {
				kind = KindBlank
			}
			out = append(out, item{Kind: kind, Data: string(data), Raw: string(raw), Offset: off, Line: ln, Unterminated: !term})
		}
		off += int64(len(raw))
		ln++
	}
	return out
}

// genWire draws NDJSON-ish input rich in the cases that matter: CR, LF,
// CRLF, BOM bytes, blank lines, long lines, JSON and noise.
func genWire(maxLine int) *rapid.Generator[[]byte] {
	piece := rapid.OneOf(
		rapid.SampledFrom([]string{
			"\n", "\r\n", "\r", " ", "\t", "\xEF\xBB\xBF", "\xEF", "\xBB\xBF",
			`{"type":"assistant","message":{"type":"message"}}`, `{"type":"a\u0073"}`,
			"[", "]", "{", "}", `"`, `\`, "\u2028", "\xff", "\x00",
		}).AsAny(),
		rapid.StringMatching(`[a-z"{}:,\[\] ]{0,30}`).AsAny(),
		rapid.Custom(func(t *rapid.T) any {
			return string(bytes.Repeat([]byte{'x'}, rapid.IntRange(0, 300).Draw(t, "run")))
		}),
		// Lines right at the limit, where off-by-ones hide.
		rapid.Custom(func(t *rapid.T) any {
			n := max(0, maxLine+rapid.IntRange(-2, 2).Draw(t, "delta"))
			return "\n" + string(bytes.Repeat([]byte{'y'}, n)) + rapid.SampledFrom([]string{"\n", "\r\n", "\r", ""}).Draw(t, "end")
		}),
	)
	return rapid.Custom(func(t *rapid.T) []byte {
		var b []byte
		if rapid.Bool().Draw(t, "bom") {
			b = append(b, bom...)
		}
		for _, p := range rapid.SliceOfN(piece, 0, 40).Draw(t, "pieces") {
			b = append(b, p.(string)...)
		}
		return b
	})
}

func genSizes() *rapid.Generator[[]int] {
	return rapid.OneOf(
		rapid.Just([]int(nil)),
		rapid.Just([]int{1}),
		rapid.SliceOfN(rapid.IntRange(0, 64), 1, 20).Filter(func(s []int) bool {
			for _, n := range s {
				if n > 0 {
					return true
				}
			}
			return false
		}),
	)
}

// TestPropChunking: any chunking of the input, through either face and
// with any initial buffer size, gives the frames and errors of the
// reference, which reads the input whole. This is also the raw accounting
// property: the reference's spans tile the input by construction, and
// TestPropAccounting checks that directly.
func TestPropChunking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxLine := rapid.SampledFrom([]int{0, 1, 2, 5, 16, 100}).Draw(t, "maxLine")
		in := genWire(maxLine).Draw(t, "in")
		sizes := genSizes().Draw(t, "sizes")
		defer setInitialBufferSize(rapid.SampledFrom([]int{1, 3, 16, 64 << 10}).Draw(t, "buf"))()
		// Poisoning must only ever hit bytes already handed out.
		poisonBorrowed = rapid.Bool().Draw(t, "poison")
		defer func() { poisonBorrowed = false }()
		opts := Options{MaxLineSize: maxLine}
		want := refFrames(in, maxLine)
		if got := readAll(t, in, opts, sizes); !slices.Equal(want, got) {
			t.Fatalf("Reader (-ref +got):\n%s", cmp.Diff(want, got))
		}
		if got := pushAll(t, in, opts, sizes); !slices.Equal(want, got) {
			t.Fatalf("Decoder (-ref +got):\n%s", cmp.Diff(want, got))
		}
	})
}

// TestPropAccounting: the frames' Raw and the too-long spans, in order,
// concatenate to the input; positions and line numbers are consistent;
// Data is Raw minus its terminator; the tee holds the input.
func TestPropAccounting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxLine := rapid.SampledFrom([]int{0, 1, 4, 50}).Draw(t, "maxLine")
		in := genWire(maxLine).Draw(t, "in")
		var tee bytes.Buffer
		got := readAll(t, in, Options{MaxLineSize: maxLine, Tee: &tee}, genSizes().Draw(t, "sizes"))
		if !bytes.Equal(tee.Bytes(), in) {
			t.Fatalf("tee %q != input %q", tee.Bytes(), in)
		}
		var rebuilt []byte
		for i, it := range got {
			if int64(len(rebuilt)) != it.Offset {
				t.Fatalf("result %d at offset %d, want %d", i, it.Offset, len(rebuilt))
			}
			if wantLine := 1 + bytes.Count(in[:it.Offset], []byte("\n")); it.Line != wantLine {
				t.Fatalf("result %d: line %d, want %d", i, it.Line, wantLine)
			}
			if it.Err != "" {
				rebuilt = append(rebuilt, tee.Bytes()[it.Offset:it.Offset+it.ErrLen]...)
				continue
			}
			rebuilt = append(rebuilt, it.Raw...)
			term := len(it.Raw) - len(it.Data)
			switch {
			case it.Kind == KindBOM:
				if it.Raw != string(bom) || it.Offset != 0 {
					t.Fatalf("bad BOM frame %+v", it)
				}
			case it.Unterminated:
				if term != 0 || i != len(got)-1 {
					t.Fatalf("bad unterminated frame %+v", it)
				}
			case term == 1 && it.Raw[len(it.Raw)-1] == '\n':
			case term == 2 && it.Raw[len(it.Raw)-2:] == "\r\n":
			default:
				t.Fatalf("Data %q is not Raw %q minus its terminator", it.Data, it.Raw)
			}
		}
		if !bytes.Equal(rebuilt, in) {
			t.Fatalf("spans rebuild %q, want %q", rebuilt, in)
		}
	})
}
