package fuzz

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// oneByteMax is the largest input the chunking target also feeds one byte
// at a time (1-byte reads cost a call per byte through every layer).
const oneByteMax = 1 << 10

// CheckChunking is the FuzzChunking oracle, a differential over chunkings:
// the same input read whole, in random chunks (seeded by the input) and,
// when short, one byte at a time, through every reader (pull and push
// faces) and every provider parser, must give identical frames, errors,
// emitted events and payloads, and responses.
func CheckChunking(data []byte) error {
	type reader struct {
		name string
		pull func(ch io.Reader) ([]string, error)
		push func(ch io.Reader) ([]string, error)
	}
	readers := []reader{
		{"sse", func(ch io.Reader) ([]string, error) { return SSEFrames(ch, data) }, func(ch io.Reader) ([]string, error) { return SSEPush(data, ch) }},
		{"ndjson", func(ch io.Reader) ([]string, error) { return NDJSONFrames(ch, data) }, func(ch io.Reader) ([]string, error) { return NDJSONPush(data, ch) }},
		{"jsonrpc", func(ch io.Reader) ([]string, error) { return JSONRPCFrames(ch, data) }, func(ch io.Reader) ([]string, error) { return JSONRPCPush(data, ch) }},
	}
	sizes := []int{0}
	if len(data) <= oneByteMax {
		sizes = append(sizes, 1)
	}
	for _, r := range readers {
		whole, err := r.pull(chunked(data, len(data)+1))
		if err != nil {
			return err
		}
		for _, size := range sizes {
			for face, run := range map[string]func(io.Reader) ([]string, error){"Reader": r.pull, "Decoder": r.push} {
				got, err := run(chunked(data, size))
				if err != nil {
					return err
				}
				if err := diff(fmt.Sprintf("%s: whole vs %s in %s", r.name, face, sizeName(size)), whole, got); err != nil {
					return err
				}
			}
		}
	}
	mode := Seed(data)
	for _, p := range Providers() {
		whole, err := p.Run(bytes.NewReader(data), strings.NewReader(stderrOf), mode)
		if err != nil {
			return err
		}
		for _, size := range sizes {
			got, err := p.Run(chunked(data, size), chunked([]byte(stderrOf), size), mode)
			if err != nil {
				return err
			}
			for _, c := range []struct {
				what string
				a, b any
			}{
				{"response", whole.Response, got.Response},
				{"events", whole.Sink.Events, got.Sink.Events},
				{"payloads", whole.Sink.Payloads, got.Sink.Payloads},
				{"error", fmt.Sprint(whole.Err), fmt.Sprint(got.Err)},
			} {
				if d := cmp.Diff(c.a, c.b); d != "" {
					return fmt.Errorf("%s: %s whole vs %s differ (-whole +chunked):\n%s", p.Name, c.what, sizeName(size), d)
				}
			}
		}
	}
	return nil
}

func sizeName(size int) string {
	if size == 0 {
		return "random chunks"
	}
	return fmt.Sprintf("%d-byte chunks", size)
}
