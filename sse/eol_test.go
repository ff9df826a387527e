package sse

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// indexEOLRef is indexEOL by definition.
func indexEOLRef(b []byte) int {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return i
		}
	}
	return -1
}

// TestIndexEOL checks indexEOL against its definition for every length up
// to 200, every start alignment and every position of the first LF or CR
// (and none), with LF, CR and near misses (0x0B, 0x8A, 0x8D) elsewhere.
func TestIndexEOL(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 6))
	page := make([]byte, 512)
	for n := 0; n <= 200; n++ {
		for align := range 16 {
			for at := -1; at < n; at++ {
				b := page[align : align+n]
				for i := range b {
					b[i] = "ab\x0b\x8a\x8d\x09\x0c"[r.IntN(7)]
				}
				if at >= 0 {
					b[at] = "\n\r"[r.IntN(2)]
					for i := at + 1; i < n; i++ {
						if r.IntN(4) == 0 {
							b[i] = "\n\r"[r.IntN(2)]
						}
					}
				}
				if got, want := indexEOL(b), indexEOLRef(b); got != want {
					t.Fatalf("indexEOL(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
	// Larger inputs, the first LF or CR anywhere.
	for range 2000 {
		b := bytes.Repeat([]byte{'x'}, 1+r.IntN(5000))
		if r.IntN(8) != 0 {
			b[r.IntN(len(b))] = "\n\r"[r.IntN(2)]
		}
		if got, want := indexEOL(b), indexEOLRef(b); got != want {
			t.Fatalf("indexEOL of %d bytes = %d, want %d", len(b), got, want)
		}
	}
}

func BenchmarkIndexEOL(b *testing.B) {
	for _, n := range []int{16, 130, 256, 2048} {
		buf := bytes.Repeat([]byte{'x'}, n)
		b.Run(fmt.Sprint("indexEOL/", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				indexEOL(buf)
			}
		})
		b.Run(fmt.Sprint("IndexByte+Count/", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				bytes.IndexByte(buf, '\n')
				bytes.Count(buf, []byte{'\r'})
			}
		})
		b.Run(fmt.Sprint("IndexByte/", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				bytes.IndexByte(buf, '\n')
			}
		})
	}
}
