package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// matrixCase is one row of the correctness matrix: the WHATWG rules, the
// issue's additions, and every peer failure listed in
// shared/reference/readers.md (§A.4, §B.4).
type matrixCase struct {
	name  string
	in    []string // read boundaries for the "given" chunking
	opts  Options
	want  []refEvent
	errs  []string // substrings of the expected errors, in order
	peers string   // which peers get this wrong (readers.md)
}

func matrixCases() []matrixCase {
	big := strings.Repeat("x", 1<<20)
	kline := strings.Repeat("y", 1023)
	var ev128k strings.Builder
	for range 128 {
		ev128k.WriteString("data: " + kline + "\n")
	}
	ev128k.WriteString("\n")
	var anth strings.Builder
	var anthWant []refEvent
	for i := range 40 {
		d := fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tok %d é"}}`, i)
		anth.WriteString("event: content_block_delta\r\ndata: " + d + "\r\n\r\n")
		anthWant = append(anthWant, refEvent{Event: "content_block_delta", Data: d})
	}
	return []matrixCase{
		{name: "crlf-split", in: []string{"data: 1\r", "\ndata: 2\r\n\r\n"},
			want: []refEvent{{Data: "1\n2"}}, peers: "eventsource-parser#17 and app-level parsers"},
		{name: "crlf-split-blank", in: []string{"data: 1\r\n\r", "\ndata: 2\r\n\r\n"},
			want: []refEvent{{Data: "1"}, {Data: "2"}}},
		{name: "crlf-1byte", in: []string{anth.String()}, want: anthWant},
		{name: "bare-cr", in: []string{"data: 1\rdata: 2\r\rdata: 3\r\r"},
			want: []refEvent{{Data: "1\n2"}, {Data: "3"}}, peers: "openai-go, anthropic-sdk-go, naive scanner"},
		{name: "bare-cr-at-read-end", in: []string{"data: 1\r", "\r", "data: 2\r", "\r"},
			want: []refEvent{{Data: "1"}, {Data: "2"}}},
		{name: "mixed-newlines", in: []string{"data: a\r\ndata: b\ndata: c\r\n\rdata: d\n\n"},
			want: []refEvent{{Data: "a\nb\nc"}, {Data: "d"}}},
		{name: "bom", in: []string{"\xEF\xBB\xBFdata: 1\n\n"}, want: []refEvent{{Data: "1"}},
			peers: "openai-go, anthropic-sdk-go, launchdarkly, r3labs"},
		{name: "bom-split", in: []string{"\xEF", "\xBB", "\xBFdata: 1\n\n"}, want: []refEvent{{Data: "1"}}},
		{name: "bom-only-once", in: []string{"\xEF\xBB\xBF\xEF\xBB\xBFdata: 1\n\ndata: 2\n\n"},
			want: []refEvent{{Data: "2"}}}, // the second BOM is part of a field name
		{name: "bom-prefix-not-bom", in: []string{"\xEF\xBBdata: 1\n\ndata: 2\n\n"}, want: []refEvent{{Data: "2"}}},
		{name: "eof-no-blank", in: []string{"data: 1\n\ndata: 2\n"},
			want: []refEvent{{Data: "1"}, {Data: "2", Incomplete: true}}, peers: "r3labs dispatches it unflagged"},
		{name: "eof-no-newline", in: []string{"data: 1\n\ndata: 2"},
			want: []refEvent{{Data: "1"}, {Data: "2", Incomplete: true}}},
		{name: "eof-cr", in: []string{"data: 1\r"}, want: []refEvent{{Data: "1", Incomplete: true}}},
		{name: "eof-cr-cr", in: []string{"data: 1\r\r"}, want: []refEvent{{Data: "1"}}},
		{name: "eof-no-blank-strict", in: []string{"data: 1\n\ndata: 2\n"}, opts: Options{DiscardIncomplete: true},
			want: []refEvent{{Data: "1"}}, errs: []string{"line 3 (offset 9): incomplete event"}},
		{name: "eof-comment-only", in: []string{"data: 1\n\n: bye"}, want: []refEvent{{Data: "1"}}},
		{name: "1mib-line", in: []string{"data: " + big + "\n\n"}, want: []refEvent{{Data: big}},
			peers: "go-sse and r3labs (64 KiB default), bufio.Scanner token too long"},
		{name: "128k-event", in: []string{ev128k.String()},
			want: []refEvent{{Data: strings.TrimSuffix(strings.Repeat(kline+"\n", 128), "\n")}}, peers: "go-sse, r3labs per-event 64 KiB"},
		{name: "comments", in: []string{": hello\ndata: 1\n: mid\ndata: 2\n\n: ping\n\n:\n\ndata: 3\n\n"},
			want: []refEvent{{Data: "1\n2"}, {Data: "3"}}, peers: "openai-go#556/#621: keep-alive gave empty events"},
		{name: "keepalive-openrouter", in: []string{": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {}\n\n"},
			want: []refEvent{{Data: "{}"}}},
		{name: "space", in: []string{"data:1\n\ndata:  2\n\ndata: a:b\n\n"},
			want: []refEvent{{Data: "1"}, {Data: " 2"}, {Data: "a:b"}}, peers: "openclaw#130047 hand-rolled parsers"},
		{name: "empty-data", in: []string{"data\n\ndata:\ndata:\n\n"},
			want: []refEvent{{Data: ""}, {Data: "\n"}}, peers: "r3labs drops them"},
		{name: "event-only", in: []string{"event: ping\n\ndata: 1\n\n"},
			want: []refEvent{{Data: "1"}}, peers: "go-sse, anthropic-sdk-go, launchdarkly, r3labs"},
		{name: "retry-only", in: []string{"retry: 3000\n\ndata: 1\n\n"},
			want: []refEvent{{Data: "1"}}, peers: "openai-go#555"},
		{name: "id-only", in: []string{"id: 5\n\ndata: 1\n\n"}, want: []refEvent{{Data: "1", ID: "5"}}},
		{name: "event-name", in: []string{"event: a\ndata: 1\n\ndata: 2\n\nevent: b\nevent: c\ndata: 3\n\n"},
			want: []refEvent{{Event: "a", Data: "1"}, {Data: "2"}, {Event: "c", Data: "3"}}},
		{name: "unknown-field", in: []string{"foo\nbar: 1\ndata: 1\n\n"}, want: []refEvent{{Data: "1"}}},
		{name: "case-sensitive", in: []string{"Data: 1\nDATA: 2\nEvent: x\ndata: 3\n\n"}, want: []refEvent{{Data: "3"}}},
		{name: "bad-utf8", in: []string{"data: a\xffb\n\n"}, want: []refEvent{{Data: "a\xffb"}}},
		{name: "utf8-split", in: []string{"data: h\xc3", "\xa9llo \xe2\x82", "\xac \xf0\x9f", "\x98\x80\n\n"},
			want: []refEvent{{Data: "héllo € 😀"}}, peers: "ollama-js#255, per-chunk decoding"},
		{name: "id-nul", in: []string{"id: 7\ndata: 1\n\nid: x\x00y\ndata: 2\n\n"},
			want: []refEvent{{Data: "1", ID: "7"}, {Data: "2", ID: "7"}}, peers: "r3labs"},
		{name: "id-persists", in: []string{"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"},
			want: []refEvent{{Data: "a", ID: "1"}, {Data: "b", ID: "1"}, {Data: "c"}}},
		{name: "no-colon-data", in: []string{"data\ndata\n\n"}, want: []refEvent{{Data: "\n"}}},
		{name: "extra-blank-lines", in: []string{"\n\n\ndata: 1\n\n\n\n"}, want: []refEvent{{Data: "1"}}},
		{name: "oversize-recovers", in: []string{"data: 1\n\ndata: " + strings.Repeat("z", 100) + "\ndata: z\n\ndata: 2\n\n"},
			opts: Options{MaxEventSize: 64}, want: []refEvent{{Data: "1"}, {Data: "2"}},
			errs: []string{"sse: line 3 (offset 9): event too large (limit 64 bytes)"}},
		{name: "oversize-at-eof", in: []string{"data: 1\n\ndata: " + strings.Repeat("z", 100)},
			opts: Options{MaxEventSize: 64}, want: []refEvent{{Data: "1"}},
			errs: []string{"sse: line 3 (offset 9): event too large"}},
		{name: "oversize-comment", in: []string{":" + strings.Repeat("c", 200) + "\r\n\r\ndata: 2\r\n\r\n"},
			opts: Options{MaxEventSize: 64}, want: []refEvent{{Data: "2"}}, errs: []string{"line 1 (offset 0): event too large"}},
		{name: "oversize-fields-ignored", in: []string{"id: 12345\nretry: 1\n\ndata:x\n\n"},
			opts: Options{MaxEventSize: 8}, want: []refEvent{{Data: "x"}}, errs: []string{"line 1 (offset 0): event too large"}},
		{name: "oversize-exact-limit", in: []string{"data: 1234567\n\n"}, // 15 bytes
			opts: Options{MaxEventSize: 15}, want: []refEvent{{Data: "1234567"}}},
		{name: "oversize-one-over", in: []string{"data: 12345678\n\ndata: 2\n\n"}, // 16 bytes
			opts: Options{MaxEventSize: 15}, want: []refEvent{{Data: "2"}}, errs: []string{"line 1 (offset 0): event too large"}},
	}
}

