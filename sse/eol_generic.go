//go:build !amd64 || purego

package sse

import "bytes"

// indexEOL returns the index of the first LF or CR in b, or -1 if there is
// none.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	lf := i
	if i < 0 {
		i = len(b)
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return lf
}
