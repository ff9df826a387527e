package ndjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func line(data, raw string, off int64, ln int) item {
	return item{Kind: KindLine, Data: data, Raw: raw, Offset: off, Line: ln}
}

func blank(data, raw string, off int64, ln int) item {
	return item{Kind: KindBlank, Data: data, Raw: raw, Offset: off, Line: ln}
}

func unterminated(it item) item { it.Unterminated = true; return it }

func tooLong(ln int, off, n int64, excerpt string) item {
	return item{Err: fmt.Sprintf("ndjson: line %d (offset %d): line too long (%d bytes skipped): %s", ln, off, n, excerpt), Offset: off, Line: ln, ErrLen: n}
}

var framingTests = []struct {
	name string
	in   string
	max  int // MaxLineSize; 0 = default
	want []item
}{
	{"empty", "", 0, nil},
	{"one line LF", `{"a":1}` + "\n", 0, []item{line(`{"a":1}`, `{"a":1}`+"\n", 0, 1)}},
	{"two lines", "{}\n[]\n", 0, []item{line("{}", "{}\n", 0, 1), line("[]", "[]\n", 3, 2)}},
	{"CRLF stripped from Data, kept in Raw", "{}\r\n[]\r\n", 0, []item{line("{}", "{}\r\n", 0, 1), line("[]", "[]\r\n", 4, 2)}},
	{"only the CR before LF is stripped", "a\r\r\n", 0, []item{line("a\r", "a\r\r\n", 0, 1)}},
	{"lone CR is data", "a\rb\n", 0, []item{line("a\rb", "a\rb\n", 0, 1)}},
	{"final line without LF", "{}\n1", 0, []item{line("{}", "{}\n", 0, 1), unterminated(line("1", "1", 3, 2))}},
	{"final CR without LF is data", "1\r", 0, []item{unterminated(line("1\r", "1\r", 0, 1))}},
	{"blank lines", "\n\r\n  \t\n{}\n", 0, []item{
		blank("", "\n", 0, 1), blank("", "\r\n", 1, 2), blank("  \t", "  \t\n", 3, 3), line("{}", "{}\n", 7, 4)}},
	{"final blank without LF", "{}\n  ", 0, []item{line("{}", "{}\n", 0, 1), unterminated(blank("  ", "  ", 3, 2))}},
	{"lone CR line is blank", "\r", 0, []item{unterminated(blank("\r", "\r", 0, 1))}},
	{"BOM", "\xEF\xBB\xBF{}\n", 0, []item{{Kind: KindBOM, Raw: "\xEF\xBB\xBF", Line: 1}, line("{}", "{}\n", 3, 1)}},
	{"BOM alone", "\xEF\xBB\xBF", 0, []item{{Kind: KindBOM, Raw: "\xEF\xBB\xBF", Line: 1}}},
	{"BOM then blank", "\xEF\xBB\xBF\n", 0, []item{{Kind: KindBOM, Raw: "\xEF\xBB\xBF", Line: 1}, blank("", "\n", 3, 1)}},
	{"BOM only at offset 0", "{}\n\xEF\xBB\xBF{}\n", 0, []item{line("{}", "{}\n", 0, 1), line("\xEF\xBB\xBF{}", "\xEF\xBB\xBF{}\n", 3, 2)}},
	{"partial BOM is data", "\xEF\xBB\n", 0, []item{line("\xEF\xBB", "\xEF\xBB\n", 0, 1)}},
	{"partial BOM at EOF is data", "\xEF\xBB", 0, []item{unterminated(line("\xEF\xBB", "\xEF\xBB", 0, 1))}},
	{"U+2028 and U+2029 are not line breaks", "\"\u2028\u2029\"\n", 0, []item{line("\"\u2028\u2029\"", "\"\u2028\u2029\"\n", 0, 1)}},
	{"invalid UTF-8 and NUL pass through", "\xff\x00\xfe\n", 0, []item{line("\xff\x00\xfe", "\xff\x00\xfe\n", 0, 1)}},
	{"not JSON is still a line", "warning: x\n", 0, []item{line("warning: x", "warning: x\n", 0, 1)}},
	{"line at the limit", "12345\n", 5, []item{line("12345", "12345\n", 0, 1)}},
	{"CRLF line at the limit", "12345\r\n", 5, []item{line("12345", "12345\r\n", 0, 1)}},
	{"line over the limit, resume", "123456\n{}\n", 5, []item{tooLong(1, 0, 7, `"123456"...`), line("{}", "{}\n", 7, 2)}},
	{"CRLF line over the limit", "123456\r\n{}\n", 5, []item{tooLong(1, 0, 8, `"123456"...`), line("{}", "{}\n", 8, 2)}},
	{"long line far over the limit", "{}\n" + strings.Repeat("x", 100) + "\n{}", 5, []item{
		line("{}", "{}\n", 0, 1), tooLong(2, 3, 101, `"xxxxxx"...`), unterminated(line("{}", "{}", 104, 3))}},
	{"final line over the limit", "{}\n1234567", 5, []item{line("{}", "{}\n", 0, 1), tooLong(2, 3, 7, `"123456"...`)}},
	{"unterminated final line at the limit", "12345", 5, []item{unterminated(line("12345", "12345", 0, 1))}},
	{"two long lines in a row", "aaaaaaa\nbbbbbbbb\n\n", 5, []item{tooLong(1, 0, 8, `"aaaaaa"...`), tooLong(2, 8, 9, `"bbbbbb"...`), blank("", "\n", 17, 3)}},
	{"BOM then long line", "\xEF\xBB\xBF123456\n", 5, []item{{Kind: KindBOM, Raw: "\xEF\xBB\xBF", Line: 1}, tooLong(1, 3, 7, `"123456"...`)}},
}

