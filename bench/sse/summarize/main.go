// Command summarize reads `go test -bench` output of bench/sse and prints
// markdown tables: per workload and read size, the median MB per CPU-second
// (then wall-clock MB/s) of agentwire's Reader (new per stream and reused
// with Reset), of the fastest peer and of the bufio.Reader.ReadSlice
// ceiling, their ratios, and allocations per op.
//
//	go run ./sse/summarize sse/results/bench.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

type key struct{ group, adapter string }

type samples struct{ mbs, cpu, allocs []float64 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

var peers = []string{"openai-go", "anthropic-sdk-go", "tmaxmax-go-sse", "launchdarkly-eventsource", "r3labs-sse"}

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	data := map[key]*samples{}
	var groups []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "BenchmarkSSE/") {
			continue
		}
		name := strings.TrimPrefix(fields[0], "BenchmarkSSE/")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // GOMAXPROCS suffix
		}
		i := strings.LastIndexByte(name, '/')
		k := key{name[:i], name[i+1:]}
		if !slices.Contains(groups, k.group) {
			groups = append(groups, k.group)
		}
		s := data[k]
		if s == nil {
			s = &samples{}
			data[k] = s
		}
		for j := 2; j+1 < len(fields); j += 2 {
			v, err := strconv.ParseFloat(fields[j], 64)
			if err != nil {
				continue
			}
			switch fields[j+1] {
			case "MB/s":
				s.mbs = append(s.mbs, v)
			case "cpuMB/s":
				s.cpu = append(s.cpu, v)
			case "allocs/op":
				s.allocs = append(s.allocs, v)
			}
		}
	}
	// CPU time first: the steady metric on a shared machine.
	fmt.Println("| workload / reads | Reader, new per stream | with Reset | fastest peer | ReadSlice ceiling | new / peer | Reset / peer | ceiling / Reset | ceiling / new | allocs/op new, Reset / peer |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, g := range groups {
		ours, reset, ceil := data[key{g, "agentwire-Reader"}], data[key{g, "agentwire-Reader-reset"}], data[key{g, "ceiling-ReadSlice"}]
		best, bestCPU := "", 0.0
		for _, p := range peers {
			if s := data[key{g, p}]; s != nil && median(s.cpu) > bestCPU {
				best, bestCPU = p, median(s.cpu)
			}
		}
		if ours == nil || reset == nil || ceil == nil || best == "" {
			continue
		}
		peer := data[key{g, best}]
		o, r, c := median(ours.cpu), median(reset.cpu), median(ceil.cpu)
		fmt.Printf("| %s | %.0f | %.0f | %s %.0f | %.0f | %.1fx | %.1fx | %.2fx | %.2fx | %.0f, %.0f / %.0f |\n",
			g, o, r, best, bestCPU, c, o/bestCPU, r/bestCPU, c/r, c/o,
			median(ours.allocs), median(reset.allocs), median(peer.allocs))
	}
	fmt.Println()
	fmt.Println("Wall clock (MB/s, medians of the same passes):")
	fmt.Println()
	fmt.Println("| workload / reads | Reader, new per stream | with Reset | fastest peer (by CPU) | ReadSlice ceiling | new / peer | ceiling / Reset |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, g := range groups {
		ours, reset, ceil := data[key{g, "agentwire-Reader"}], data[key{g, "agentwire-Reader-reset"}], data[key{g, "ceiling-ReadSlice"}]
		best, bestCPU := "", 0.0
		for _, p := range peers {
			if s := data[key{g, p}]; s != nil && median(s.cpu) > bestCPU {
				best, bestCPU = p, median(s.cpu)
			}
		}
		if ours == nil || reset == nil || ceil == nil || best == "" {
			continue
		}
		peer := data[key{g, best}]
		fmt.Printf("| %s | %.0f | %.0f | %s %.0f | %.0f | %.1fx | %.2fx |\n",
			g, median(ours.mbs), median(reset.mbs), best, median(peer.mbs), median(ceil.mbs),
			median(ours.mbs)/median(peer.mbs), median(ceil.mbs)/median(reset.mbs))
	}
}
