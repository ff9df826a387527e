//go:build !purego

package sse

import "golang.org/x/sys/cpu"

// useAVX2 selects the AVX2 loop of indexEOL (read by eol_amd64.s).
//
//lint:ignore U1000 read by the assembly
var useAVX2 = cpu.X86.HasAVX2

// indexEOL returns the index of the first LF or CR in b, or -1 if there is
// none: one pass for both bytes (eol_amd64.s), where bytes.IndexByte
// finds only one.
//
//go:noescape
func indexEOL(b []byte) int
