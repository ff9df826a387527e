package feed

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
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