var chunkings = map[string][]int{
	"whole": nil, "1byte": {1}, "2byte": {2}, "3byte": {3}, "odd": {1, 7, 2, 64, 3, 1000},
}

func TestMatrix(t *testing.T) {
	for _, tc := range matrixCases() {
		t.Run(tc.name, func(t *testing.T) {
			input := []byte(strings.Join(tc.in, ""))
			given := make([]int, len(tc.in))
			for i, s := range tc.in {
				given[i] = len(s)
			}
			runs := map[string][]int{"given": given}
			for k, v := range chunkings {
				if len(input) > 1<<17 && (len(v) == 0 || v[0] < 4) {
					continue // keep tiny reads of huge inputs for the linear-work test
				}
				runs[k] = v
			}
			if !tc.opts.DiscardIncomplete && tc.opts.MaxEventSize == 0 {
				if d := cmp.Diff(tc.want, refParse(input, false)); d != "" {
					t.Errorf("reference parser disagrees with the case (-want +ref):\n%s", d)
				}
			}
			for _, spans := range []bool{false, true} {
				opts := tc.opts
				opts.Spans = spans
				var first []got
				for name, sizes := range runs {
					for face, fn := range map[string]func(tb, []byte, Options, []int) []got{"reader": readAll, "decoder": decodeAll} {
						var tee bytes.Buffer
						o := opts
						o.Tee = &tee
						gs := fn(t, input, o, sizes)
						where := fmt.Sprintf("%s/%s/spans=%v", face, name, spans)
						if d := cmp.Diff(tc.want, events(gs)); d != "" {
							t.Errorf("%s: events (-want +got):\n%s", where, d)
						}
						errs := errorsOf(gs)
						if len(errs) != len(tc.errs) {
							t.Errorf("%s: errors %q, want %d matching %q", where, errs, len(tc.errs), tc.errs)
						} else {
							for i := range errs {
								if !strings.Contains(errs[i], tc.errs[i]) {
									t.Errorf("%s: error %q does not contain %q", where, errs[i], tc.errs[i])
								}
							}
						}
						if !bytes.Equal(tee.Bytes(), input) {
							t.Errorf("%s: tee saw %d bytes, want the %d input bytes", where, tee.Len(), len(input))
						}
						if spans {
							if raw := concatRaw(gs); raw != string(input) {
								t.Errorf("%s: raw spans concatenate to %q, want the input %q", where, trunc(raw), trunc(string(input)))
							}
						}
						gs = mergeSkipped(gs)
						if first == nil {
							first = gs
						} else if d := cmp.Diff(first, gs); d != "" {
							t.Errorf("%s: frames differ from another chunking (-other +this):\n%s", where, trunc(d))
						}
					}
				}
			}
		})
	}
}

