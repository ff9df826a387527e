// Package chunk is the one set of chunkings agentwire's tests deliver
// input under: whole, one line per read, one byte per read, and seeded
// random reads, plus the reader of a given size plan. corpus (as
// corpus.Chunking, Whole, Lines, Bytes, Random, Chunkings), the parser
// tests (internal/parsertest), fuzz and the framing packages' tests use
// it, so "the same result under every chunking" means the same thing
// everywhere.
package chunk

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
)

// Chunking delivers a byte slice through an io.Reader in some pattern of
// reads.
type Chunking struct {
	Name   string
	Reader func(b []byte) io.Reader
}

var (
	// Whole delivers the input in reads as large as the caller asks.
	Whole = Chunking{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }}
	// Lines delivers one line (terminator included) per read.
	Lines = Chunking{"lines", func(b []byte) io.Reader { return &lineReader{b: b} }}
	// Bytes delivers one byte per read.
	Bytes = Chunking{"bytes", func(b []byte) io.Reader { return Sizes(b, 1) }}
)

// Random delivers reads in a sequence fixed by seed: mostly of 1 to 64
// bytes, and one in 16 of 1 to 4096, so that small reads and reads across
// a reader's buffer boundaries meet in one stream (fuzz seeds it with the
// input's hash, so that a failure reproduces from the input alone).
func Random(seed uint64) Chunking {
	return Chunking{fmt.Sprintf("random(%d)", seed), func(b []byte) io.Reader {
		return &randReader{b: b, r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	}}
}

// All returns Whole, Lines, Bytes and Random(seed).
func All(seed uint64) []Chunking { return []Chunking{Whole, Lines, Bytes, Random(seed)} }

// Sizes returns a reader of b whose reads take the sizes in turn, cycling
// (no sizes: all of b at once, as far as the caller's buffer allows). A
// size of 0 or less is an empty read (0, nil), which io.Reader allows.
func Sizes(b []byte, sizes ...int) io.Reader { return &sizeReader{b: b, sizes: sizes} }

type sizeReader struct {
	b     []byte
	sizes []int
	i     int
}

func (r *sizeReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := len(r.b)
	if len(r.sizes) > 0 {
		n = r.sizes[r.i%len(r.sizes)]
		r.i++
		if n <= 0 {
			return 0, nil
		}
	}
	n = copy(p, r.b[:min(n, len(r.b))])
	r.b = r.b[n:]
	return n, nil
}

type lineReader struct{ b []byte }

func (r *lineReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := bytes.IndexByte(r.b, '\n') + 1
	if n == 0 {
		n = len(r.b)
	}
	n = copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

type randReader struct {
	b []byte
	r *rand.Rand
}

func (r *randReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := 1 + r.r.IntN(64)
	if r.r.IntN(16) == 0 {
		n = 1 + r.r.IntN(4096)
	}
	n = copy(p, r.b[:min(n, len(r.b))])
	r.b = r.b[n:]
	return n, nil
}
