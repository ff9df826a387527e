#!/bin/bash -eu
# Builds every end-to-end fuzz target of agentwire (package fuzz/targets)
# as a libFuzzer binary with compile_native_go_fuzzer, and writes next to
# each one its seed corpus archive and dictionary:
#
#   $OUT/fuzz_<name>                  the fuzzer (FuzzSSE -> fuzz_sse)
#   $OUT/fuzz_<name>_seed_corpus.zip  the seeds of fuzz/testdata/fuzz/<Target>/,
#                                     each encoded so that the binary's fuzz
#                                     function gets exactly it (fuzz/libfuzzer.go)
#   $OUT/fuzz_<name>.dict             fuzz/dict/<protocol>.dict
#
# Used by ClusterFuzzLite (.clusterfuzzlite/Dockerfile), by OSS-Fuzz
# (oss-fuzz/build.sh calls it) and, outside any image, by `make
# engine-build` (fuzz/engine/build, which provides compile_native_go_fuzzer
# and the image's environment). The target list comes from the fuzz.Targets
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
	# The tool compile_native_go_fuzzer runs, and the libFuzzer shim it
	# rewrites the target's testing import to; the shim lands in go.mod of
	# the build's copy of the checkout only. Pinned: the newest version the
	# Go module proxy serves (its git main branch, 2025-05-20).
	go118=github.com/AdamKorcz/go-118-fuzz-build@v0.0.0-20250520111509-a70c2aa677fa
	go install "$go118"
	go get "${go118/@//testing@}"
fi

pkg=github.com/agentwire/agentwire/fuzz/targets
targets=$(go run ./fuzz/cmd/fuzzseeds -targets)
if [ -z "$targets" ]; then
	echo "build.sh: no fuzz targets listed" >&2
	exit 1
fi

while read -r target binary; do
	compile_native_go_fuzzer "$pkg" "$target" "$binary"
	# compile_native_go_fuzzer exits 0 when it cannot find the function.
	if [ "${AGENTWIRE_DRY_RUN:-}" != 1 ] && [ ! -x "$OUT/$binary" ]; then
		echo "build.sh: $OUT/$binary was not built" >&2
		exit 1
	fi
done <<<"$targets"

# Seed corpus archives (raw inputs decoded from Go's corpus format) and
# dictionaries, named after the binaries.
(cd fuzz && go run ./cmd/fuzzseeds -out testdata/fuzz -dict dict -oss-fuzz "$OUT")

echo "build.sh: built $(wc -l <<<"$targets") fuzzers into $OUT"
