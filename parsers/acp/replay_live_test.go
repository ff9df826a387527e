package acp

import (
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/jsonrpc"
)

// TestLoadHistoryAfterResponse: an agent that streams a loaded session's
// history after its load response (Gemini CLI 0.61.0), fed as a live
// driver feeds it (each client line when written): the updates before the
// client's session/prompt are history, the ones after are the turn.
func TestLoadHistoryAfterResponse(t *testing.T) {
	client := func(s string) jsonrpc.Frame {
		f, err := jsonrpc.ClassifyBytes([]byte(s), jsonrpc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	sink := &adaptertest.RecordingSink{}
	p := New(sink, Options{Streaming: true})
	steps := []struct {
		client bool
		line   string
	}{
		{true, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`},
		{false, initResp(0, true)},
		{true, `{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"sess-1","cwd":"/w","mcpServers":[]}}`},
		{false, `{"jsonrpc":"2.0","id":1,"result":{"modes":null}}`},
		{false, text("user_message_chunk", "first prompt")},
		{false, text("agent_message_chunk", "old answer")},
		{true, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"again"}]}}`},
		{false, text("agent_message_chunk", "new answer")},
		{false, promptResp(2, "end_turn", "")},
	}
	for _, st := range steps {
		f := client(st.line)
		var err error
		if st.client {
			err = p.FeedClient(f)
		} else {
			err = p.Feed(f)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	resp, err := p.Finish(Outcome{})
	if v := sink.Check(true, Capability, resp, err, Codec); len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	if resp.Output != "new answer" || resp.Metadata[MetaReplayed] != "2" || !resp.Checkpoint.Valid {
		t.Fatalf("output %q metadata %v checkpoint %+v", resp.Output, resp.Metadata, resp.Checkpoint)
	}
}
