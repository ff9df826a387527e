//go:build !purego

package jsonguard

// indexSpecial returns the index of the first byte of b a string scan
// stops at, a quote, a backslash or a control character (< 0x20), and
// with high also the first byte >= 0x80; len(b) if there is none
// (special_amd64.s).
//
//go:noescape
func indexSpecial(b []byte, high bool) int
