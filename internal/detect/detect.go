// Package detect holds what content detection shares: the walk over the
// lines of a capture's head. The provider registry's rows and the parsers
// that export a Detect (parsers/gemini) use it, so that every detector
// reads a line the same way.
package detect

import (
	"bytes"
	"iter"
)

// bom is the UTF-8 byte order mark, which a capture may begin with (the
// ndjson package doc's rule: skipped, kept in the raw stream).
const bom = "\xef\xbb\xbf"

// Lines yields each line of head with the offset where it starts: the
// bytes up to its LF (the last line possibly cut, without one), without
// one trailing CR, and the first line without a leading BOM (its offset
// is still 0). It reads head once and never panics.
func Lines(head []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for off := 0; off < len(head); {
			l := head[off:]
			if n := bytes.IndexByte(l, '\n'); n >= 0 {
				l = l[:n]
			}
			at := off
			off += len(l) + 1
			l = bytes.TrimSuffix(l, []byte("\r"))
			if at == 0 {
				l = bytes.TrimPrefix(l, []byte(bom))
			}
			if !yield(at, l) {
				return
			}
		}
	}
}

// TrimBOM returns b without a leading BOM.
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte(bom)) }
