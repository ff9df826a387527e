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

// ptrReader hands out its one frame by pointer, reused, as sse.Reader does.
type ptrReader struct {
	f   posFrame
	n   int
	err error
}

func (r *ptrReader) Next() (*posFrame, error) {
	if r.n == 2 {
		return nil, r.err
	}
	r.n++
	r.f.off = int64(r.n)
	return &r.f, nil
}

func TestValues(t *testing.T) {
	boom := errors.New("boom")
	v := Values[posFrame]{R: &ptrReader{err: boom}}
	a, err1 := v.Next()
	b, err2 := v.Next()
	z, err3 := v.Next()
	if err1 != nil || err2 != nil || a.off != 1 || b.off != 2 {
		t.Fatalf("frames %v %v, %v %v: want copies 1 and 2", a, err1, b, err2)
	}
	if err3 != boom || z != (posFrame{}) {
		t.Fatalf("after the frames: %v, %v; want the zero frame and boom", z, err3)
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
// jsonrpc framings give frames.
type valueReader struct{ r errReader }

func (v *valueReader) Next() (lineFrame, error) { return Values[lineFrame]{R: &v.r}.Next() }

// TestReadFacesAgree: Read feeds a Values reader's frames (which it takes
// by pointer) and a value reader's alike: each frame, each recoverable
// error, the observer told where each starts (an error without its frame
// by the error's position).
func TestReadFacesAgree(t *testing.T) {
	read := func(r Reader[lineFrame]) []string {
		var got []string
		l := Loop[lineFrame]{
			Framing: Framing[lineFrame]{Open: func(io.Reader, io.Writer) Reader[lineFrame] { return r }, Recoverable: recoverable},
			Observe: func(off int64, line int) { got = append(got, fmt.Sprint("at ", off, ":", line)) },
		}
		l.Read(nil, nil,
			func(f lineFrame) error { got = append(got, fmt.Sprint("frame ", f.off)); return nil },
			func(err error) error { got = append(got, "error "+err.Error()); return nil })
		if l.ReadErr != nil || l.SinkErr != nil {
			t.Fatalf("read %v sink %v", l.ReadErr, l.SinkErr)
		}
		return got
	}
	want := []string{"at 10:1", "frame 10", "at 15:7", "error bad frame", "at 30:3", "frame 30"}
	if got := read(Values[lineFrame]{R: &errReader{}}); !slices.Equal(got, want) {
		t.Errorf("Values reader: %q, want %q", got, want)
	}
	if got := read(&valueReader{}); !slices.Equal(got, want) {
		t.Errorf("value reader: %q, want %q", got, want)
	}
}
