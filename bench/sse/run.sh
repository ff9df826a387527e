#!/usr/bin/env bash
# Runs the SSE benchmarks PASSES times, interleaved (one full pass after
# another, so that load from other processes spreads over all rows), then
# benchstat. Usage: bench/sse/run.sh [PASSES] [BENCHTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
passes=${1:-6}
benchtime=${2:-0.5s}
out=sse/results
mkdir -p "$out"
: > "$out/bench.txt"
go test -count=1 -run TestWorkloadsAgree ./sse/
go test -c -o "$out/sse.test" ./sse/
for i in $(seq "$passes"); do
	echo "pass $i/$passes" >&2
	"$out/sse.test" -test.run '^$' -test.bench . -test.benchmem -test.benchtime="$benchtime" -test.count=1 >> "$out/bench.txt"
done
rm -f "$out/sse.test"
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$out/bench.txt" > "$out/benchstat.txt"
echo "wrote $out/bench.txt and $out/benchstat.txt" >&2
