// Package ssebench compares agentwire's sse.Reader with the Go SSE peers on
// generated provider-like workloads. It lives in the separate bench module
// so that the peers never enter the main module's dependencies.
package ssebench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Workload is a generated SSE stream with the number of events a correct
// reader dispatches and the total size of their data.
type Workload struct {
	Name      string
	Input     []byte
	Events    int
	DataBytes int
}

func words(r *rand.Rand, n int) string {
	vocab := []string{"the", "model", "streams", "tokens", "über", "naïve", "—", "JSON", "delta", "tool", "call", "résumé", "🙂", "\\n", "\\\"quoted\\\"", "x"}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocab[r.IntN(len(vocab))])
	}
	return b.String()
}

// OpenAIChat is about 20,000 chat.completion.chunk "data:" events (LF), a
// usage chunk and "data: [DONE]".
func OpenAIChat() Workload {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	w := Workload{Name: "openai-chat"}
	add := func(data string) {
		b.WriteString("data: ")
		b.WriteString(data)
		b.WriteString("\n\n")
		w.Events++
		w.DataBytes += len(data)
	}
	for i := range 20000 {
		add(fmt.Sprintf(`{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{"content":"%s"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"%d"}`, words(r, 1+r.IntN(6)), i))
	}
	add(`{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`)
	add(`{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":1117,"completion_tokens":46,"total_tokens":1163}}`)
	add("[DONE]")
	w.Input = b.Bytes()
	return w
}

// AnthropicCRLF is about 20,000 Anthropic Messages events ("event:" and
// "data:" lines) with CRLF line endings: message_start, thinking, text and
// tool_use blocks with deltas, pings, message_delta and message_stop.
func AnthropicCRLF() Workload {
	r := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	w := Workload{Name: "anthropic-crlf"}
	add := func(event, data string) {
		b.WriteString("event: " + event + "\r\ndata: " + data + "\r\n\r\n")
		w.Events++
		w.DataBytes += len(data)
	}
	add("message_start", `{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2}}}`)
	block := 0
	for w.Events < 20000 {
		switch r.IntN(3) {
		case 0:
			add("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, block))
			for range 20 + r.IntN(40) {
				add("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":"%s"}}`, block, words(r, 1+r.IntN(5))))
			}
		case 1:
			add("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, block))
			for range 20 + r.IntN(80) {
				add("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":"%s"}}`, block, words(r, 1+r.IntN(4))))
				if r.IntN(50) == 0 {
					add("ping", `{"type": "ping"}`)
				}
			}
		default:
			add("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}`, block))
			for range 5 + r.IntN(20) {
				add("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"%s"}}`, block, words(r, 1+r.IntN(3))))
			}
		}
		add("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, block))
		block++
	}
	add("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`)
	add("message_stop", `{"type":"message_stop"}`)
	w.Input = b.Bytes()
	return w
}

// LargeMultiline is 8 events of 64 KiB to 1 MiB: 7 split over "data:"
// lines of 1 to 4096 bytes, and one single 1 MiB line.
func LargeMultiline() Workload {
	r := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	w := Workload{Name: "large-multiline"}
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	line := func(n int) string {
		s := make([]byte, n)
		for i := range s {
			s[i] = alpha[r.IntN(len(alpha))]
		}
		return string(s)
	}
	sizes := []int{64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 96 << 10, 768 << 10}
	for i, size := range sizes {
		b.WriteString("event: image_chunk\n")
		n := 0
		for j := 0; n < size; j++ {
			if j > 0 {
				n++ // the joining LF
			}
			l := line(max(1, min(1+r.IntN(4096), size-n)))
			b.WriteString("data: " + l + "\n")
			n += len(l)
		}
		b.WriteString("\n")
		w.Events++
		w.DataBytes += n
		if i == 3 {
			one := line(1 << 20)
			b.WriteString("data: " + one + "\n\n")
			w.Events++
			w.DataBytes += len(one)
		}
	}
	w.Input = b.Bytes()
	return w
}

// Workloads returns the three workloads.
func Workloads() []Workload { return []Workload{OpenAIChat(), AnthropicCRLF(), LargeMultiline()} }

// ChunkReader returns at most N bytes per Read, like a TLS record or a
// small socket read. It is not an io.Closer.
type ChunkReader struct {
	data []byte
	N    int
}

// NewChunkReader returns a ChunkReader over data.
func NewChunkReader(data []byte, n int) *ChunkReader { return &ChunkReader{data: data, N: n} }

func (c *ChunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.N)], c.data)
	c.data = c.data[n:]
	return n, nil
}
