package anthropic

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentwire/agentwire/internal/parsertest"
)

// FuzzParse holds the parser to the contract on any body: whatever the
// bytes, the status and the content type, the validators find nothing,
// a random chunking gives the result of the whole delivery, and the raw
// body is kept exactly.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(publicCaptures)
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 64<<10 {
			f.Add(b, uint16(200), false)
		}
	}
	f.Add([]byte(events(evStart, evText0, textDelta("0", "x"), `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)), uint16(200), false)
	f.Add([]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), uint16(429), true)
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\ndata: [DONE]\n"), uint16(0), false)
	f.Fuzz(func(t *testing.T, body []byte, status uint16, jsonType bool) {
		opts := Options{HTTPStatus: int(status)}
		if jsonType {
			opts.ContentType = "application/json"
		}
		s := string(body)
		whole, vs := run(t, &parsertest.ChunkReader{S: s}, opts, Outcome{})
		if len(vs) != 0 {
			t.Fatalf("violations:\n%s", vs)
		}
		if whole.Response.RawStreams.Stdout != s {
			t.Fatal("raw body not kept")
		}
		sizes := []int{1 + len(body)%7, 3, 1, 11}
		chunked, vs := run(t, &parsertest.ChunkReader{S: s, Sizes: sizes}, opts, Outcome{})
		if len(vs) != 0 {
			t.Fatalf("chunked violations:\n%s", vs)
		}
		if d := cmp.Diff(whole, chunked); d != "" {
			t.Fatalf("chunked delivery differs (-whole +chunked):\n%s", d)
		}
	})
}
