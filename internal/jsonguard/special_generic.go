//go:build !amd64 || purego

package jsonguard

import (
	"encoding/binary"
	"math/bits"
)

// indexSpecial returns the index of the first byte of b a string scan
// stops at, a quote, a backslash or a control character (< 0x20), and
// with high also the first byte >= 0x80; len(b) if there is none. It
// looks at eight bytes at a time (strSpecialMask).
func indexSpecial(b []byte, high bool) int {
	var highs uint64
	if high {
		highs = 0x8080808080808080
	}
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if m := strSpecialMask(x) | x&highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if strSpecial[b[i]] || high && b[i] >= 0x80 {
			return i
		}
	}
	return len(b)
}
