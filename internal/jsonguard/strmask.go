package jsonguard

import (
	"encoding/binary"
	"math/bits"
)

// maskBlocks is how many 64-byte blocks of the checked bytes [check] keeps
// the string masks of at a time: 2 KiB of input, 256 bytes of stack.
const maskBlocks = 32

// walk indexes the window with x&(maskBlocks-1) (no bounds check): it
// must be a power of two, or this does not compile.
var _ = [1]struct{}{}[maskBlocks&(maskBlocks-1)]

// strMasks is the stage-1 index of [check]'s string scan: for a window of
// up to maskBlocks consecutive 64-byte blocks of b, one word per block
// whose bit k is set when byte k of the block is a quote, a backslash or
// a control byte (< 0x20), the bytes a string scan must stop at (the set
// of [StringEnd]). Bits for bytes past len(b) are clear. The window is
// filled on first use and moved forward when a scan reaches a block
// beyond it, so a line is indexed once, in the order it is read, with a
// bounded amount of memory.
type strMasks struct {
	first int // the absolute index (offset/64) of the window's first block
	n     int // blocks in the window; 0 before the first fill
	m     [maskBlocks]uint64
}

// fill indexes the blocks of b from block blk on (up to maskBlocks of
// them, fewer at the end of b); blk*64 < len(b).
func (s *strMasks) fill(b []byte, blk int) {
	lo := blk << 6
	hi := min(len(b), lo+maskBlocks<<6)
	full := (hi - lo) >> 6
	if full > 0 {
		specialBlocks(b[lo:lo+full<<6], s.m[:full])
	}
	s.first, s.n = blk, full
	if rest := hi - (lo + full<<6); rest > 0 {
		if hi >= 64 {
			// The 64 bytes that end at hi, shifted down to the rest.
			specialBlocks(b[hi-64:hi], s.m[full:full+1])
			s.m[full] >>= 64 - uint(rest)
		} else {
			s.m[full] = specialTail(b[lo+full<<6 : hi])
		}
		s.n++
	}
}

// end is [StringEnd] without its escaped result, for the literal whose
// opening quote is b[i]: the index just past its closing quote, and
// whether it is valid (terminated, no control byte, escapes well formed).
// It finds the bytes it must look at with the window's masks: a bit scan
// per special byte, where StringEnd reads the bytes between. The checks
// at each special byte are StringEnd's, so the results are the same.
func (s *strMasks) end(b []byte, i int) (int, bool) {
	i++
	for {
		if i >= len(b) {
			return 0, false
		}
		w := i>>6 - s.first
		if uint(w) >= uint(s.n) {
			s.fill(b, i>>6)
			w = 0
		}
		m := s.m[w] >> (uint(i) & 63)
		if m == 0 {
			i = (i | 63) + 1
			continue
		}
		i += bits.TrailingZeros64(m)
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return 0, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return 0, false
				}
				i += 6
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
}

// specialTail is the mask of one block of fewer than 64 bytes (see
// strMasks), eight bytes at a time with exact SWAR tests.
func specialTail(b []byte) uint64 {
	var m uint64
	k := 0
	for ; k+8 <= len(b); k += 8 {
		m |= specialWord(binary.LittleEndian.Uint64(b[k:])) << k
	}
	if k < len(b) {
		var w [8]byte
		for j := range w {
			w[j] = ' '
		}
		copy(w[:], b[k:])
		m |= specialWord(binary.LittleEndian.Uint64(w[:])) << k
	}
	return m
}

// specialWord returns a byte of mask bits, bit j for byte j of x
// (little-endian), set when the byte is a quote, a backslash or a control
// byte. Unlike strSpecialMask's, every mark is exact: (y&0x7f)+0x7f
// carries into a byte's top bit exactly when its low seven bits are not
// all zero, and never into the next byte.
func specialWord(x uint64) uint64 {
	const (
		lows = 0x7f7f7f7f7f7f7f7f
		ones = 0x0101010101010101
	)
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	// A byte is zero when neither its top bit nor the carry is set.
	nq := (q&lows + lows) | q
	nb := (bs&lows + lows) | bs
	// A byte is below 0x20 when its top bit is clear and (low seven
	// bits) + 0x60 does not reach 0x80.
	nc := (x&lows + ones*0x60) | x
	hit := ^(nq & nb & nc) & highs
	// Gather the eight top bits into one byte.
	return (hit >> 7) * 0x0102040810204080 >> 56
}
