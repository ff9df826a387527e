package gemini_test

import (
	"fmt"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/parsers/gemini"
)

// Parse takes the HTTP status, the content type and the body of a
// streamGenerateContent?alt=sse response.
func ExampleParse() {
	body := "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"}}],\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n" +
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"lo\"}],\"role\": \"model\"},\"finishReason\": \"STOP\"}]," +
		"\"usageMetadata\": {\"promptTokenCount\": 5,\"candidatesTokenCount\": 2,\"thoughtsTokenCount\": 3,\"totalTokenCount\": 10}}\r\n\r\n"
	resp, err := gemini.Parse(200, "text/event-stream", strings.NewReader(body), &adaptertest.RecordingSink{}, gemini.Options{})
	fmt.Println(resp.Output, resp.Finish.Reason, resp.Finish.Raw, err)
	fmt.Printf("in %d, out %d (reasoning %d)\n", resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.Usage.ReasoningTokens)
	// Output:
	// Hello stop STOP <nil>
	// in 5, out 5 (reasoning 3)
}

// An HTTP error is a JSON body, even when served as text/event-stream.
func ExampleParse_error() {
	body := `{"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}`
	resp, _ := gemini.Parse(429, "text/event-stream", strings.NewReader(body), &adaptertest.RecordingSink{}, gemini.Options{})
	f := resp.Failure
	fmt.Println(f.Code, f.ErrorType, f.HTTPStatus, f.Message)
	// Output:
	// provider_error RESOURCE_EXHAUSTED 429 Resource has been exhausted
}
