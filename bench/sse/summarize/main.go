// Command summarize reads `go test -bench` output of bench/sse and prints
// markdown tables: per workload and read size, the median MB per CPU-second
// (then wall-clock MB/s) of agentwire's Reader (new per stream and reused
// with Reset), of the fastest peer and of the bufio.Reader.ReadSlice
// ceiling, their ratios, and allocations per op. For BenchmarkRatio output
// it prints the medians of the ratios against the targets of issue 23.
//
//	go run ./sse/summarize sse/results/bench.txt
//	go run ./sse/summarize sse/results/ratio.txt
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
	ratios := map[key][]float64{} // BenchmarkRatio: group and unit
	var ratioGroups []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 4 && strings.HasPrefix(fields[0], "BenchmarkRatio/") {
			g := strings.TrimPrefix(fields[0], "BenchmarkRatio/")
			if i := strings.LastIndexByte(g, '-'); i > 0 && !strings.HasSuffix(g, "-reads") {
				g = g[:i] // GOMAXPROCS suffix
			}
			if !slices.Contains(ratioGroups, g) {
				ratioGroups = append(ratioGroups, g)
			}
			for j := 2; j+1 < len(fields); j += 2 {
				if v, err := strconv.ParseFloat(fields[j], 64); err == nil {
					k := key{g, fields[j+1]}
					ratios[k] = append(ratios[k], v)
				}
			}
			continue
		}
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
	if len(ratioGroups) > 0 {
		printRatios(ratioGroups, ratios)
		return
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

// printRatios prints BenchmarkRatio's medians, each with whether it meets
// its target: at least 3x the fastest peer, within 2x of the ceiling with
// Reset and 3x with a new Reader per stream.
func printRatios(groups []string, r map[key][]float64) {
	mark := func(v float64, ok bool) string {
		if ok {
			return fmt.Sprintf("%.2fx yes", v)
		}
		return fmt.Sprintf("**%.2fx no**", v)
	}
	for _, m := range []struct{ title, prefix string }{{"CPU time", ""}, {"Wall time", "wall-"}} {
		fmt.Printf("%s (BenchmarkRatio, medians of %d runs):\n\n", m.title, len(r[key{groups[0], m.prefix + "xpeer-new"}]))
		fmt.Println("| workload / reads | new / peer (>= 3) | Reset / peer (>= 3) | Reset / ceiling (<= 2) | new / ceiling (<= 3) |")
		fmt.Println("|---|---|---|---|---|")
		for _, g := range groups {
			pn, pr := median(r[key{g, m.prefix + "xpeer-new"}]), median(r[key{g, m.prefix + "xpeer-reset"}])
			cr, cn := median(r[key{g, m.prefix + "xceil-reset"}]), median(r[key{g, m.prefix + "xceil-new"}])
			fmt.Printf("| %s | %s | %s | %s | %s |\n", g, mark(pn, pn >= 3), mark(pr, pr >= 3), mark(cr, cr <= 2), mark(cn, cn <= 3))
		}
		fmt.Println()
	}
	fmt.Println("MB per CPU-second (medians):")
	fmt.Println()
	fmt.Println("| workload / reads | Reader, new per stream | with Reset | openai-go | anthropic-sdk-go | ReadSlice ceiling |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, g := range groups {
		fmt.Printf("| %s |", g)
		for _, a := range []string{"agentwire-Reader", "agentwire-Reader-reset", "openai-go", "anthropic-sdk-go", "ceiling-ReadSlice"} {
			fmt.Printf(" %.0f |", median(r[key{g, a + "-cpuMB/s"}]))
		}
		fmt.Println()
	}
}
