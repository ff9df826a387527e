package sse

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// scanBlockRef is scanBlock by its definition in block.go, line by line: the
// first line an optional "event:" line, then a "data:" line, then a blank
// line, each ended by LF or CRLF.
func scanBlockRef(b []byte) (int, block) {
	var s block
	// line returns the end of the line starting at i (its terminator) and
	// the start of the next, or a result.
	line := func(i int) (e, next, r int) {
		for e = i; e < len(b); e++ {
			switch b[e] {
			case '\n':
				return e, e + 1, blockMatch
			case '\r':
				if e+1 == len(b) {
					return 0, 0, blockShort
				}
				if b[e+1] != '\n' {
					return 0, 0, blockOther
				}
				return e, e + 2, blockMatch
			}
		}
		return 0, 0, blockShort
	}
	value := func(i, n int) (int, bool) {
		v := i + n
		if v == len(b) {
			return 0, false
		}
		if b[v] == ' ' {
			v++
		}
		return v, true
	}
	i, lines := 0, 2
	if bytes.HasPrefix(b, []byte("event:")) {
		v, ok := value(0, 6)
		if !ok {
			return blockShort, s
		}
		e, next, r := line(v)
		if r != blockMatch {
			return r, s
		}
		s.ev0, s.ev1, i, lines = v, e, next, 3
	}
	if len(b)-i < 5 {
		return blockShort, s
	}
	if !bytes.HasPrefix(b[i:], []byte("data:")) {
		return blockOther, s
	}
	v, ok := value(i, 5)
	if !ok {
		return blockShort, s
	}
	e, next, r := line(v)
	if r != blockMatch {
		return r, s
	}
	s.d0, s.d1 = v, e
	// The blank line: its terminator is its first byte.
	if next == len(b) {
		return blockShort, s
	}
	if b[next] != '\n' && b[next] != '\r' {
		return blockOther, s
	}
	e, end, r := line(next)
	if r != blockMatch {
		return r, s
	}
	if e != next {
		panic("unreachable")
	}
	s.end, s.lines = end, lines
	return blockMatch, s
}

// TestScanBlock checks scanBlock against its definition on every prefix of
// blocks made of the layout's pieces and their near misses, with values of
// every length around the 16- and 32-byte loads, at every alignment.
func TestScanBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	heads := []string{"event:", "event: ", "event:  ", "even", "event", "evenT:", "data:", "data: ", "data:  ", "dat", "datA:", "id: 1\n", ": c\n", "\n", "\r\n", ""}
	eols := []string{"\n", "\r\n", "\r", "\rx", ""}
	val := func() string {
		n := r.IntN(80)
		if r.IntN(4) == 0 {
			n = r.IntN(300)
		}
		v := []byte(strings.Repeat("v", n))
		for i := range v {
			v[i] = "ab {}\x0b\x8a\x8d\x09:"[r.IntN(10)]
		}
		return string(v)
	}
	page := make([]byte, 4096)
	for range 20000 {
		var sb strings.Builder
		for range 1 + r.IntN(4) {
			sb.WriteString(heads[r.IntN(len(heads))])
			sb.WriteString(val())
			sb.WriteString(eols[r.IntN(len(eols))])
		}
		sb.WriteString(eols[r.IntN(len(eols))])
		sb.WriteString("data: next\n\n")
		in := sb.String()
		align := r.IntN(32)
		for n := 0; n <= len(in) && align+n <= len(page); n++ {
			b := page[align : align+n : align+n]
			copy(b, in)
			var got block
			gr := scanBlock(b, &got)
			wr, want := scanBlockRef(b)
			if gr != wr || gr == blockMatch && got != want {
				t.Fatalf("scanBlock(%q) = %d %+v, want %d %+v", b, gr, got, wr, want)
			}
		}
	}
}
