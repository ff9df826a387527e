package ndjson

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentwire/agentwire/ndjson"
)

// TestRatios measures the acceptance ratios on a shared, noisy machine:
// contenders run interleaved (A B C A B C ...) for several rounds, each
// pass is timed by the CPU time the test process consumed (getrusage,
// GC threads included), not by the wall clock, so other processes taking
// the CPU do not count, and each contender is scored by its fastest pass.
// Run with
//
//	NDJSON_RATIOS=12 go test -run TestRatios -v ./ndjson/
//
// (the value is the number of rounds). Skipped otherwise.
func TestRatios(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("NDJSON_RATIOS"))
	if rounds <= 0 {
		t.Skip("set NDJSON_RATIOS=<rounds> to run")
	}
	data, lines := loadWorkload()
	var sink int
	ibBuf := make([]byte, 64<<10)
	scBuf := make([]byte, 64<<10)
	src := &chunkReader{}
	rd := ndjson.NewReader(src, ndjson.Options{})
	emit := func(f ndjson.Frame, err error) error { sink += len(f.Data); return nil }
	dec := ndjson.NewDecoder(ndjson.Options{}, emit)
	decodeBy := map[string]decodeFunc{}
	for _, d := range decoders {
		decodeBy[d.name] = d.run
	}
	type contender struct {
		name string
		run  func()
		best time.Duration
		all  []time.Duration
	}
	decode := func(name string) func() {
		return func() {
			if err := decodeBy[name](data, func(*Event) { sink++ }); err != nil {
				t.Fatal(err)
			}
		}
	}
	framing := []*contender{
		{name: "IndexByte in memory", run: func() {
			for rest := data; len(rest) > 0; {
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					i = len(rest) - 1
				}
				sink += i
				rest = rest[i+1:]
			}
		}},
		{name: "IndexByte, 16 KiB reads", run: func() {
			indexByteLines(&chunkReader{data: data, size: readSize}, &ibBuf, func(l []byte) { sink += len(l) })
		}},
		{name: "bufio.Scanner, 16 KiB reads", run: func() {
			sc := bufio.NewScanner(&chunkReader{data: data, size: readSize})
			sc.Buffer(scBuf, 64<<20)
			for sc.Scan() {
				sink += len(sc.Bytes())
			}
		}},
		{name: "ndjson.Reader, 16 KiB reads", run: func() {
			*src = chunkReader{data: data, size: readSize}
			rd.Reset(src, ndjson.Options{})
			for {
				f, err := rd.Next()
				if err != nil {
					break
				}
				sink += len(f.Data)
			}
		}},
		{name: "ndjson.Decoder, 16 KiB writes", run: func() {
			dec.Reset(ndjson.Options{}, emit)
			for rest := data; len(rest) > 0; {
				n := min(len(rest), readSize)
				dec.Write(rest[:n])
				rest = rest[n:]
			}
			dec.Close()
		}},
		{name: "ndjson.Reader + Type peek", run: func() {
			*src = chunkReader{data: data, size: readSize}
			rd.Reset(src, ndjson.Options{})
			for {
				f, err := rd.Next()
				if err != nil {
					break
				}
				typ, _ := f.Type()
				sink += len(typ)
			}
		}},
	}
	decoding := []*contender{
		{name: "encoding/json Unmarshal per line", run: decode("encoding-json.Unmarshal")},
		{name: "encoding/json Decoder", run: decode("encoding-json.Decoder")},
		{name: "segmentio Decoder", run: decode("segmentio.Decoder")},
		{name: "segmentio Unmarshal per line, unguarded", run: decode("segmentio.Unmarshal-unguarded")},
		{name: "ndjson.Reader + Frame.Decode (guarded)", run: decode("ndjson.Reader+Decode")},
		{name: "ndjson.Reader + Type + Frame.Decode", run: decode("ndjson.Reader+Type+Decode")},
	}
	measure := func(cs []*contender, rounds, reps int) {
		for _, c := range cs {
			c.run() // warm up: buffers, caches, codec tables
		}
		for range rounds {
			for _, c := range cs {
				start := cpuTime()
				for range reps {
					c.run()
				}
				d := (cpuTime() - start) / time.Duration(reps)
				c.all = append(c.all, d)
				if c.best == 0 || d < c.best {
					c.best = d
				}
			}
		}
	}
	measure(framing, rounds*4, 4)
	measure(decoding, rounds, 1)

	mbps := func(d time.Duration) float64 { return float64(len(data)) / d.Seconds() / 1e6 }
	var out strings.Builder
	table := func(cs []*contender, base *contender, baseName string) {
		fmt.Fprintf(&out, "| contender | best MB/s | median MB/s | ns/line (best) | vs %s (best) |\n|---|---|---|---|---|\n", baseName)
		for _, c := range cs {
			med := slices.Clone(c.all)
			slices.Sort(med)
			fmt.Fprintf(&out, "| %s | %.0f | %.0f | %.0f | %.2fx |\n", c.name, mbps(c.best), mbps(med[len(med)/2]),
				float64(c.best.Nanoseconds())/float64(lines), base.best.Seconds()/c.best.Seconds())
		}
		out.WriteString("\n")
	}
	fmt.Fprintf(&out, "workload: %d lines, %d bytes, %d rounds\n\n", lines, len(data), rounds)
	table(framing, framing[1], "IndexByte 16 KiB")
	table(decoding, decoding[0], "encoding/json Unmarshal")
	t.Log("\n" + out.String())
	_ = sink
}

// cpuTime returns the user+system CPU time used by the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
