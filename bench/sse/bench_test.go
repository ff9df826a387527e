package ssebench

import (
	"fmt"
	"runtime"
	"slices"
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

// ratioContenders are the adapters BenchmarkRatio runs: our two faces, the
// two peers that were the fastest on every row of BenchmarkSSE, and the
// ceiling.
var ratioContenders = []string{"agentwire-Reader", "agentwire-Reader-reset", "openai-go", "anthropic-sdk-go", "ceiling-ReadSlice"}

// ratioBlock is about how much CPU time BenchmarkRatio gives one contender
// at a time.
const ratioBlock = 20 * time.Millisecond

// BenchmarkRatio is the short, decisive pass for the targets of issue 23.
// Every iteration runs each contender in turn for a block of about
// ratioBlock of CPU time (a whole number of streams, the same for every
// iteration), the order rotating from iteration to iteration, so that a
// change of load hits all of them alike; the ratios are taken of the time
// per stream, summed over the iterations, within the one benchmark:
//
//	xpeer-new, xpeer-reset   the fastest peer's time over ours (target: >= 3)
//	xceil-reset              ours with Reset over the ceiling's (target: <= 2)
//	xceil-new                a new Reader per stream over the ceiling's (<= 3)
//
// in CPU time (getrusage: all threads, GC included) and, prefixed wall-, in
// wall time. The fastest peer is chosen per row and per measure. Each
// block ends with a forced collection inside its timing, so that every
// contender pays for collecting all of its own garbage and for none of
// another's: the peers allocate once or twice per event, we do not. The
// fixed cost of a collection with no garbage is the same share of every
// block, since the blocks are sized by CPU time.
func BenchmarkRatio(b *testing.B) {
	var cs []Adapter
	for _, name := range ratioContenders {
		for _, a := range Adapters {
			if a.Name == name {
				cs = append(cs, a)
			}
		}
	}
	if len(cs) != len(ratioContenders) {
		b.Fatalf("adapters %v: found %d", ratioContenders, len(cs))
	}
	const newI, resetI, peer0, peer1, ceilI = 0, 1, 2, 3, 4
	for _, w := range Workloads() {
		for _, rs := range readSizes {
			b.Run(w.Name+"/"+rs.name, func(b *testing.B) {
				parse := func(a Adapter) {
					if _, err := a.Parse(NewChunkReader(w.Input, rs.n)); err != nil {
						b.Fatal(err)
					}
				}
				// Warm every contender up and size its block.
				streams := make([]int, len(cs))
				for i, a := range cs {
					parse(a)
					c0 := cpuTime()
					parse(a)
					streams[i] = max(1, int(ratioBlock/max(cpuTime()-c0, time.Microsecond)))
				}
				runtime.GC()
				cpu := make([]float64, len(cs)) // per stream, summed over iterations
				wall := make([]float64, len(cs))
				b.SetBytes(int64(len(w.Input)))
				k := 0
				for b.Loop() {
					for j := range cs {
						i := (j + k) % len(cs)
						c0, w0 := cpuTime(), time.Now()
						for range streams[i] {
							parse(cs[i])
						}
						runtime.GC() // this block's garbage, paid by its maker
						wall[i] += float64(time.Since(w0)) / float64(streams[i])
						cpu[i] += float64(cpuTime()-c0) / float64(streams[i])
					}
					k++
				}
				for i, a := range cs {
					if cpu[i] > 0 {
						b.ReportMetric(float64(len(w.Input))*float64(k)/cpu[i]*1e3, a.Name+"-cpuMB/s")
					}
				}
				for _, m := range []struct {
					prefix string
					t      []float64
				}{{"", cpu}, {"wall-", wall}} {
					t := m.t
					if slices.Contains(t, 0) {
						continue // getrusage too coarse for this run
					}
					peer := min(t[peer0], t[peer1])
					b.ReportMetric(peer/t[newI], m.prefix+"xpeer-new")
					b.ReportMetric(peer/t[resetI], m.prefix+"xpeer-reset")
					b.ReportMetric(t[resetI]/t[ceilI], m.prefix+"xceil-reset")
					b.ReportMetric(t[newI]/t[ceilI], m.prefix+"xceil-new")
				}
			})
		}
	}
}
