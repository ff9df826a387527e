//go:build !purego

package jsonguard

import "testing"

// TestSpecialBlocksSSE2 runs TestSpecialBlocks and the window tests on
// specialBlocks' SSE2 loop, which a CPU without AVX2 takes, where the
// other tests run the AVX2 one.
func TestSpecialBlocksSSE2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2: the other tests ran the SSE2 loop")
	}
	useAVX2 = false
	defer func() { useAVX2 = true }()
	t.Run("blocks", TestSpecialBlocks)
	t.Run("window", TestWalkWindowEdge)
}
