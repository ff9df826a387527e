package adaptertest_test

import (
	"fmt"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
)

func ExampleCheckStream() {
	capability := driver.StreamCapability{Native: true, TokenLevel: true}
	payloads := []driver.StreamPayload{
		{Kind: driver.StreamRunStarted},
		{Kind: driver.StreamTextStart, MessageID: "msg_1"},
		{Kind: driver.StreamTextContent, MessageID: "msg_1", Delta: "Hello"},
		{Kind: driver.StreamReasoningStart, MessageID: "rs_1"}, // Reasoning=false
		{Kind: driver.StreamRunFinished},
	}
	for _, v := range adaptertest.CheckStream(capability, payloads) {
		fmt.Println(v)
	}
	// Output:
	// EVT-12 [#3]: reasoning.start emitted although the capability forbids reasoning (Reasoning=false)
	// EVT-11 [#4]: text "msg_1" still open at the terminal
	// EVT-11 [#4]: reasoning "rs_1" still open at the terminal
}

func ExampleCheckFinish() {
	// A model-API stream that lost its connection after the text but was
	// reported as a success: no finish, no failure.
	capability := driver.StreamCapability{Native: true, TokenLevel: true, Finish: true}
	payloads := []driver.StreamPayload{
		{Kind: driver.StreamRunStarted},
		{Kind: driver.StreamTextStart, MessageID: "msg_1"},
		{Kind: driver.StreamTextContent, MessageID: "msg_1", Delta: "Hel"},
		{Kind: driver.StreamTextEnd, MessageID: "msg_1"},
		{Kind: driver.StreamRunFinished},
	}
	resp := driver.Response{Output: "Hel"}
	for _, v := range adaptertest.CheckStream(capability, payloads) {
		fmt.Println(v)
	}
	for _, v := range adaptertest.CheckFinish(capability, payloads, resp) {
		fmt.Println(v)
	}
	// Output:
	// FIN-01 [#4]: run.finished without a Finish although the capability reports one on every successful run
	// FIN-04: the run has neither a Finish nor a Failure; a stream that did not reach its terminal is incomplete, a failure
}
