package jsonguard

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// indexSpecialRef is indexSpecial by definition.
func indexSpecialRef(b []byte, high bool) int {
	for i, c := range b {
		if c == '"' || c == '\\' || c < 0x20 || high && c >= 0x80 {
			return i
		}
	}
	return len(b)
}

// TestIndexSpecial checks indexSpecial against its definition for every
// length up to 100, every start alignment and every position of the first
// special byte (and none), with special bytes after it and near misses
// (0x1f's neighbours, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff) around.
func TestIndexSpecial(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 31))
	page := make([]byte, 256)
	const plain, specials, highs = "a \x21\x23\x5b\x5d\x7f~", "\"\\\x00\x1f\x01\n\t", "\x80\xc3\xff"
	for _, high := range []bool{false, true} {
		for n := 0; n <= 100; n++ {
			for align := range 16 {
				for at := -1; at < n; at++ {
					b := page[align : align+n]
					for i := range b {
						b[i] = plain[r.IntN(len(plain))]
						if !high && r.IntN(4) == 0 {
							b[i] = highs[r.IntN(len(highs))]
						}
					}
					if at >= 0 {
						set := specials
						if high {
							set += highs
						}
						b[at] = set[r.IntN(len(set))]
						for i := at + 1; i < n; i++ {
							if r.IntN(4) == 0 {
								b[i] = set[r.IntN(len(set))]
							}
						}
					}
					if got, want := indexSpecial(b, high), indexSpecialRef(b, high); got != want {
						t.Fatalf("indexSpecial(%q, %v) = %d, want %d", b, high, got, want)
					}
				}
			}
		}
	}
	for range 1000 {
		b := bytes.Repeat([]byte{'x'}, 1+r.IntN(3000))
		if r.IntN(8) != 0 {
			b[r.IntN(len(b))] = "\"\\\x05\x90"[r.IntN(4)]
		}
		for _, high := range []bool{false, true} {
			if got, want := indexSpecial(b, high), indexSpecialRef(b, high); got != want {
				t.Fatalf("indexSpecial of %d bytes, %v = %d, want %d", len(b), high, got, want)
			}
		}
	}
}
