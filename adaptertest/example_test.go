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
