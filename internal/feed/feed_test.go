package feed

import (
	"bytes"
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
