package geminicli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/ndjson"
)

// discardSink counts what it is given and keeps nothing.
type discardSink struct{ n int }

func (s *discardSink) Emit(driver.RunEvent) error            { s.n++; return nil }
func (s *discardSink) EmitStream(driver.StreamPayload) error { s.n++; return nil }

// session is a long run shaped like the recordings: per round a streamed
// assistant message of 12 chunks, a run_shell_command tool_use and its
// tool_result with about 2 KiB of output (JSON-escaped newlines, quotes
// and a non-ASCII letter), then the result.
func session(rounds int) string {
	var b strings.Builder
	b.WriteString(lInit + "\n" + lUser + "\n")
	out := strings.Repeat(`drwxr-xr-x  5 user staff   160 Oct 28 10:00 src/main.go \"quoted\" caf\u00e9\n`, 26)
	for i := range rounds {
		for range 12 {
			b.WriteString(`{"type":"message","timestamp":"2026-12-02T01:09:20.913Z","role":"assistant","content":"I listed src/ and updated main.go; ","delta":true}` + "\n")
		}
		fmt.Fprintf(&b, `{"type":"tool_use","timestamp":"2026-12-02T01:09:21.787Z","tool_name":"run_shell_command","tool_id":"run_shell_command__run_shell_command_1796173760940_%d","parameters":{"command":"ls -la src","description":"List the sources"}}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"tool_result","timestamp":"2026-12-02T01:09:25.646Z","tool_id":"run_shell_command__run_shell_command_1796173760940_%d","status":"success","output":"%s"}`+"\n", i, out)
	}
	b.WriteString(lDelta3 + "\n" + lResult + "\n")
	return b.String()
}

// scanMap is the naive baseline of bench/e2e: bufio.Scanner and
// encoding/json into a map per line.
func scanMap(s string) int {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	n := 0
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			n += len(m)
		}
	}
	return n
}

// BenchmarkParse measures, on a ~10 MB session, Parse (framing, tee,
// parser, streaming on, a counting sink), Feed (framing and parser, no
// tee) and the scan+map baseline, in CPU time (cpuMB/s: user+system, GC
// included), run one after the other in the same process. Compare the
// ratios within one run (-cpu 1 on a shared machine).
func BenchmarkParse(b *testing.B) {
	s := session(1600)
	rate := func(b *testing.B, f func()) {
		b.SetBytes(int64(len(s)))
		b.ReportAllocs()
		c0 := parsertest.CPUTime()
		for b.Loop() {
			f()
		}
		if cpu := parsertest.CPUTime() - c0; cpu > 0 {
			b.ReportMetric(float64(len(s))*float64(b.N)/cpu.Seconds()/1e6, "cpuMB/s")
		}
	}
	b.Run("Parse", func(b *testing.B) {
		rate(b, func() {
			resp, err := Parse(strings.NewReader(s), bytes.NewReader(nil), &discardSink{}, Options{Streaming: true}, Outcome{})
			if err != nil || !resp.Checkpoint.Valid {
				b.Fatalf("err %v checkpoint %+v", err, resp.Checkpoint)
			}
		})
	})
	b.Run("Feed", func(b *testing.B) {
		rate(b, func() {
			p := New(&discardSink{}, Options{Streaming: true})
			r := ndjson.NewReader(strings.NewReader(s), ndjson.Options{})
			for {
				f, err := r.Next()
				if err == io.EOF {
					break
				}
				if err := p.Feed(f); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := p.Finish(Outcome{}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("scan+map", func(b *testing.B) { rate(b, func() { scanMap(s) }) })
}
