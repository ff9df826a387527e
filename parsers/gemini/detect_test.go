package gemini

import (
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range publicCases(t) {
		if off, ok := Detect([]byte(c.body)); !ok || off != 0 {
			t.Errorf("%s: Detect = %d, %v", c.name, off, ok)
		}
		// Cut anywhere after the first event's member names, still Gemini.
		if n := min(len(c.body), 200); n > 60 {
			if _, ok := Detect([]byte(c.body[:n])); !ok {
				t.Errorf("%s cut at %d: not detected", c.name, n)
			}
		}
	}
	for _, in := range []string{
		"", "hello\n", `{"hello":"world"}`, "\x00\x01", "data: [DONE]\n\n",
		`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[]}` + "\n\n",
		`{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":"x"}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
		`{"type":"thread.started","thread_id":"t"}` + "\n",
	} {
		if off, ok := Detect([]byte(in)); ok {
			t.Errorf("Detect(%q) = %d, true", in, off)
		}
	}
	if off, ok := Detect([]byte(": keep-alive\r\n\r\ndata: " + evText1 + "\r\n\r\n")); !ok || off != 16 {
		t.Errorf("after a comment: %d, %v", off, ok)
	}
}
