// Package seq is the iterator the three framing packages (sse, ndjson,
// jsonrpc) hand out as All, so that their shared verb behaves the same in
// each: the pairs of Next up to and including a fatal error, silence at
// io.EOF, and a Reader left as it is when the caller breaks out.
package seq

import (
	"io"
	"iter"
)

// Frames returns an iterator over next's pairs: each frame with its error
// (nil, or one that recoverable accepts), up to and including the first
// error recoverable refuses; it stops without yielding at io.EOF. When the
// caller breaks out, next is not called again: a later Next or All of the
// same Reader goes on with the frame after the last one yielded.
func Frames[F any](next func() (F, error), recoverable func(error) bool) iter.Seq2[F, error] {
	return func(yield func(F, error) bool) {
		for {
			f, err := next()
			if err == io.EOF {
				return
			}
			if !yield(f, err) {
				return
			}
			if err != nil && !recoverable(err) {
				return
			}
		}
	}
}
