package openai

import (
	"bytes"
	"hash/fnv"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
)

// fuzzStatuses and fuzzFormats are picked by the mode byte.
var (
	fuzzStatuses = []int{200, 0, 429, 500, 400, 204}
	fuzzFormats  = []Format{Auto, Chat, Responses}
)

// FuzzParse holds the parser to the validators on any body: zero
// violations streaming and not, the same result under a random chunking
// and a byte-at-a-time one, the exact body kept, and success only with a
// terminal the format has ([DONE] or a finish_reason; response.completed
// or response.incomplete; a non-streamed document).
func FuzzParse(f *testing.F) {
	// The small corpus cases only: a large seed makes every minimization
	// slow.
	for _, c := range corpusCases(f) {
		if len(c.body) <= 16<<10 {
			f.Add([]byte(c.body), byte(0))
		}
	}
	f.Add([]byte(sseOf(chunk(delta(`{"content":"a"}`)), chunk(finished("stop")))+done), byte(1*len(fuzzStatuses)))
	f.Add([]byte(sseOf(chunk(delta(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a"}}]}`)))), byte(1*len(fuzzStatuses)))
	f.Add([]byte(events(seq(created, callEvents(0, "call_a", "f", `{"a":`, `1}`), completed)...)), byte(2*len(fuzzStatuses)))
	f.Add([]byte(`{"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}}`), byte(2))
	f.Add([]byte(`{"id":"chatcmpl-3","object":"chat.completion","choices":[{"index":0,"message":{"content":"x"},"finish_reason":"stop"}]}`), byte(0))
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		if len(data) > 1<<20 {
			return
		}
		status := fuzzStatuses[int(mode)%len(fuzzStatuses)]
		opts := Options{Format: fuzzFormats[int(mode)/len(fuzzStatuses)%len(fuzzFormats)], Streaming: true}
		body := string(data)
		whole, v := run(status, "text/event-stream", body, opts, nil)
		if len(v) > 0 {
			t.Fatalf("violations:\n%s", v)
		}
		if whole.Response.RawStreams == nil || whole.Response.RawStreams.Stdout != body {
			t.Fatal("the raw body differs from the input")
		}
		h := fnv.New64a()
		h.Write(data)
		chunked, _ := run(status, "text/event-stream", body, opts, chunkings(h.Sum64() + uint64(mode))[3].Mk)
		if !cmp.Equal(whole, chunked) {
			t.Fatalf("random chunking differs (-whole +chunked):\n%s", cmp.Diff(whole, chunked))
		}
		opts.Streaming = false
		plain, v := run(status, "text/event-stream", body, opts, func(s string) io.Reader { return &parsertest.ChunkReader{S: s, Sizes: []int{1}} })
		if len(v) > 0 {
			t.Fatalf("non-streaming violations:\n%s", v)
		}
		if !cmp.Equal(whole.Response, plain.Response) {
			t.Fatalf("the non-streaming response differs:\n%s", cmp.Diff(whole.Response, plain.Response))
		}
		ok2xx := status == 0 || status/100 == 2
		switch fl := whole.Response.Failure; {
		case fl == nil:
			terminal := bytes.Contains(data, []byte("[DONE]")) || bytes.Contains(data, []byte("finish_reason")) ||
				bytes.Contains(data, []byte("response.")) || bytes.Contains(data, []byte(`"response"`)) || bytes.Contains(data, []byte("status"))
			if !ok2xx || !terminal {
				t.Fatalf("success without a terminal under status %d", status)
			}
			if whole.Response.Finish == nil || !whole.Response.Finish.Reason.Success() {
				t.Fatalf("success with finish %+v", whole.Response.Finish)
			}
		case fl.Code == driver.FailureProviderError:
			if ok2xx && !bytes.Contains(data, []byte("error")) {
				t.Fatalf("provider error without an error under status %d: %+v", status, fl)
			}
		}
	})
}

// FuzzWalk holds the in-place walk to encoding/json's reading of the
// members it picks: for any object Check accepts, the walk sees the same
// member names, in order, as a token decoder.
func FuzzWalk(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[{"c":"d"}],"e\u0066":"x\n","g":{"h":null}}`))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"é"}}],"usage":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWalk(t, data)
	})
}
