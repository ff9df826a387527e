package appserver

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/jsonrpc"
)

// synthSession builds a 0.169.0-shaped session of about n notifications:
// turns of agent-message deltas (most of the traffic), reasoning, command
// executions with output deltas and 1 to 48 KiB aggregated output, and
// approval requests.
func synthSession(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	const th = "01a22a7e-4916-7a41-b30b-d89b3a3d36b8"
	fmt.Fprintf(&b, `{"id":0,"result":{"userAgent":"bench"}}`+"\n")
	fmt.Fprintf(&b, `{"id":1,"result":{"thread":{"id":%q,"preview":"","ephemeral":false,"modelProvider":"mock"},"model":"m"}}`+"\n", th)
	fmt.Fprintf(&b, `{"method":"thread/started","params":{"thread":{"id":%q}},"emittedAtMs":1796009248472}`+"\n", th)
	tu := "01a22a7e-505e-7de3-8951-d18be5ca0faf"
	fmt.Fprintf(&b, `{"id":2,"result":{"turn":{"id":%q,"items":[],"status":"inProgress","error":null}}}`+"\n", tu)
	fmt.Fprintf(&b, `{"method":"turn/started","params":{"threadId":%q,"turn":{"id":%q,"items":[],"status":"inProgress","error":null}},"emittedAtMs":1796009253066}`+"\n", th, tu)
	words := strings.Fields("the quick brown fox jumps over the lazy dog while the agent streams its answer token by token")
	count, item, req := 0, 0, 0
	for count < n {
		item++
		switch k := rng.IntN(20); {
		case k < 17: // an agent message of 20 to 60 deltas
			id := fmt.Sprintf("msg_%04d", item)
			fmt.Fprintf(&b, `{"method":"item/started","params":{"item":{"type":"agentMessage","id":%q,"text":"","phase":null},"threadId":%q,"turnId":%q},"emittedAtMs":1796009256989}`+"\n", id, th, tu)
			var text strings.Builder
			for range 20 + rng.IntN(40) {
				d := words[rng.IntN(len(words))] + " "
				text.WriteString(d)
				fmt.Fprintf(&b, `{"method":"item/agentMessage/delta","params":{"threadId":%q,"turnId":%q,"itemId":%q,"delta":%q},"emittedAtMs":1796009256989}`+"\n", th, tu, id, d)
				count++
			}
			fmt.Fprintf(&b, `{"method":"item/completed","params":{"item":{"type":"agentMessage","id":%q,"text":%q,"phase":null},"threadId":%q,"turnId":%q},"emittedAtMs":1796009257015}`+"\n", id, text.String(), th, tu)
			count += 2
		case k < 19: // a command with output
			id := fmt.Sprintf("call_%04d", item)
			fmt.Fprintf(&b, `{"method":"item/started","params":{"item":{"type":"commandExecution","id":%q,"command":"/bin/bash -lc 'cat big.txt'","cwd":"/w","status":"inProgress","aggregatedOutput":null,"exitCode":null},"threadId":%q,"turnId":%q}}`+"\n", id, th, tu)
			if k == 18 {
				fmt.Fprintf(&b, `{"id":%d,"method":"item/commandExecution/requestApproval","params":{"threadId":%q,"turnId":%q,"itemId":%q,"command":"cat big.txt","cwd":"/w","availableDecisions":["accept","decline"]}}`+"\n", req, th, tu, id)
				fmt.Fprintf(&b, `{"method":"serverRequest/resolved","params":{"threadId":%q,"requestId":%d}}`+"\n", th, req)
				req++
				count += 2
			}
			out := strings.Repeat("line of command output\n", (1024+rng.IntN(47*1024))/23)
			fmt.Fprintf(&b, `{"method":"item/commandExecution/outputDelta","params":{"threadId":%q,"turnId":%q,"itemId":%q,"delta":%q}}`+"\n", th, tu, id, out)
			fmt.Fprintf(&b, `{"method":"item/completed","params":{"item":{"type":"commandExecution","id":%q,"command":"/bin/bash -lc 'cat big.txt'","cwd":"/w","status":"completed","aggregatedOutput":%q,"exitCode":0,"durationMs":12},"threadId":%q,"turnId":%q}}`+"\n", id, out, th, tu)
			count += 3
		default: // reasoning
			id := fmt.Sprintf("rs_%04d", item)
			fmt.Fprintf(&b, `{"method":"item/started","params":{"item":{"type":"reasoning","id":%q,"summary":[],"content":[]},"threadId":%q,"turnId":%q}}`+"\n", id, th, tu)
			for range 10 {
				fmt.Fprintf(&b, `{"method":"item/reasoning/summaryTextDelta","params":{"threadId":%q,"turnId":%q,"itemId":%q,"summaryIndex":0,"delta":"thinking "}}`+"\n", th, tu, id)
			}
			fmt.Fprintf(&b, `{"method":"item/completed","params":{"item":{"type":"reasoning","id":%q,"summary":["thinking thinking"],"content":[]},"threadId":%q,"turnId":%q}}`+"\n", id, th, tu)
			count += 12
		}
		if item%50 == 0 {
			fmt.Fprintf(&b, `{"method":"thread/tokenUsage/updated","params":{"threadId":%q,"turnId":%q,"tokenUsage":{"total":{"totalTokens":%d,"inputTokens":%d,"cachedInputTokens":0,"outputTokens":10,"reasoningOutputTokens":0},"last":{"totalTokens":110,"inputTokens":100,"cachedInputTokens":0,"outputTokens":10,"reasoningOutputTokens":0}}}}`+"\n", th, tu, 110*item, 100*item)
			count++
		}
	}
	fmt.Fprintf(&b, `{"method":"turn/completed","params":{"threadId":%q,"turn":{"id":%q,"items":[],"status":"completed","error":null}}}`+"\n", th, tu)
	return b.Bytes()
}