func trunc(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// TestPositions pins Raw, Offset, Line and Kind of every span.
func TestPositions(t *testing.T) {
	in := "\xEF\xBB\xBF: hi\r\n\r\nevent: e\r\nid: 9\r\ndata: a\r\ndata: b\r\n\r\n\nretry: 10\n\ndata: c\rretry: 5\r\r: x\ndata: d"
	want := []got{
		{Kind: KindBOM, Raw: "\xEF\xBB\xBF", Offset: 0, Line: 1},
		{Kind: KindComment, Raw: ": hi\r\n\r\n", Offset: 3, Line: 1},
		{Kind: KindEvent, Event: "e", Data: "a\nb", ID: "9", Raw: "event: e\r\nid: 9\r\ndata: a\r\ndata: b\r\n\r\n", Offset: 11, Line: 3},
		{Kind: KindBlank, ID: "9", Raw: "\n", Offset: 48, Line: 8},
		{Kind: KindNoData, ID: "9", Retry: 10 * time.Millisecond, HasRetry: true, Raw: "retry: 10\n\n", Offset: 49, Line: 9},
		{Kind: KindEvent, Data: "c", ID: "9", Retry: 5 * time.Millisecond, HasRetry: true, Raw: "data: c\rretry: 5\r\r", Offset: 60, Line: 11},
		{Kind: KindEvent, Data: "d", ID: "9", Raw: ": x\ndata: d", Offset: 78, Line: 14, Incomplete: true},
	}
	for name, sizes := range chunkings {
		for face, fn := range map[string]func(tb, []byte, Options, []int) []got{"reader": readAll, "decoder": decodeAll} {
			gs := fn(t, []byte(in), Options{Spans: true}, sizes)
			if d := cmp.Diff(want, gs); d != "" {
				t.Errorf("%s/%s (-want +got):\n%s", face, name, d)
			}
		}
	}
	r := NewReader(strings.NewReader(in), Options{})
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if id := r.LastEventID(); id != "9" {
		t.Errorf("LastEventID = %q, want 9", id)
	}
	if d, ok := r.Retry(); d != 5*time.Millisecond || !ok {
		t.Errorf("Retry = %v, %v; want 5ms, true", d, ok)
	}
}

func TestRetryField(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true}, {"1500", 1500 * time.Millisecond, true}, {"+5", 0, false}, {"-1", 0, false},
		{" 5", 5 * time.Millisecond, true}, // the one optional space is not part of the value
		{"  5", 0, false}, {"5ms", 0, false}, {"", 0, false}, {"1.5", 0, false},
		{"99999999999999999999999", time.Duration(1<<63 - 1), true},
	} {
		in := "retry:" + tc.v + "\ndata: x\n\n"
		gs := readAll(t, []byte(in), Options{}, nil)
		if len(gs) != 1 || gs[0].Retry != tc.want || gs[0].HasRetry != tc.ok {
			t.Errorf("retry:%q gave %v, want %v %v", tc.v, gs, tc.want, tc.ok)
		}
	}
}

