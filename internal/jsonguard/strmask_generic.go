//go:build !amd64 || purego

package jsonguard

import "encoding/binary"

// specialBlocks writes, for each 64-byte block of b (len(b) is
// len(out)*64), the block's mask of quotes, backslashes and control bytes
// (see strMasks) to out, eight bytes at a time (specialWord).
func specialBlocks(b []byte, out []uint64) {
	for k := range out {
		blk := b[k<<6 : k<<6+64]
		var m uint64
		for j := 0; j < 64; j += 8 {
			m |= specialWord(binary.LittleEndian.Uint64(blk[j:])) << j
		}
		out[k] = m
	}
}
