//go:build !purego

package sse

// scanBlock matches the fast layout (see block.go) at the start of b: it
// returns blockMatch and fills s when b starts with a whole block of the
// layout, blockShort when b ends while its start still fits the layout, and
// blockOther otherwise (s is then left as it may be). block_amd64.s; the
// line ends are searched as indexEOL does, 32 bytes at a time with AVX2, 16
// with SSE2.
//
//go:noescape
func scanBlock(b []byte, s *block) int
