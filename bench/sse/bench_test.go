package ssebench

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the user and system CPU time of the process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var readSizes = []struct {
	name string
	n    int
}{{"16KiB-reads", 16 << 10}, {"1KiB-reads", 1 << 10}, {"256B-reads", 256}}

// TestWorkloadsAgree checks that every adapter dispatches the generator's
// events and data bytes, so that the benchmark compares equal work.
func TestWorkloadsAgree(t *testing.T) {
	for _, w := range Workloads() {
		t.Logf("%s: %d bytes, %d events, %d data bytes", w.Name, len(w.Input), w.Events, w.DataBytes)
		for _, a := range Adapters {
			if strings.HasPrefix(a.Name, "baseline") || strings.HasPrefix(a.Name, "ceiling") {
				continue
			}
			for _, rs := range readSizes {
				got, err := a.Parse(NewChunkReader(w.Input, rs.n))
				if err != nil {
					t.Errorf("%s/%s/%s: %v", w.Name, a.Name, rs.name, err)
					continue
				}
				if got.Events != w.Events || got.DataBytes != w.DataBytes {
					t.Errorf("%s/%s/%s: %d events, %d data bytes; want %d, %d", w.Name, a.Name, rs.name, got.Events, got.DataBytes, w.Events, w.DataBytes)
				}
			}
		}
	}
}

func BenchmarkSSE(b *testing.B) {
	for _, w := range Workloads() {
		for _, rs := range readSizes {
			for _, a := range Adapters {
				b.Run(fmt.Sprintf("%s/%s/%s", w.Name, rs.name, a.Name), func(b *testing.B) {
					b.SetBytes(int64(len(w.Input)))
					b.ReportAllocs()
					cpu0 := cpuTime()
					for b.Loop() {
						if _, err := a.Parse(NewChunkReader(w.Input, rs.n)); err != nil {
							b.Fatal(err)
						}
					}
					// The machine is shared: besides wall-clock MB/s, report
					// MB per second of this process's CPU time (all threads,
					// GC included), which other load disturbs much less.
					if d := cpuTime() - cpu0; d > 0 {
						b.ReportMetric(float64(len(w.Input))*float64(b.N)/d.Seconds()/1e6, "cpuMB/s")
					}
				})
			}
		}
	}
}
