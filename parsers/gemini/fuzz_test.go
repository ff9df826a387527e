package gemini

import (
	"bytes"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
)

// fuzzStatuses are the HTTP statuses a fuzz input can select.
var fuzzStatuses = []int{200, 0, 400, 429, 500, 503}

// FuzzParse parses whole bodies and checks, for any input: no panic (of
// Parse and of Detect); zero
// violations of the validators (the lifecycle grammar, the finish rules,
// the transcript mirror, the response rules); the same result under a
// random chunking and without streaming; the raw body kept byte for byte;
// and a success only when the input holds a finishReason or a blockReason
// under a 2xx status, a provider error only when it holds an error member
// or the status is not 2xx.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(corpusRoot, "*", "*", "stdout"))
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b, byte(0))
	}
	f.Add([]byte(sseBody(evText1, evText2)), byte(0))
	f.Add([]byte("["+evText1+","+evText2+"]"), byte(1))
	f.Add([]byte(`{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`), byte(5))
	f.Add([]byte(sseBody(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[2].b","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`)), byte(0))
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		Detect(data) // must not panic
		status := fuzzStatuses[int(mode)%len(fuzzStatuses)]
		body := string(data)
		opts := Options{Streaming: true}
		whole, v := run(status, body, opts, nil)
		if len(v) > 0 {
			t.Fatalf("violations:\n%s", v)
		}
		if whole.Response.RawStreams.Stdout != body {
			t.Fatal("raw body differs from the input")
		}
		h := fnv.New64a()
		h.Write(data)
		chunked, _ := run(status, body, opts, chunkings(h.Sum64() + uint64(mode))[3].Mk)
		if !cmp.Equal(whole, chunked) {
			t.Fatalf("random chunking differs (-whole +chunked):\n%s", cmp.Diff(whole, chunked))
		}
		plain, v := run(status, body, Options{}, func(s string) io.Reader { return &parsertest.ChunkReader{S: s, Sizes: []int{1}} })
		if len(v) > 0 {
			t.Fatalf("non-streaming violations:\n%s", v)
		}
		if !cmp.Equal(whole.Response, plain.Response) {
			t.Fatalf("non-streaming response differs:\n%s", cmp.Diff(whole.Response, plain.Response))
		}
		ok2xx := status == 0 || status/100 == 2
		switch f := whole.Response.Failure; {
		case f == nil:
			if !ok2xx || !bytes.Contains(data, []byte("finishReason")) && !bytes.Contains(data, []byte("blockReason")) {
				t.Fatalf("success without a finishReason or blockReason under status %d", status)
			}
		case f.Code == driver.FailureProviderError:
			if ok2xx && !bytes.Contains(data, []byte(`"error"`)) {
				t.Fatalf("provider error without an error member under status %d: %+v", status, f)
			}
		}
	})
}
