package jsonguard

import (
	stdjson "encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// specialRef is a block's mask by definition.
func specialRef(b []byte) uint64 {
	var m uint64
	for k, c := range b {
		if c == '"' || c == '\\' || c < 0x20 {
			m |= 1 << k
		}
	}
	return m
}

// TestSpecialBlocks holds specialBlocks (SSE2 on amd64), specialTail and
// specialWord to the definition on random blocks of special bytes, near
// misses (0x1f's neighbours, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff,
// 0x9f, 0xa2, 0xdc) and plain ones, at every density.
func TestSpecialBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	const set = "\"\\\x00\x01\x1f\n\t\x20\x21\x23\x5b\x5d\x7f\x80\xff\x9f\xa2\xdc\xa0ab"
	for range 20000 {
		n := 1 + r.IntN(6)
		b := make([]byte, 64*n)
		p := r.IntN(4)
		for i := range b {
			b[i] = 'a'
			if r.IntN(4) <= p {
				b[i] = set[r.IntN(len(set))]
			}
		}
		out := make([]uint64, n)
		specialBlocks(b, out)
		for k := range out {
			if want := specialRef(b[64*k : 64*k+64]); out[k] != want {
				t.Fatalf("specialBlocks block %d of %q = %x, want %x", k, b, out[k], want)
			}
		}
		tail := b[:r.IntN(64)]
		if got, want := specialTail(tail), specialRef(tail); got != want {
			t.Fatalf("specialTail(%q) = %x, want %x", tail, got, want)
		}
	}
}

// stringEndsBoth holds strMasks.end to StringEnd at every quote of b,
// with one window shared by the scans in input order, as check uses it.
func stringEndsBoth(t testing.TB, b []byte) {
	var sm strMasks
	for i := range b {
		if b[i] != '"' {
			continue
		}
		got, ok := sm.end(b, i)
		want, _, wantOK := StringEnd(b, i)
		if ok != wantOK || ok && got != want {
			t.Fatalf("strMasks.end(%q, %d) = %d, %v; StringEnd %d, %v", b, i, got, ok, want, wantOK)
		}
	}
}

// TestStringEndMasks: strMasks.end agrees with StringEnd on random
// strings of plain bytes, escapes (good and bad) and control bytes, of
// every length around the block and window sizes.
func TestStringEndMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 1))
	parts := []string{"a", "bcdefgh", `\"`, `\\`, `\n`, `\u00e9`, `\u12`, `\x`, "\x01", `"`, "\xc3\xa9", " ", `\`, `\/`}
	for range 5000 {
		var b []byte
		size := r.IntN(3 * maskBlocks * 64)
		if r.IntN(2) == 0 {
			size = r.IntN(300)
		}
		for len(b) < size {
			p := "a"
			if r.IntN(3) == 0 {
				p = parts[r.IntN(len(parts))]
			}
			b = append(b, p...)
		}
		stringEndsBoth(t, b)
	}
}

// TestWalkWindowEdge holds check to the reference (and encoding/json's
// Valid) on strings that start in the last block of the masks' window
// and run past it, as names and as values: walk's in-line string end
// reads the rest of the block and the next block's mask, and at the
// window's end must not take a quote past bytes no mask covers (it did:
// a control byte, a quote or a bad escape in the 64 bytes after the
// window was accepted).
func TestWalkWindowEdge(t *testing.T) {
	const edge = maskBlocks * 64
	for s := edge - 66; s < edge; s++ {
		for p := edge; p < s+1+68; p++ {
			for _, c := range []string{"\x01", `"`, `\`, `\n`, "a"} {
				for _, obj := range []bool{false, true} {
					var head string
					if obj {
						head = `{"a":"` + strings.Repeat("a", s-8) + `","`
					} else {
						head = `["` + strings.Repeat("a", s-4) + `","`
					}
					if len(head) != s+1 {
						t.Fatal(len(head), s)
					}
					body := strings.Repeat("a", p-s-1) + c + strings.Repeat("b", 3)
					doc := head + body + `"]`
					if obj {
						doc = head + body + `":1}`
					}
					b := []byte(doc + strings.Repeat(" ", 100))
					checkBoth(t, b, 0)
					if (Check(b, 0) == nil) != stdjson.Valid(b) {
						t.Fatalf("string at %d, %q at %d: Check %v, Valid %v", s, c, p, Check(b, 0), stdjson.Valid(b))
					}
				}
			}
		}
	}
}