// cpuMetric reports throughput per second of process CPU time, which stays
// meaningful on a loaded machine where wall-clock MB/s does not.
func cpuMetric(b *testing.B, size int) func() {
	start := cpuTime()
	return func() {
		if d := cpuTime() - start; d > 0 && b.N > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
		}
	}
}

// countSink counts what it receives: the cheapest consumer.
type countSink struct{ events, payloads int }

func (s *countSink) Emit(driver.RunEvent) error            { s.events++; return nil }
func (s *countSink) EmitStream(driver.StreamPayload) error { s.payloads++; return nil }

// BenchmarkParse: framing + classification + parse + sink over a
// synthetic ~20k-notification session, streaming on.
func BenchmarkParse(b *testing.B) {
	data := synthSession(20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuMetric(b, len(data))()
	for b.Loop() {
		sink := &countSink{}
		resp, err := Parse(bytes.NewReader(data), nil, sink, Options{Streaming: true}, Outcome{})
		if err != nil || resp.Checkpoint == nil || !resp.Checkpoint.Valid {
			b.Fatalf("%v %+v", err, resp.Metadata)
		}
	}
}

// BenchmarkFeed is the driver's path: a jsonrpc.Reader without tee and
// Feed per frame.
func BenchmarkFeed(b *testing.B) {
	data := synthSession(20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuMetric(b, len(data))()
	src := bytes.NewReader(data)
	r := jsonrpc.NewReader(src, jsonrpc.Options{})
	for b.Loop() {
		src.Reset(data)
		r.Reset(src, jsonrpc.Options{})
		p := New(&countSink{}, Options{Streaming: true})
		parsertest.FeedAll(b, r.Next, p.Feed)
		if _, err := p.Finish(Outcome{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSynthSessionIsClean(t *testing.T) {
	data := synthSession(2000)
	r, v := run("", string(data), "", Options{Streaming: true}, Outcome{}, nil)
	if len(v) > 0 {
		t.Fatalf("violations:\n%s", v)
	}
	if !r.Response.Checkpoint.Valid || r.Response.Metadata[MetaMalformed] != "" {
		t.Fatalf("%+v", r.Response.Metadata)
	}
}

// shapeStreams are bench/e2e's app-server shapes at a size callgrind runs
// in seconds: the tool-success capture's first 8 lines (the handshake and
// turn/started), its middle repeated with its item ids renumbered, then its
// turn/completed, as bench/e2e's replicate does (parsertest.Replicated;
// "small"); and its hostile stream, one
// account/rateLimits/updated notification repeated ("notifications").
func shapeStreams(b *testing.B) map[string][]byte {
	capture, err := os.ReadFile(filepath.Join(corpusRoot, "codex@0.169.0", "tool-success", "stdout"))
	if err != nil {
		b.Fatal(err)
	}
	small := parsertest.Replicated(string(capture), 8, 1_656_000)
	notes := parsertest.Repeat("", `{"method":"account/rateLimits/updated","params":{"rateLimits":{"primary":null}}}`, "", 20000)
	return map[string][]byte{"small": small, "notifications": notes}
}

// BenchmarkShape is bench/e2e's Feed and Parse contenders over
// shapeStreams: Feed is the framing without the tee, Feed and Finish,
// streaming on, a sink that keeps nothing; Parse is what the provider
// registry runs (Unpaired set).
func BenchmarkShape(b *testing.B) {
	streams := shapeStreams(b)
	for _, name := range []string{"small", "notifications"} {
		data := streams[name]
		b.Run("Feed/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer cpuMetric(b, len(data))()
			src := bytes.NewReader(data)
			for b.Loop() {
				src.Reset(data)
				p := New(&countSink{}, Options{Streaming: true})
				r := jsonrpc.NewReader(src, jsonrpc.Options{})
				parsertest.FeedAll(b, r.Next, p.Feed)
				if _, err := p.Finish(Outcome{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("Parse/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer cpuMetric(b, len(data))()
			for b.Loop() {
				var findings int
				opts := Options{Streaming: true, Unpaired: func(int64, int, string) { findings++ }}
				resp, err := Parse(bytes.NewReader(data), nil, &countSink{}, opts, Outcome{})
				if err != nil || len(resp.RawStreams.Stdout) != len(data) || findings > 0 {
					b.Fatalf("%v %d findings", err, findings)
				}
			}
		})
	}
}
