package sse

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/internal/chunk"
)

// In-package benchmarks of the steady state; the comparison with the peers
// is in the separate bench module (bench/sse).
func BenchmarkNext(b *testing.B) {
	var openai, anth, large strings.Builder
	for i := range 200 {
		fmt.Fprintf(&openai, "data: {\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok %d\"},\"finish_reason\":null}]}\n\n", i)
		fmt.Fprintf(&anth, "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t%d\"}}\r\n\r\n", i)
	}
	for range 2 {
		for large.Len() < 4<<20 {
			large.WriteString("data: " + strings.Repeat("Q", 4000) + "\n")
		}
		large.WriteString("\n")
	}
	for _, w := range []struct{ name, in string }{{"openai", openai.String()}, {"anthropic-crlf", anth.String()}, {"large", large.String()}} {
		for _, rs := range []int{16 << 10, 1 << 10} {
			b.Run(fmt.Sprintf("%s/%d", w.name, rs), func(b *testing.B) {
				in := []byte(w.in)
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					r := NewReader(chunk.Sizes(in, rs), Options{})
					for {
						_, err := r.Next()
						if err != nil {
							break
						}
					}
				}
			})
		}
	}
	b.Run("baseline-indexbyte", func(b *testing.B) {
		in := []byte(openai.String())
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			n := 0
			for p := in; ; {
				i := bytes.IndexByte(p, '\n')
				if i < 0 {
					break
				}
				n++
				p = p[i+1:]
			}
		}
	})
}

// BenchmarkSteady measures Next on an endless stream: no per-stream setup.
func BenchmarkSteady(b *testing.B) {
	var openai, anth strings.Builder
	for i := range 200 {
		fmt.Fprintf(&openai, "data: {\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok %d\"},\"finish_reason\":null}]}\n\n", i)
		fmt.Fprintf(&anth, "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t%d\"}}\r\n\r\n", i)
	}
	for _, w := range []struct{ name, in string }{{"openai", openai.String()}, {"anthropic-crlf", anth.String()}} {
		b.Run(w.name, func(b *testing.B) {
			in := []byte(w.in)
			r := NewReader(&loopReader{data: in, max: 16 << 10}, Options{})
			b.SetBytes(int64(len(in)) / 200)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
