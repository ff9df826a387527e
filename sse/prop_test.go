package sse

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentwire/agentwire/internal/chunk"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// checkInput is the oracle shared by the properties and FuzzDecoder. For
// any input it checks that:
//   - the Reader and the Decoder give the same frames and errors whether the
//     input comes in one piece, in the reads of sizes, or one byte at a time
//     (oversized events may be skipped in a different number of pieces);
//   - Tee sees exactly the input, and with Spans the Raw of all frames
//     concatenates to the input;
//   - the events agree with the naive WHATWG transcription refParse when no
//     event hit the size limit;
//   - the work under 1-byte reads stays linear in the input.
//
// It returns the frames of the whole read.
func checkInput(t tb, input []byte, opts Options, sizes []int) []got {
	t.Helper()
	var first []got
	var oneByteWork int64
	runs := []struct {
		name  string
		sizes []int
	}{{"whole", nil}, {"plan", sizes}, {"1byte", []int{1}}}
	for _, run := range runs {
		for _, face := range []string{"reader", "decoder"} {
			var tee bytes.Buffer
			o := opts
			o.Tee = &tee
			var gs []got
			if face == "reader" {
				r := NewReader(chunk.Sizes(input, run.sizes...), o)
				for {
					f, err := r.Next()
					if err == io.EOF {
						break
					}
					gs = append(gs, fromFrame(f, err))
					if err != nil && !IsRecoverable(err) {
						t.Fatalf("%s/%s: fatal error %v", face, run.name, err)
					}
					poison(f)
					if len(gs) > 2*len(input)+4 {
						t.Fatalf("%s/%s: %d frames for %d bytes", face, run.name, len(gs), len(input))
					}
				}
				if run.name == "1byte" {
					oneByteWork = r.m.work
				}
			} else {
				gs = decodeAll(t, input, o, run.sizes)
			}
			where := face + "/" + run.name
			if !bytes.Equal(tee.Bytes(), input) {
				t.Fatalf("%s: tee got %q, want %q", where, tee.Bytes(), input)
			}
			if opts.Spans {
				if raw := concatRaw(gs); raw != string(input) {
					t.Fatalf("%s: raw spans %q, want the input %q", where, raw, input)
				}
			}
			for i, g := range gs {
				if g.Err == "" && (g.Raw == "" || g.Offset < 0 || g.Line < 1) {
					t.Fatalf("%s: frame %d has no bytes or a bad position: %v", where, i, g)
				}
			}
			gs = mergeSkipped(gs)
			if first == nil {
				first = gs
				continue
			}
			if d := cmp.Diff(first, gs); d != "" {
				t.Fatalf("%s differs from whole/reader (-whole +this):\n%s", where, d)
			}
		}
	}
	if !hasTooLarge(first) {
		if d := cmp.Diff(refParse(input, opts.DiscardIncomplete), events(first)); d != "" {
			t.Fatalf("events differ from the WHATWG reference (-ref +got):\n%s", d)
		}
	}
	if limit := 8*int64(len(input)) + 1024; oneByteWork > limit {
		t.Fatalf("1-byte reads did %d bytes of work for %d input bytes", oneByteWork, len(input))
	}
	return first
}

func hasTooLarge(gs []got) bool {
	for _, e := range errorsOf(gs) {
		if strings.Contains(e, ErrEventTooLarge.Error()) {
			return true
		}
	}
	return false
}

// sseishGen draws byte strings made of SSE tokens and noise, so that field
// names, colons, spaces, every line ending, BOMs, NULs and split UTF-8 are
// common.
func sseishGen() *rapid.Generator[[]byte] {
	tokens := []string{"data", "data:", "data: ", "event:", "event: e", "id:", "id: 1", "retry:", "retry: 10",
		":", " ", "x", "y z", "é", "\xc3", "\xa9", "\r", "\n", "\r\n", "\n\n", "\r\n\r\n", "\x00", "\xEF\xBB\xBF",
		"1", "foo:", "Data:", "::", "\xff", "data: [DONE]\n\n"}
	return rapid.Custom(func(t *rapid.T) []byte {
		parts := rapid.SliceOfN(rapid.SampledFrom(tokens), 0, 60).Draw(t, "tokens")
		return []byte(strings.Join(parts, ""))
	})
}

