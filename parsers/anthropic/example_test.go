package anthropic_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/parsers/anthropic"
)

func ExampleParseHTTP() {
	// The response of POST /v1/messages with "stream": true, as net/http
	// (or an SDK's raw-response accessor) returns it.
	body := "event: message_start\n" +
		`data: {"type":"message_start","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":12,"cache_read_input_tokens":2048,"output_tokens":1}}}` + "\n\n" +
		"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}` + "\n\n" +
		"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0}` + "\n\n" +
		"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":5}}` + "\n\n" +
		"event: message_stop\n" + `data: {"type":"message_stop"}` + "\n\n"
	resp := &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}},
		Body:       io.NopCloser(strings.NewReader(body)),
	}
	sink := &adaptertest.RecordingSink{}
	r, err := anthropic.ParseHTTP(resp, sink, anthropic.Options{Streaming: true}, anthropic.Outcome{})
	fmt.Println(err, r.Output, r.Finish.Reason, r.Finish.Raw)
	fmt.Printf("input %d (cached %d), output %d\n", r.Usage.InputTokens, r.Usage.CachedInputTokens, r.Usage.OutputTokens)
	fmt.Println(len(sink.Payloads), "payloads,", len(sink.Check(true, anthropic.Capability, r, err, nil)), "violations")
	// Output:
	// <nil> Hello length max_tokens
	// input 2060 (cached 2048), output 5
	// 5 payloads, 0 violations
}

func ExampleParse_httpError() {
	body := strings.NewReader(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`)
	r, _ := anthropic.Parse(body, &adaptertest.RecordingSink{}, anthropic.Options{HTTPStatus: 529, ContentType: "application/json"}, anthropic.Outcome{})
	f := r.Failure
	fmt.Println(f.Code, f.HTTPStatus, f.ErrorType, f.Message, r.Usage == nil, r.Finish.Reason, r.Finish.Raw)
	// Output:
	// provider_error 529 overloaded_error Overloaded true error overloaded_error
}