// readMakers and sizes cross the framing tests with many chunkings, in the
// style of bufio's tests.
var chunkings = []struct {
	name  string
	sizes []int
}{
	{"whole", nil},
	{"1", []int{1}},
	{"2", []int{2}},
	{"3", []int{3}},
	{"7", []int{7}},
	{"1,0,2,5", []int{1, 0, 2, 5}},
	{"4096", []int{4096}},
}

func TestFraming(t *testing.T) {
	for _, tc := range framingTests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{MaxLineSize: tc.max}
			for _, ch := range chunkings {
				for _, bufSize := range []int{64 << 10, 4, 1} {
					restore := setInitialBufferSize(bufSize)
					name := fmt.Sprintf("%s/buf=%d", ch.name, bufSize)
					if d := cmp.Diff(tc.want, readAll(t, []byte(tc.in), opts, ch.sizes)); d != "" {
						t.Errorf("Reader %s (-want +got):\n%s", name, d)
					}
					if d := cmp.Diff(tc.want, pushAll(t, []byte(tc.in), opts, ch.sizes)); d != "" {
						t.Errorf("Decoder %s (-want +got):\n%s", name, d)
					}
					restore()
				}
			}
		})
	}
}

func setInitialBufferSize(n int) (restore func()) {
	old := initialBufferSize
	initialBufferSize = n
	return func() { initialBufferSize = old }
}

