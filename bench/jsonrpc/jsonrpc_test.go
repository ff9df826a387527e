// Package jsonrpc benchmarks github.com/agentwire/agentwire/jsonrpc
// (framing + classification, and its ObjectStream under a jsonrpc2.Conn)
// against github.com/sourcegraph/jsonrpc2 v0.2.3 with its own codec on
// Codex app-server-like traffic.
package jsonrpc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/agentwire/agentwire/jsonrpc/conn"
	"github.com/sourcegraph/jsonrpc2"
)

// workload is 20,000 app-server-style messages, about 20 MB, without the
// "jsonrpc" member: item/agentMessage/delta notifications (90 %),
// approval requests, and item/completed notifications with 1 to 48 KiB of
// command output.
var workload = sync.OnceValues(func() ([]byte, int) {
	rng := rand.New(rand.NewPCG(5, 9))
	var b bytes.Buffer
	const th, tu = "01a22a7e-4916-7a41-b30b-d89b3a3d36b8", "01a22a7e-505e-7de3-8951-d18be5ca0faf"
	req := 0
	const n = 20000
	for i := range n {
		switch k := rng.IntN(100); {
		case k < 90:
			fmt.Fprintf(&b, `{"method":"item/agentMessage/delta","params":{"threadId":%q,"turnId":%q,"itemId":"msg_%04d","delta":%q},"emittedAtMs":1796009256989}`+"\n", th, tu, i/40, "token "+strings.Repeat("x", rng.IntN(12)))
		case k < 92:
			fmt.Fprintf(&b, `{"method":"item/commandExecution/requestApproval","id":%d,"params":{"threadId":%q,"turnId":%q,"itemId":"call_%d","command":"/bin/bash -lc 'touch x'","cwd":"/w","availableDecisions":["accept","decline"]}}`+"\n", req, th, tu, i)
			req++
		default:
			out := strings.Repeat("a line of command output\n", (1024+rng.IntN(47*1024))/25)
			fmt.Fprintf(&b, `{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_%d","command":"cat f","cwd":"/w","status":"completed","aggregatedOutput":%q,"exitCode":0,"durationMs":3},"threadId":%q,"turnId":%q}}`+"\n", i, out, th, tu)
		}
	}
	return b.Bytes(), n
})

type countWriter int

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }

// cpuMetric reports throughput per second of process CPU time (user +
// system, all goroutines: jsonrpc2's reader and the GC included), which
// stays meaningful on a shared, loaded machine where wall-clock MB/s does
// not. Use as defer cpuMetric(b, bytes)().
func cpuMetric(b *testing.B, size int) func() {
	start := cpuTime()
	return func() {
		if d := cpuTime() - start; d > 0 && b.N > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pipe is an io.ReadWriteCloser over the workload, discarding writes.
type pipe struct{ io.Reader }

func (pipe) Write(p []byte) (int, error) { return len(p), nil }
func (pipe) Close() error                { return nil }

type countHandler struct {
	n    int
	done chan struct{}
	want int
}

func (h *countHandler) Handle(_ context.Context, _ *jsonrpc2.Conn, _ *jsonrpc2.Request) {
	h.n++
	if h.n == h.want {
		close(h.done)
	}
}

type discard struct{}

func (discard) Printf(string, ...any) {}

func BenchmarkJSONRPC(b *testing.B) {
	data, n := workload()
	b.Run("agentwire-Reader", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer cpuMetric(b, len(data))()
		src := bytes.NewReader(data)
		r := jsonrpc.NewReader(src, jsonrpc.Options{})
		for b.Loop() {
			src.Reset(data)
			r.Reset(src, jsonrpc.Options{})
			msgs := 0
			for {
				f, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if f.IsMessage() {
					msgs++
				}
			}
			if msgs != n {
				b.Fatalf("%d messages", msgs)
			}
		}
	})
	b.Run("agentwire-Reader-tee", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer cpuMetric(b, len(data))()
		var tee countWriter
		for b.Loop() {
			tee = 0
			r := jsonrpc.NewReader(bytes.NewReader(data), jsonrpc.Options{Tee: &tee})
			msgs := 0
			for f, err := range r.All() {
				if err != nil {
					b.Fatal(err)
				}
				if f.IsMessage() {
					msgs++
				}
			}
			if msgs != n || int(tee) != len(data) {
				b.Fatalf("%d messages", msgs)
			}
		}
	})
	b.Run("agentwire-Decoder-64KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer cpuMetric(b, len(data))()
		msgs := 0
		emit := func(f jsonrpc.Frame, err error) error {
			if err != nil {
				return err
			}
			if f.IsMessage() {
				msgs++
			}
			return nil
		}
		d := jsonrpc.NewDecoder(jsonrpc.Options{}, emit)
		for b.Loop() {
			d.Reset(jsonrpc.Options{}, emit)
			msgs = 0
			for rest := data; len(rest) > 0; {
				k := min(len(rest), 64<<10)
				if _, err := d.Write(rest[:k]); err != nil {
					b.Fatal(err)
				}
				rest = rest[k:]
			}
			if err := d.Close(); err != nil || msgs != n {
				b.Fatalf("%v %d", err, msgs)
			}
		}
	})
	conns := []struct {
		name   string
		stream func() jsonrpc2.ObjectStream
	}{
		{"jsonrpc2-Conn-PlainObjectStream", func() jsonrpc2.ObjectStream {
			return jsonrpc2.NewPlainObjectStream(pipe{bytes.NewReader(data)})
		}},
		{"jsonrpc2-Conn-agentwire-Stream", func() jsonrpc2.ObjectStream {
			return conn.NewStream(bytes.NewReader(data), io.Discard, conn.StreamOptions{})
		}},
	}
	for _, c := range conns {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer cpuMetric(b, len(data))()
			for b.Loop() {
				h := &countHandler{done: make(chan struct{}), want: n}
				cn := jsonrpc2.NewConn(context.Background(), c.stream(), h, jsonrpc2.SetLogger(discard{}))
				<-cn.DisconnectNotify()
				if h.n != n {
					b.Fatalf("handled %d of %d", h.n, n)
				}
			}
		})
	}
}

// TestWorkload checks that every implementation sees every message.
func TestWorkload(t *testing.T) {
	data, n := workload()
	if len(data) < 15<<20 {
		t.Fatalf("workload is %d bytes", len(data))
	}
	r := jsonrpc.NewReader(bytes.NewReader(data), jsonrpc.Options{})
	counts := map[jsonrpc.Class]int{}
	for f, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		counts[f.Class]++
	}
	if counts[jsonrpc.Notification]+counts[jsonrpc.Request] != n {
		t.Fatalf("%v", counts)
	}
}
