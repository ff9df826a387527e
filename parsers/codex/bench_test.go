package codex

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
)

// discardSink counts what it is given and keeps nothing, so the benchmark
// measures framing and parsing.
type discardSink struct{ events, payloads int }

func (s *discardSink) Emit(driver.RunEvent) error            { s.events++; return nil }
func (s *discardSink) EmitStream(driver.StreamPayload) error { s.payloads++; return nil }

// syntheticStream is a ~20k-event run shaped like a real session: per
// round a reasoning summary, a command started and completed, a file
// change and an agent message. With small set, every command prints the
// same ~1 KiB (a per-line worst case, ~360 bytes a line); otherwise
// command output sizes follow a log-uniform law from 64 bytes to 32 KiB
// (listings and test logs up to file dumps, mean ~5 KiB) and agent
// messages from 100 bytes to 2 KiB, with a fixed seed.
func syntheticStream(rounds int, small bool) (string, int) {
	var b strings.Builder
	b.WriteString(lThread + "\n" + lTurn + "\n")
	rng := rand.New(rand.NewPCG(1, 2))
	logUniform := func(lo, hi float64) int { return int(lo * math.Pow(hi/lo, rng.Float64())) }
	line := `drwxr-xr-x  5 user staff   160 Oct 28 10:00 src/main.go \"quoted\" caf\u00e9\n` // JSON-escaped
	n := 2
	for i := range rounds {
		outLen, msgLen := 1024, 110
		if !small {
			outLen, msgLen = logUniform(64, 32<<10), logUniform(100, 2<<10)
		}
		out := strings.Repeat(line, outLen/len(line)+1)[:outLen]
		// Cut on a whole line so no escape is split.
		out = out[:strings.LastIndex(out, `\n`)+2]
		msg := strings.Repeat("I listed src/ and updated main.go; the tests pass. ", msgLen/51+1)[:msgLen]
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"reasoning","text":"**Inspecting the repository layout before editing**"}}`+"\n", 5*i)
		fmt.Fprintf(&b, `{"type":"item.started","item":{"id":"item_%d","type":"command_execution","command":"bash -lc 'ls -la src'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`+"\n", 5*i+1)
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"command_execution","command":"bash -lc 'ls -la src'","aggregated_output":"%s","exit_code":0,"status":"completed"}}`+"\n", 5*i+1, out)
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"file_change","changes":[{"path":"/repo/src/main.go","kind":"update"}],"status":"completed"}}`+"\n", 5*i+2)
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"agent_message","text":"%s"}}`+"\n", 5*i+3, msg)
		n += 5
	}
	b.WriteString(lDone + "\n")
	return b.String(), n + 1
}

// BenchmarkParse is framing + tee + parse + sink over a ~20k-event stream,
// streaming on. It reports MB/s and allocations per line.
func BenchmarkParse(b *testing.B) {
	b.Run("mixed", func(b *testing.B) { benchParse(b, false) })
	b.Run("small", func(b *testing.B) { benchParse(b, true) })
}

func benchParse(b *testing.B, small bool) {
	stream, nlines := syntheticStream(4000, small)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	for b.Loop() {
		sink := &discardSink{}
		resp, err := Parse(strings.NewReader(stream), bytes.NewReader(nil), sink, Options{Streaming: true}, Outcome{})
		if err != nil || !resp.Checkpoint.Valid {
			b.Fatalf("err %v checkpoint %+v", err, resp.Checkpoint)
		}
	}
	// On a shared machine wall time depends on the neighbours: CPU time
	// (user+system, GC included) gives the throughput of the work itself.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(stream))*float64(b.N)/cpu.Seconds()/1e6, "cpuMB/s")
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N)/float64(nlines), "allocs/line")
	b.ReportMetric(float64(nlines), "lines/op")
}