func TestReaderTestReaders(t *testing.T) {
	in := []byte("{\"a\":1}\r\n\n[1,2]\n\xEF\xBB\xBF\nlast")
	want := readAll(t, in, Options{}, nil)
	for name, mk := range map[string]func(io.Reader) io.Reader{
		"OneByte":  iotest.OneByteReader,
		"Half":     iotest.HalfReader,
		"DataErr":  iotest.DataErrReader,
		"Timeout?": func(r io.Reader) io.Reader { return r },
	} {
		r := NewReader(mk(bytes.NewReader(in)), Options{})
		var got []item
		for f, err := range r.All() {
			got = append(got, itemOf(f, err))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func TestReaderEOFSticky(t *testing.T) {
	r := NewReader(strings.NewReader("{}"), Options{})
	if f, err := r.Next(); err != nil || string(f.Data) != "{}" || !f.Unterminated {
		t.Fatalf("Next = %+v, %v", f, err)
	}
	for range 3 {
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("Next after end = %v, want io.EOF", err)
		}
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("{}\n[]\npartial"), iotest.ErrReader(boom))
	r := NewReader(src, Options{})
	var got []string
	var final error
	for f, err := range r.All() {
		if err != nil {
			final = err
			break
		}
		got = append(got, string(f.Data))
	}
	if d := cmp.Diff([]string{"{}", "[]"}, got); d != "" {
		t.Errorf("frames before the error (-want +got):\n%s", d)
	}
	if final != boom {
		t.Errorf("error = %v, want the read error unchanged", final)
	}
	if _, err := r.Next(); err != boom {
		t.Errorf("error not sticky: %v", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	if _, err := NewReader(zeroReader{}, Options{}).Next(); err != io.ErrNoProgress {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("tee full")
	}
	return len(p), nil
}

func TestTee(t *testing.T) {
	in := "{}\n" + strings.Repeat("x", 50) + "\n\xEF\xBB\xBFnot json\n"
	var tee bytes.Buffer
	r := NewReader(iotest.OneByteReader(strings.NewReader(in)), Options{Tee: &tee, MaxLineSize: 10})
	for range r.All() {
	}
	if tee.String() != in {
		t.Errorf("Reader tee = %q, want the input", tee.String())
	}
	tee.Reset()
	d := NewDecoder(Options{Tee: &tee, MaxLineSize: 10}, func(Frame, error) error { return nil })
	for i := range len(in) {
		d.Write([]byte{in[i]})
	}
	d.Close()
	if tee.String() != in {
		t.Errorf("Decoder tee = %q, want the input", tee.String())
	}
}

func TestTeeError(t *testing.T) {
	r := NewReader(strings.NewReader("{}\n[]\n"), Options{Tee: &failWriter{n: 1}})
	_, err := r.Next()
	if err == nil || err.Error() != "tee full" {
		t.Fatalf("Next = %v, want the tee error", err)
	}
	if _, err2 := r.Next(); err2 != err {
		t.Fatalf("tee error not sticky: %v", err2)
	}
	d := NewDecoder(Options{Tee: &failWriter{n: 1}}, func(Frame, error) error { t.Error("emit called"); return nil })
	if _, err := d.Write([]byte("{}\n")); err == nil {
		t.Fatal("Write succeeded past a failing tee")
	}
}

func TestDecoderEmitError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	d := NewDecoder(Options{}, func(Frame, error) error { calls++; return stop })
	if _, err := d.Write([]byte("{}\n{}\n")); err != stop {
		t.Fatalf("Write = %v, want emit's error", err)
	}
	if _, err := d.Write([]byte("{}\n")); err != stop {
		t.Fatalf("second Write = %v, want the sticky error", err)
	}
	if err := d.Close(); err != stop {
		t.Fatalf("Close = %v, want the sticky error", err)
	}
	if calls != 1 {
		t.Fatalf("emit called %d times after failing, want 1", calls)
	}
}

func TestDecoderClose(t *testing.T) {
	var got []string
	emit := func(f Frame, err error) error { got = append(got, string(f.Raw)); return nil }
	d := NewDecoder(Options{}, emit)
	d.Write([]byte("{}\n[]"))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := d.Write([]byte("x")); err != ErrClosed {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
	if d := cmp.Diff([]string{"{}\n", "[]"}, got); d != "" {
		t.Fatalf("frames (-want +got):\n%s", d)
	}
	d.Reset(Options{}, emit)
	got = nil
	d.Write([]byte("1\n"))
	d.Close()
	if d := cmp.Diff([]string{"1\n"}, got); d != "" {
		t.Fatalf("after Reset (-want +got):\n%s", d)
	}
}

func TestReaderReset(t *testing.T) {
	r := NewReader(strings.NewReader("a\nb\n"), Options{})
	r.Next()
	r.Reset(strings.NewReader("c\n"), Options{})
	f, err := r.Next()
	if err != nil || string(f.Data) != "c" || f.Offset != 0 || f.Line != 1 {
		t.Fatalf("after Reset: %+v, %v", f, err)
	}
}

func TestAllBreak(t *testing.T) {
	r := NewReader(strings.NewReader("1\n2\n3\n"), Options{})
	for f := range r.All() {
		if string(f.Data) == "1" {
			break
		}
	}
	f, err := r.Next()
	if err != nil || string(f.Data) != "2" {
		t.Fatalf("Next after break = %q, %v", f.Data, err)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindLine: "line", KindBlank: "blank", KindBOM: "bom", 0: "Kind(0)", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestLineTooLongError(t *testing.T) {
	r := NewReader(strings.NewReader("{}\n"+strings.Repeat("y", 100)+"\n{}\n"), Options{MaxLineSize: 64})
	r.Next()
	_, err := r.Next()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v, want ErrLineTooLong", err)
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || le.Offset != 3 || le.Len != 101 || le.Column != 0 {
		t.Fatalf("LineError = %+v", le)
	}
	want := `ndjson: line 2 (offset 3): line too long (101 bytes skipped): "` + strings.Repeat("y", 40) + `"...`
	if err.Error() != want {
		t.Fatalf("Error() = %s\nwant      %s", err, want)
	}
	if f, err := r.Next(); err != nil || string(f.Data) != "{}" || f.Line != 3 || f.Offset != 104 {
		t.Fatalf("after the long line: %+v, %v", f, err)
	}
}

func TestClone(t *testing.T) {
	buf := []byte("{}\r\n")
	f := Frame{Kind: KindLine, Data: buf[:2], Raw: buf, Offset: 5, Line: 2}
	c := f.Clone()
	copy(buf, "xxxx")
	if string(c.Data) != "{}" || string(c.Raw) != "{}\r\n" || c.Offset != 5 || c.Line != 2 || c.Kind != KindLine {
		t.Fatalf("Clone = %+v", c)
	}
	if (Frame{}).Clone().Raw != nil {
		t.Fatal("Clone of zero frame allocated")
	}
}

// TestPoisonBorrowed checks the buffer lifetime contract with the poison
// hook: frames kept across Next change, clones do not.
func TestPoisonBorrowed(t *testing.T) {
	poisonBorrowed = true
	defer func() { poisonBorrowed = false }()
	in := "{\"type\":\"a\"}\n{\"type\":\"b\"}\n"
	r := NewReader(strings.NewReader(in), Options{})
	f1, _ := r.Next()
	c1 := f1.Clone()
	f2, _ := r.Next()
	if string(c1.Data) != `{"type":"a"}` {
		t.Fatalf("clone changed: %q", c1.Data)
	}
	if string(f1.Raw) == "{\"type\":\"a\"}\n" {
		t.Fatalf("borrowed frame not poisoned: %q", f1.Raw)
	}
	if string(f2.Data) != `{"type":"b"}` {
		t.Fatalf("current frame damaged: %q", f2.Data)
	}
	var kept []Frame
	d := NewDecoder(Options{}, func(f Frame, err error) error { kept = append(kept, f); return nil })
	d.Write([]byte(in))
	d.Close()
	for _, f := range kept {
		if bytes.Contains(f.Raw, []byte("type")) {
			t.Fatalf("Decoder frame not poisoned after emit returned: %q", f.Raw)
		}
	}
}

// TestZeroAllocs pins the steady-state allocation count of Next at zero.
func TestZeroAllocs(t *testing.T) {
	lines := bytes.Repeat([]byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hello"}}}`+"\n"), 1000)
	src := bytes.NewReader(lines)
	r := NewReader(src, Options{})
	r.Next() // allocate the buffer
	allocs := testing.AllocsPerRun(5000, func() {
		f, err := r.Next()
		if err == io.EOF {
			src.Reset(lines)
			r.Reset(src, Options{})
			return
		}
		if _, ok := f.Type(); !ok {
			t.Fatal("no type")
		}
	})
	if allocs != 0 {
		t.Fatalf("Next+Type allocates %.2f times per line, want 0", allocs)
	}
	var n int
	d := NewDecoder(Options{}, func(f Frame, err error) error { n++; return nil })
	d.Write(lines[:10])
	allocs = testing.AllocsPerRun(1000, func() { d.Write(lines[:4096]) })
	if allocs != 0 {
		t.Fatalf("Decoder.Write allocates %.2f times per call, want 0", allocs)
	}
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

func TestTeeShortWrite(t *testing.T) {
	if _, err := NewReader(strings.NewReader("{}\n"), Options{Tee: shortWriter{}}).Next(); err != io.ErrShortWrite {
		t.Fatalf("Next = %v, want io.ErrShortWrite", err)
	}
}

func TestNegativeMaxLineSizeIsDefault(t *testing.T) {
	long := strings.Repeat("x", 1<<20) // longer than the initial buffer
	r := NewReader(strings.NewReader(long+"\n"), Options{MaxLineSize: -1})
	if f, err := r.Next(); err != nil || len(f.Data) != len(long) {
		t.Fatalf("Next = %d bytes, %v", len(f.Data), err)
	}
}
