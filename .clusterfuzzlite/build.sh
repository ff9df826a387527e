#!/bin/bash -eu
# Builds every end-to-end fuzz target of agentwire (package fuzz/targets)
# as a libFuzzer binary with compile_native_go_fuzzer, and writes next to
# each one its seed corpus archive and dictionary:
#
#   $OUT/fuzz_<name>                  the fuzzer (FuzzSSE -> fuzz_sse)
#   $OUT/fuzz_<name>_seed_corpus.zip  raw seeds from fuzz/testdata/fuzz/<Target>/
#   $OUT/fuzz_<name>.dict             fuzz/dict/<protocol>.dict
#
# Used by ClusterFuzzLite (.clusterfuzzlite/Dockerfile) and by OSS-Fuzz
# (oss-fuzz/build.sh calls it). The target list comes from the fuzz.Targets
# registry (go run ./fuzz/cmd/fuzzseeds -targets), so a new target needs no
# edit here.
#
# AGENTWIRE_DRY_RUN=1 runs it outside the builder image: compile_native_go_fuzzer
# is replaced by an echo, nothing is installed, and $OUT defaults to a
# temporary directory; the seed archives and dictionaries are really built.

cd "${SRC:-$(dirname "$0")/..}/agentwire" 2>/dev/null || cd "$(dirname "$0")/.."

if [ "${AGENTWIRE_DRY_RUN:-}" = 1 ]; then
	OUT=${OUT:-$(mktemp -d)}
	compile_native_go_fuzzer() { echo "compile_native_go_fuzzer $*"; }
else
	# The libFuzzer shim that compile_native_go_fuzzer rewrites the
	# target's testing import to; it lands in go.mod inside the image only.
	go install github.com/AdamKorcz/go-118-fuzz-build@latest
	go get github.com/AdamKorcz/go-118-fuzz-build/testing@latest
fi

pkg=github.com/agentwire/agentwire/fuzz/targets
targets=$(go run ./fuzz/cmd/fuzzseeds -targets)
if [ -z "$targets" ]; then
	echo "build.sh: no fuzz targets listed" >&2
	exit 1
fi

while read -r target binary; do
	compile_native_go_fuzzer "$pkg" "$target" "$binary"
done <<<"$targets"

# Seed corpus archives (raw inputs decoded from Go's corpus format) and
# dictionaries, named after the binaries.
(cd fuzz && go run ./cmd/fuzzseeds -out testdata/fuzz -dict dict -oss-fuzz "$OUT")

echo "build.sh: built $(wc -l <<<"$targets") fuzzers into $OUT"
