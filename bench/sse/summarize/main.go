// Command summarize reads `go test -bench` output of bench/sse and prints a
// markdown table: per workload and read size, the median MB/s (wall clock
// and per CPU-second) of agentwire's Reader and of the fastest peer, their
// ratio, and allocations per op.
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
	fmt.Println("| workload / reads | agentwire Reader MB/s (cpuMB/s) | with Reset | fastest peer | peer MB/s (cpuMB/s) | ratio wall (cpu) | allocs/op ours / peer | baseline IndexByte cpuMB/s |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, g := range groups {
		ours := data[key{g, "agentwire-Reader"}]
		reset := data[key{g, "agentwire-Reader-reset"}]
		base := data[key{g, "baseline-IndexByte"}]
		best, bestCPU := "", 0.0
		for _, p := range peers {
			if s := data[key{g, p}]; s != nil && median(s.cpu) > bestCPU {
				best, bestCPU = p, median(s.cpu)
			}
		}
		if ours == nil || best == "" {
			continue
		}
		peer := data[key{g, best}]
		fmt.Printf("| %s | %.0f (%.0f) | %.0f (%.0f) | %s | %.0f (%.0f) | %.1fx (%.1fx) | %.0f / %.0f | %.0f |\n",
			g, median(ours.mbs), median(ours.cpu), median(reset.mbs), median(reset.cpu), best,
			median(peer.mbs), median(peer.cpu), median(ours.mbs)/median(peer.mbs), median(ours.cpu)/median(peer.cpu),
			median(ours.allocs), median(peer.allocs), median(base.cpu))
	}
}
