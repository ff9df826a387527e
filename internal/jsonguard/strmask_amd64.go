//go:build !purego

package jsonguard

import "golang.org/x/sys/cpu"

// useAVX2 selects specialBlocks' AVX2 loop (read by strmask_amd64.s).
//
//lint:ignore U1000 read by the assembly
var useAVX2 = cpu.X86.HasAVX2

// specialBlocks writes, for each 64-byte block of b (len(b) is
// len(out)*64), the block's mask of quotes, backslashes and control bytes
// (see strMasks) to out: AVX2 when the CPU has it, 32 bytes per step,
// otherwise SSE2, 16 (strmask_amd64.s).
//
//go:noescape
func specialBlocks(b []byte, out []uint64)
