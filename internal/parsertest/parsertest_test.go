package parsertest

import (
	"io"
	"strings"
	"testing"
)

// TestChunkings: every delivery yields the input exactly, in the pieces it
// promises.
func TestChunkings(t *testing.T) {
	in := strings.Repeat("line one\n{\"x\":1}\n\n", 40) + "no newline"
	for _, c := range Chunkings(3) {
		r := c.Mk(in)
		var got strings.Builder
		buf := make([]byte, 4096)
		reads := 0
		for {
			n, err := r.Read(buf)
			got.Write(buf[:n])
			if n > 0 {
				reads++
			}
			if err == io.EOF {
				break
			}
		}
		if got.String() != in {
			t.Fatalf("%s: input not delivered exactly", c.Name)
		}
		want := map[string]int{"whole": 1, "line": strings.Count(in, "\n") + 1, "byte": len(in)}[c.Name]
		if c.Name == "random" {
			if reads < len(in)/97 || reads > len(in) {
				t.Errorf("random: %d reads for %d bytes", reads, len(in))
			}
		} else if reads != want {
			t.Errorf("%s: %d reads, want %d", c.Name, reads, want)
		}
	}
}
