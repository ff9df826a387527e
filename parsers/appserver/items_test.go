package appserver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

func itemLines(started, completed string) []string {
	l := slices.Clone(sSession[:6])
	if started != "" {
		l = append(l, fmt.Sprintf(`{"method":"item/started","params":{"threadId":"th-1","turnId":"tu-1","item":%s}}`, started))
	}
	l = append(l, fmt.Sprintf(`{"method":"item/completed","params":{"threadId":"th-1","turnId":"tu-1","item":%s}}`, completed))
	return append(l, sDone)
}

func TestToolItems(t *testing.T) {
	for _, tc := range []struct {
		name, started, completed string
		tool                     string
		args, res                map[string]any
		text                     string
		isErr                    bool
	}{
		{"command failed", `{"type":"commandExecution","id":"i","command":"ls /x","cwd":"/w","status":"inProgress"}`,
			`{"type":"commandExecution","id":"i","command":"ls /x","cwd":"/w","status":"failed","aggregatedOutput":"no such file\n","exitCode":2,"durationMs":4}`,
			"shell", map[string]any{"command": "ls /x", "cwd": "/w"}, map[string]any{"status": "failed", "exit_code": 2, "output": "no such file\n", "duration_ms": int64(4)}, "no such file\n", true},
		{"file change", `{"type":"fileChange","id":"i","changes":[{"path":"a.go","kind":{"type":"add"},"diff":"+x"}],"status":"inProgress"}`,
			`{"type":"fileChange","id":"i","changes":[{"path":"a.go","kind":{"type":"add"},"diff":"+x"}],"status":"completed"}`,
			"file_change", map[string]any{"changes": []any{map[string]any{"path": "a.go", "kind": map[string]any{"type": "add"}}}},
			map[string]any{"status": "completed", "changes": []any{map[string]any{"path": "a.go", "kind": map[string]any{"type": "add"}, "diff": "+x"}}}, "", false},
		{"mcp error", `{"type":"mcpToolCall","id":"i","server":"gh","tool":"search","arguments":{"q":"x"},"status":"inProgress"}`,
			`{"type":"mcpToolCall","id":"i","server":"gh","tool":"search","arguments":{"q":"x"},"status":"failed","result":null,"error":{"message":"denied"}}`,
			"mcp/gh/search", map[string]any{"q": "x"}, map[string]any{"status": "failed", "error": map[string]any{"message": "denied"}}, "", true},
		{"dynamic tool, completed only", "",
			`{"type":"dynamicToolCall","id":"i","tool":"lookup","arguments":[1],"status":"completed","contentItems":[{"type":"inputText","text":"r"}],"success":false}`,
			"lookup", map[string]any{"arguments": []any{float64(1)}}, map[string]any{"status": "completed", "content_items": []any{map[string]any{"type": "inputText", "text": "r"}}, "success": false}, "", true},
		{"web search", `{"type":"webSearch","id":"i","query":"go"}`, `{"type":"webSearch","id":"i","query":"go","action":{"type":"search"}}`,
			"web_search", map[string]any{"query": "go"}, map[string]any{"action": map[string]any{"type": "search"}}, "", false},
		{"image view", "", `{"type":"imageView","id":"i","path":"/a.png"}`, "image_view", map[string]any{"path": "/a.png"}, map[string]any{}, "", false},
		{"image generation", "", `{"type":"imageGeneration","id":"i","status":"completed","revisedPrompt":"cat","savedPath":"/c.png"}`, "image_generation", map[string]any{"prompt": "cat"}, map[string]any{"status": "completed", "saved_path": "/c.png"}, "", false},
		{"collab", "", `{"type":"collabAgentToolCall","id":"i","tool":"spawnAgent","status":"completed","prompt":"p","receiverThreadIds":["t2"]}`, "collab_agent", map[string]any{"tool": "spawnAgent", "prompt": "p", "receiver_thread_ids": []any{"t2"}}, map[string]any{"status": "completed"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRun(t, "", lines(itemLines(tc.started, tc.completed)...), streaming, Outcome{})
			var start, end *driver.StreamPayload
			for i := range r.Payloads {
				switch r.Payloads[i].Kind {
				case driver.StreamToolCallStart:
					start = &r.Payloads[i]
				case driver.StreamToolCallEnd:
					end = &r.Payloads[i]
				}
			}
			if start == nil || end == nil || start.Name != tc.tool || start.ToolCallID != "i" {
				t.Fatalf("payloads %v", kinds(r.Payloads))
			}
			if d := cmp.Diff(tc.args, start.Args); d != "" {
				t.Errorf("args (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.res, end.Result); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
			var call, res *driver.TranscriptItem
			for i := range r.Items {
				switch r.Items[i].Kind {
				case driver.TranscriptToolCall:
					call = &r.Items[i]
				case driver.TranscriptToolResult:
					res = &r.Items[i]
				}
			}
			if call == nil || res == nil || call.ToolName != tc.tool || res.ToolUseID != "i" || res.Text != tc.text || res.IsError != tc.isErr {
				t.Fatalf("items %+v %+v", call, res)
			}
		})
	}
}

func TestOtherItems(t *testing.T) {
	for _, typ := range []string{"plan", "contextCompaction", "enteredReviewMode", "hookPrompt"} {
		r := mustRun(t, "", lines(itemLines(`{"type":"`+typ+`","id":"i","text":"t"}`, `{"type":"`+typ+`","id":"i","text":"t"}`)...), streaming, Outcome{})
		if r.Response.Metadata[MetaUnknown] != "" || !slices.Contains(kinds(r.Payloads), "appserver/"+typ) {
			t.Errorf("%s: %v %v", typ, kinds(r.Payloads), r.Response.Metadata)
		}
	}
	// Reasoning without deltas: the whole text as one content.
	r := mustRun(t, "", lines(itemLines(`{"type":"reasoning","id":"r","summary":[],"content":[]}`, `{"type":"reasoning","id":"r","summary":["a","b"],"content":[]}`)...), streaming, Outcome{})
	if d := cmp.Diff([]string{"run.started", "appserver/configWarning", "step.started:turn", "reasoning.start:r", "reasoning.content:r", "reasoning.end:r", "step.finished:turn", "run.finished"}, kinds(r.Payloads)); d != "" {
		t.Fatal(d)
	}
	if r.Items[len(r.Items)-2].Text != "a\nb" {
		t.Fatalf("%+v", r.Items)
	}
}

// TestResumeThread: with Options.ThreadID the thread is known from the
// start; a thread/resume response confirms it.
func TestResumeThread(t *testing.T) {
	in := []string{sInit, `{"id":1,"result":{"thread":{"id":"th-1","turns":[{"id":"old"}]}}}`,
		`{"method":"item/completed","params":{"threadId":"th-0","turnId":"x","item":{"type":"agentMessage","id":"z","text":"other thread"}}}`,
		sTurnResp, sTurnStd, sMsgDone, sUsage, sDone}
	stdin := `{"method":"thread/resume","id":1,"params":{"threadId":"th-1"}}` + "\n" + `{"method":"turn/start","id":2,"params":{}}` + "\n"
	r := mustRun(t, stdin, lines(in...), Options{Streaming: true, ThreadID: "th-1"}, Outcome{})
	if !r.Response.Checkpoint.Valid || r.Response.Checkpoint.State.ResumeID != "th-1" || r.Response.Output != "Hello" || r.Response.Metadata[MetaOther] != "1" {
		t.Fatalf("%+v", r.Response)
	}
	p := New(nil, Options{ThreadID: "th-1"})
	if p.ThreadID() != "th-1" || p.State() != "thread" || p.TurnID() != "" || p.Malformed() != 0 || p.Unknown() != 0 || p.Capability() != Capability {
		t.Fatal("accessors")
	}
	if Codec.Name() != CodecName {
		t.Fatal("codec name")
	}
}

// TestRepeatedMethods: notifications of one method in a row, and of
// methods that alternate, are handled and counted alike (notification
// remembers the last method's handler and knownness); each repeated
// message is its own custom payload.
func TestRepeatedMethods(t *testing.T) {
	unknown := `{"method":"x/y","params":{}}`
	rate := `{"method":"account/rateLimits/updated","params":{"rateLimits":{"primary":null}}}`
	long := `{"method":"` + strings.Repeat("z", 100) + `","params":{}}`
	in := []string{sInit, unknown, unknown, rate, rate, unknown, long, long, rate}
	sink := &adaptertest.RecordingSink{}
	p := New(sink, Options{Streaming: true})
	r := jsonrpc.NewReader(strings.NewReader(lines(in...)), jsonrpc.Options{})
	for {
		f, err := r.Next()
		if err != nil {
			break
		}
		if err := p.Feed(f); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Finish(Outcome{}); err != nil { // sends the payloads held for run.started
		t.Fatal(err)
	}
	if p.Unknown() != 5 {
		t.Errorf("Unknown() = %d, want 5 (x/y three times, the long method twice)", p.Unknown())
	}
	n := 0
	for _, pl := range sink.Payloads {
		if pl.Kind == driver.CustomKind(Provider, "account/rateLimits/updated") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d rate limit payloads, want 3", n)
	}
}
