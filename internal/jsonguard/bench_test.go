package jsonguard

import (
	"bytes"
	"os"
	"testing"
)

// benchLines are real Claude stream-json lines (testdata/peek-bench.jsonl:
// ariel-frischer/claude-clean mocks/claude-stream-json-simple.jsonl,
// claude-code 2.0.25, MIT) plus a synthetic stream_event line, the shapes
// PeekString sees most. PEEK_BENCH_FILE overrides the file.
func benchLines(b *testing.B) [][]byte {
	name := "testdata/peek-bench.jsonl"
	if env := os.Getenv("PEEK_BENCH_FILE"); env != "" {
		name = env
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Skip(err)
	}
	return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
}

func BenchmarkPeekString(b *testing.B) {
	lines := benchLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, l := range lines {
			if _, ok := PeekString(l, "type", nil); !ok {
				b.Fatal("no type")
			}
		}
	}
}

func BenchmarkCheckDepth(b *testing.B) {
	lines := benchLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, l := range lines {
			if CheckDepth(l, 0) != nil {
				b.Fatal("too deep")
			}
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	lines := benchLines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, l := range lines {
			if Check(l, 0) != nil {
				b.Fatal("invalid")
			}
		}
	}
}
