//go:build !purego

package jsonguard

// specialBlocks writes, for each 64-byte block of b (len(b) is
// len(out)*64), the block's mask of quotes, backslashes and control bytes
// (see strMasks) to out: SSE2, sixteen bytes per step
// (strmask_amd64.s).
//
//go:noescape
func specialBlocks(b []byte, out []uint64)