func TestErrorTypes(t *testing.T) {
	in := "data: 1\n\ndata: " + strings.Repeat("q", 300) + "\n\ndata: 2\n"
	r := NewReader(strings.NewReader(in), Options{MaxEventSize: 100, DiscardIncomplete: true})
	if f, err := r.Next(); err != nil || string(f.Data) != "1" {
		t.Fatalf("first: %v %v", f, err)
	}
	_, err := r.Next()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrEventTooLarge) || e.Offset != 9 || e.Line != 3 || !IsRecoverable(err) {
		t.Fatalf("oversize error = %#v", err)
	}
	if !strings.HasPrefix(err.Error(), `sse: line 3 (offset 9): event too large (limit 100 bytes) starting "data: qqq`) ||
		!strings.HasSuffix(err.Error(), `qqq"...`) {
		t.Errorf("message %q", err)
	}
	_, err = r.Next()
	if !errors.Is(err, ErrIncomplete) || !errors.As(err, &e) || e.Offset != 317 || e.Line != 5 {
		t.Fatalf("incomplete error = %#v", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("want io.EOF, got %v", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("EOF not sticky: %v", err)
	}
}

// TestReadErrorPassesThrough checks that the frames completed before a read
// error come first, then the error itself, sticky.
func TestReadErrorPassesThrough(t *testing.T) {
	r := NewReader(&errReader{data: []byte("data: 1\n\ndata: 2\n"), err: errBoom}, Options{})
	if f, err := r.Next(); err != nil || string(f.Data) != "1" {
		t.Fatalf("first = %v, %v", f, err)
	}
	for range 2 {
		if _, err := r.Next(); err != errBoom {
			t.Fatalf("got %v, want the reader's error as is", err)
		}
	}
	var n int
	for _, err := range NewReader(&errReader{data: []byte("data: 1\n\n"), err: errBoom}, Options{}).All() {
		n++
		if n == 2 && err != errBoom {
			t.Fatalf("All yielded %v, want errBoom", err)
		}
	}
	if n != 2 {
		t.Fatalf("All yielded %d values, want 2", n)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestNoProgress(t *testing.T) {
	if _, err := NewReader(zeroReader{}, Options{}).Next(); err != io.ErrNoProgress {
		t.Fatalf("got %v, want io.ErrNoProgress", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errBoom }

func TestTeeError(t *testing.T) {
	r := NewReader(strings.NewReader("data: 1\n\n"), Options{Tee: failWriter{}})
	if _, err := r.Next(); err != errBoom {
		t.Fatalf("Next = %v, want the tee error", err)
	}
	d := NewDecoder(Options{Tee: failWriter{}}, func(*Frame, error) error { return nil })
	if _, err := d.Write([]byte("data: 1\n\n")); err != errBoom {
		t.Fatalf("Write = %v, want the tee error", err)
	}
}

// closeCounter is an io.ReadCloser counting Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestEarlyStopLeavesReader: breaking out of All closes nothing (the
// convention of the three framing packages, package ndjson's doc): the
// Reader goes on with the next frame and the source is the caller's; Close
// closes it.
func TestEarlyStopLeavesReader(t *testing.T) {
	src := &closeCounter{Reader: strings.NewReader("data: 1\n\ndata: 2\n\ndata: 3\n\n")}
	r := NewReader(src, Options{})
	for f, err := range r.All() {
		if err != nil || string(f.Data) != "1" {
			t.Fatalf("got %v %v", f, err)
		}
		break
	}
	if src.closed != 0 {
		t.Fatalf("source closed %d times by a break, want 0", src.closed)
	}
	if f, err := r.Next(); err != nil || string(f.Data) != "2" {
		t.Fatalf("Next after early stop = %q, %v; want 2", f.Data, err)
	}
	if err := r.Close(); err != nil || src.closed != 1 {
		t.Fatalf("Close: %v, closed %d times", err, src.closed)
	}
	if _, err := r.Next(); err != ErrClosed {
		t.Fatalf("Next after Close = %v, want ErrClosed", err)
	}
	if err := r.Close(); err != nil || src.closed != 1 {
		t.Fatalf("second Close: %v, closed %d times", err, src.closed)
	}
}

func TestDecoderEmitError(t *testing.T) {
	calls := 0
	d := NewDecoder(Options{}, func(*Frame, error) error { calls++; return errBoom })
	if _, err := d.Write([]byte("data: 1\n\ndata: 2\n\n")); err != errBoom {
		t.Fatalf("Write = %v", err)
	}
	if _, err := d.Write([]byte("data: 3\n\n")); err != errBoom || calls != 1 {
		t.Fatalf("Write after emit error = %v (calls %d)", err, calls)
	}
	if err := d.Close(); err != errBoom {
		t.Fatalf("Close = %v", err)
	}
	d = NewDecoder(Options{}, func(*Frame, error) error { return nil })
	d.Close()
	if _, err := d.Write([]byte("x")); err != ErrClosed {
		t.Fatalf("Write after Close = %v", err)
	}
}

func TestClone(t *testing.T) {
	r := NewReader(strings.NewReader("event: e\ndata: a\ndata: b\n\ndata: c\n\n"), Options{})
	f, _ := r.Next()
	c := f.Clone()
	poison(f)
	if string(c.Data) != "a\nb" || string(c.Raw) != "event: e\ndata: a\ndata: b\n\n" || c.Event != "e" {
		t.Fatalf("clone = %+v", c)
	}
	f, _ = r.Next()
	c = f.Clone()
	poison(f)
	if string(c.Data) != "c" || string(c.Raw) != "data: c\n\n" {
		t.Fatalf("clone = %+v", c)
	}
	if z := (Frame{}).Clone(); z.Data != nil || z.Raw != nil {
		t.Fatalf("zero clone %+v", z)
	}
}

// TestBorrowedCap checks that a caller appending to a borrowed slice cannot
// overwrite input that is still pending.
func TestBorrowedCap(t *testing.T) {
	r := NewReader(strings.NewReader("data: a\n\ndata: b\n\n"), Options{})
	f, _ := r.Next()
	_ = append(f.Data, "XXXXXXXXXXXXXXXX"...)
	_ = append(f.Raw, "XXXXXXXXXXXXXXXX"...)
	if f, _ := r.Next(); string(f.Data) != "b" {
		t.Fatalf("second event %q, corrupted by an append to the first", f.Data)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindEvent: "event", KindSkipped: "skipped", Kind(99): "Kind(99)"} {
		if k.String() != want {
			t.Errorf("%d: %q", k, k.String())
		}
	}
}

// TestNoGoroutineLeak is the launchdarkly/r3labs failure (r3labs/sse#140,
// #178): abandoned decoders must leave nothing running. The package starts
// no goroutines at all.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 100 {
		pr, pw := io.Pipe()
		go pw.Write([]byte("data: 1\n\ndata: 2\n\n"))
		r := NewReader(pr, Options{})
		if f, err := r.Next(); err != nil || string(f.Data) != "1" {
			t.Fatalf("%v %v", f, err)
		}
		r.Close() // closes the pipe, which ends the writer goroutine
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines before, %d after abandoning 100 readers", before, runtime.NumGoroutine())
}
