package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"runtime/metrics"

	"github.com/agentwire/agentwire/internal/chunk"
)

// The limits the targets run with. They are far below the production
// defaults so that the oversize paths are reached by small inputs.
const (
	// MaxInput is the largest input a target examines; longer inputs are
	// accepted and ignored, to keep executions fast.
	MaxInput = 1 << 20
	// SSEMaxEvent is sse.Options.MaxEventSize in the SSE targets.
	SSEMaxEvent = 512
	// LineMax is the MaxLineSize of the NDJSON and JSON-RPC targets.
	LineMax = 1024
	// Depth is the JSON nesting limit of the JSON-RPC target.
	Depth = 32
)

// Work bounds: a check fails when a reader makes more than
// readsPerByte*len(input)+readsFixed Read calls, or returns more than
// len(input)+framesFixed frames and errors.
const (
	readsPerByte = 2
	readsFixed   = 16
	framesFixed  = 4
)

// counter is the work counter wrapped around every source: the readers have
// none of their own, so the check counts the Read calls made and the bytes
// delivered.
type counter struct {
	r     io.Reader
	reads int
	bytes int
}

func (c *counter) Read(p []byte) (int, error) {
	c.reads++
	n, err := c.r.Read(p)
	c.bytes += n
	return n, err
}

// check returns an error unless the source was read exactly once, in a
// number of calls linear in its length.
func (c *counter) check(what string, n int) error {
	if c.bytes != n {
		return fmt.Errorf("%s: read %d bytes of a %d-byte input", what, c.bytes, n)
	}
	if limit := readsPerByte*n + readsFixed; c.reads > limit {
		return fmt.Errorf("%s: %d Read calls for %d bytes (bound %d)", what, c.reads, n, limit)
	}
	return nil
}

// chunked delivers data as the chunking checks read it: size 0 is
// chunk.Random seeded by the input's hash (a failure reproduces from the
// input alone), size > 0 reads of that size.
func chunked(data []byte, size int) io.Reader {
	if size <= 0 {
		return chunk.Random(Seed(data)).Reader(data)
	}
	return chunk.Sizes(data, size)
}

// Seed is the FNV-64a hash of data: it seeds the chunking and the modes a
// target derives from its input.
func Seed(data []byte) uint64 {
	h := fnv.New64a()
	h.Write(data)
	return h.Sum64()
}

// budget measures the bytes allocated by one check, with the cumulative
// heap allocation counter of runtime/metrics (read without stopping the
// world, unlike runtime.ReadMemStats). It is coarse on purpose: the
// counter covers every goroutine (the fuzz worker's own included) and is
// flushed per P, so the bound is generous: allocPerByte per input byte
// plus allocFixed.
type budget struct{ start uint64 }

const allocMetric = "/gc/heap/allocs:bytes"

func allocated() uint64 {
	s := []metrics.Sample{{Name: allocMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// allocPerByte was 512 (the codex parser then allocated 535 bytes per
// input byte on a stream of tiny unknown lines, and a check of such a
// stream could pass); with the exact-size Raw maps and no transcript item
// per unknown event the worst measured stream is 200 (codex, 50,000 lines
// of {"type":"x"}, one check: parse, recording sink and validators).
const (
	allocPerByte = 256
	allocFixed   = 8 << 20
)

func startBudget() budget {
	return budget{allocated()}
}

func (b budget) check(what string, n int) error {
	used := allocated() - b.start
	if limit := uint64(allocPerByte*n + allocFixed); used > limit {
		return fmt.Errorf("%s: allocated %d bytes for a %d-byte input (bound %d)", what, used, n, limit)
	}
	return nil
}

// errTee is returned when a Tee did not see exactly the input.
var errTee = errors.New("tee differs from the input")

func teeCheck(what string, tee *bytes.Buffer, data []byte) error {
	if !bytes.Equal(tee.Bytes(), data) {
		return fmt.Errorf("%s: %w (%d bytes teed, %d read)", what, errTee, tee.Len(), len(data))
	}
	return nil
}