func drawOptions(t *rapid.T, n int) Options {
	o := Options{
		Spans:             rapid.Bool().Draw(t, "spans"),
		DiscardIncomplete: rapid.Bool().Draw(t, "discard"),
	}
	if rapid.Bool().Draw(t, "limit") {
		o.MaxEventSize = rapid.IntRange(1, n+8).Draw(t, "max")
	}
	return o
}

// withBufferSize runs f with the package's initial buffer size set to n.
func withBufferSize(n int, f func()) {
	old := bufferSize
	bufferSize = n
	defer func() { bufferSize = old }()
	f()
}

// TestPropChunking: any chunking of any input (down to one byte), through
// either face and any buffer size, gives the same frames; the tee
// accounting holds; events agree with the reference parser.
func TestPropChunking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		input := rapid.OneOf(sseishGen(), rapid.SliceOf(rapid.Byte())).Draw(t, "input")
		opts := drawOptions(t, len(input))
		sizes := rapid.SliceOfN(rapid.IntRange(1, 40), 1, 8).Draw(t, "sizes")
		bs := rapid.SampledFrom([]int{4, 5, 16, 64, bufferSize}).Draw(t, "bufferSize")
		withBufferSize(bs, func() { checkInput(t, input, opts, sizes) })
	})
}

// genEvents draws events the Writer can encode.
func genEvents() *rapid.Generator[[]Event] {
	name := rapid.StringMatching(`[a-z_.: ]{0,12}`)
	id := rapid.StringMatching(`[0-9a-z: ]{0,6}`)
	data := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "{\"k\":1}", " ", ":", "\n", "\r\n", "\r", "é", "\xff", "data: x", ""}), 0, 12)
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Event {
		return Event{
			Event: name.Draw(t, "event"),
			ID:    id.Draw(t, "id"),
			Retry: time.Duration(rapid.IntRange(0, 5000).Draw(t, "retry")) * time.Millisecond,
			Data:  []byte(strings.Join(data.Draw(t, "data"), "")),
		}
	}), 0, 20)
}

// TestPropRoundTrip: decode(encode(events)) == events, under any chunking,
// with comments interleaved.
func TestPropRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		evs := genEvents().Draw(t, "events")
		var buf bytes.Buffer
		w := NewWriter(&buf)
		if rapid.Bool().Draw(t, "bom") {
			buf.WriteString("\xEF\xBB\xBF")
		}
		var want []refEvent
		var wantRetry []time.Duration
		id := ""
		for i, e := range evs {
			if rapid.Bool().Draw(t, fmt.Sprint("comment", i)) {
				if err := w.WriteComment(rapid.StringMatching(`[ -~\n]{0,10}`).Draw(t, "text")); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.WriteEvent(e); err != nil {
				t.Fatal(err)
			}
			if e.ID != "" {
				id = e.ID
			}
			d := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(e.Data))
			want = append(want, refEvent{Event: e.Event, Data: d, ID: id})
			wantRetry = append(wantRetry, e.Retry)
		}
		sizes := rapid.SliceOfN(rapid.IntRange(1, 64), 1, 8).Draw(t, "sizes")
		gs := checkInput(t, buf.Bytes(), Options{Spans: rapid.Bool().Draw(t, "spans")}, sizes)
		if d := cmp.Diff(want, events(gs)); d != "" {
			t.Fatalf("round trip (-want +got):\n%s", d)
		}
		i := 0
		for _, g := range gs {
			if g.Kind != KindEvent {
				continue
			}
			if g.HasRetry != (wantRetry[i] > 0) || g.Retry != wantRetry[i] {
				t.Fatalf("event %d: retry %v/%v, want %v", i, g.Retry, g.HasRetry, wantRetry[i])
			}
			i++
		}
	})
}
