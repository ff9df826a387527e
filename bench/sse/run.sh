#!/usr/bin/env bash
# The SSE benchmarks of bench/sse.
#
#   bench/sse/run.sh [PASSES] [BENCHTIME]
#       BenchmarkSSE, every adapter, PASSES times interleaved (one full pass
#       after another, so that load from other processes spreads over all
#       rows), then benchstat: sse/results/bench.txt, benchstat.txt.
#   bench/sse/run.sh ratio [COUNT] [ITERATIONS]
#       The short, decisive pass for issue 23: BenchmarkRatio COUNT times
#       (default 3) of ITERATIONS iterations per row (default 5), each
#       iteration running every contender in turn; then benchstat and the
#       summary table with the targets: sse/results/ratio.txt,
#       ratio-benchstat.txt, ratio-summary.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=sse/results
mkdir -p "$out"
benchstat() { go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$@"; }
if [ "${1:-}" = ratio ]; then
	count=${2:-3}
	iters=${3:-5}
	go test -c -o "$out/sse.test" ./sse/
	: > "$out/ratio.txt"
	start=$(date +%s)
	for i in $(seq "$count"); do
		echo "ratio run $i/$count" >&2
		"$out/sse.test" -test.run "^$" -test.bench "^BenchmarkRatio$" -test.benchtime="${iters}x" -test.count=1 >> "$out/ratio.txt"
	done
	rm -f "$out/sse.test"
	echo "benchmarks took $(($(date +%s) - start)) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	benchstat "$out/ratio.txt" > "$out/ratio-benchstat.txt"
	go run ./sse/summarize "$out/ratio.txt" | tee "$out/ratio-summary.md"
	exit 0
fi
passes=${1:-6}
benchtime=${2:-0.5s}
: > "$out/bench.txt"
go test -count=1 -run TestWorkloadsAgree ./sse/
go test -c -o "$out/sse.test" ./sse/
for i in $(seq "$passes"); do
	echo "pass $i/$passes" >&2
	"$out/sse.test" -test.run '^$' -test.bench '^BenchmarkSSE$' -test.benchmem -test.benchtime="$benchtime" -test.count=1 >> "$out/bench.txt"
done
rm -f "$out/sse.test"
benchstat "$out/bench.txt" > "$out/benchstat.txt"
echo "wrote $out/bench.txt and $out/benchstat.txt" >&2
