package chunk

import (
	"io"
	"testing"
)

// TestChunkings: every chunking delivers the input exactly, and in the
// reads it promises.
func TestChunkings(t *testing.T) {
	in := []byte("one\ntwo lines\n\nand an unterminated one")
	for _, c := range append(All(7), Chunking{"plan", func(b []byte) io.Reader { return Sizes(b, 3, 0, 5) }}) {
		r := c.Reader(in)
		var got []byte
		var reads []int
		buf := make([]byte, 64)
		for i := 0; ; i++ {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			reads = append(reads, n)
			if err == io.EOF {
				break
			}
			if err != nil || i > 1000 {
				t.Fatalf("%s: %v after %d reads", c.Name, err, i)
			}
		}
		if string(got) != string(in) {
			t.Errorf("%s: got %q", c.Name, got)
		}
		switch c.Name {
		case "bytes":
			for _, n := range reads[:len(reads)-1] {
				if n != 1 {
					t.Fatalf("bytes: a read of %d", n)
				}
			}
		case "lines":
			if reads[0] != 4 || reads[1] != 10 || reads[2] != 1 {
				t.Errorf("lines: reads %v", reads)
			}
		case "plan":
			if reads[0] != 3 || reads[1] != 0 || reads[2] != 5 || reads[3] != 3 {
				t.Errorf("plan: reads %v", reads)
			}
		}
	}
}
