package feed

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSizeHint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Seek(3, io.SeekStart)
	pr, pw := io.Pipe()
	defer pw.Close()
	for _, c := range []struct {
		name string
		r    io.Reader
		want int
	}{{"bytes", bytes.NewReader(make([]byte, 7)), 7}, {"strings", strings.NewReader("abc"), 3}, {"file past its offset", f, 7}, {"pipe", pr, 0}} {
		if got := sizeHint(c.r); got != c.want {
			t.Errorf("%s: sizeHint = %d, want %d", c.name, got, c.want)
		}
	}
}

type posFrame struct{ off int64 }

func (f posFrame) Pos() (int64, int) { return f.off, 1 }

// byValue returns two frames by value, then its error, as ndjson.Reader
// does.
type byValue struct {
	n   int
	err error
}

func (r *byValue) Next() (posFrame, error) {
	if r.n == 2 {
		return posFrame{}, r.err
	}
	r.n++
	return posFrame{off: int64(r.n)}, nil
}

func TestCopied(t *testing.T) {
	boom := errors.New("boom")
	c := &Copied[posFrame]{R: &byValue{err: boom}}
	a, err1 := c.Next()
	if err1 != nil || a == nil || a.off != 1 {
		t.Fatalf("first frame %v, %v: want 1", a, err1)
	}
	b, err2 := c.Next()
	if err2 != nil || b == nil || b.off != 2 {
		t.Fatalf("second frame %v, %v: want 2", b, err2)
	}
	if z, err3 := c.Next(); err3 != boom || z != nil {
		t.Fatalf("after the frames: %v, %v; want nil and boom", z, err3)
	}
}

// lineFrame is a frame whose zero value has line 0, as the framings'
// frames do.
type lineFrame struct {
	off  int64
	line int
}

func (f lineFrame) Pos() (int64, int) { return f.off, f.line }

// posError is a recoverable framing error at the position it carries.
type posError struct{ off int64 }

func (e posError) Error() string     { return "bad frame" }
func (e posError) Pos() (int64, int) { return e.off, 7 }

func recoverable(err error) bool {
	var p posError
	return errors.As(err, &p)
}

// errReader hands out a frame, a frame-less recoverable error, a frame,
// then io.EOF, its frame by pointer as sse.Reader does.
type errReader struct {
	f lineFrame
	n int
}

func (r *errReader) Next() (*lineFrame, error) {
	r.n++
	switch r.n {
	case 1, 3:
		r.f = lineFrame{off: int64(10 * r.n), line: r.n}
		return &r.f, nil
	case 2:
		return nil, posError{off: 15}
	}
	return nil, io.EOF
}

// valueReader is errReader through the value face, as the ndjson and
// jsonrpc framings give frames (the zero frame with an error).
type valueReader struct{ r errReader }

func (v *valueReader) Next() (lineFrame, error) {
	f, err := v.r.Next()
	if f == nil {
		return lineFrame{}, err
	}
	return *f, err
}

// recSink records what it is fed.
type recSink struct{ got *[]string }

func (s recSink) Feed(f lineFrame) error {
	*s.got = append(*s.got, fmt.Sprint("frame ", f.off))
	return nil
}

func (s recSink) FeedError(err error) error {
	*s.got = append(*s.got, "error "+err.Error())
	return nil
}

// TestReadFacesAgree: Read feeds a pointer reader's frames (sse.Reader's
// face) and a value reader's through Copied alike: each frame, each
// recoverable error, the observer told where each starts (an error
// without its frame by the error's position).
func TestReadFacesAgree(t *testing.T) {
	read := func(r Reader[lineFrame]) []string {
		var got []string
		l := Loop[lineFrame]{
			Framing: Framing[lineFrame]{Open: func(io.Reader, io.Writer) Reader[lineFrame] { return r }, Recoverable: recoverable},
			Observe: func(off int64, line int) { got = append(got, fmt.Sprint("at ", off, ":", line)) },
		}
		l.Read(nil, nil, recSink{&got})
		if l.ReadErr != nil || l.SinkErr != nil {
			t.Fatalf("read %v sink %v", l.ReadErr, l.SinkErr)
		}
		return got
	}
	want := []string{"at 10:1", "frame 10", "at 15:7", "error bad frame", "at 30:3", "frame 30"}
	if got := read(&errReader{}); !slices.Equal(got, want) {
		t.Errorf("pointer reader: %q, want %q", got, want)
	}
	if got := read(&Copied[lineFrame]{R: &valueReader{}}); !slices.Equal(got, want) {
		t.Errorf("value reader: %q, want %q", got, want)
	}
}
