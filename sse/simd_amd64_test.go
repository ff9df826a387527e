//go:build !purego

package sse

import "testing"

// TestSSE2 runs the tests of the line-end searches (indexEOL, scanBlock)
// on their SSE2 code, which a CPU without AVX2 takes, where the other tests
// run the AVX2 code.
func TestSSE2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2: the other tests ran the SSE2 code")
	}
	useAVX2 = false
	defer func() { useAVX2 = true }()
	t.Run("indexEOL", TestIndexEOL)
	t.Run("scanBlock", TestScanBlock)
}
