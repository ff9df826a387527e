// Package fuzz holds agentwire's end-to-end fuzz oracles: one check
// function per target, each taking a whole stream and returning an error
// that describes the first broken invariant (nil when the input is handled
// correctly).
//
// The native Go fuzz tests (fuzz_test.go, run by `make fuzz`) and the
// libFuzzer targets built for OSS-Fuzz / ClusterFuzzLite (package
// fuzz/targets) both call these functions, so the invariants are written
// once and hold for both engines. The checks take no testing.T so that
// go-118-fuzz-build, which rewrites the testing package of the target's
// file, can compile them unchanged.
//
// Every check runs with limits shrunk far below the production defaults
// (see the constants below), so that small inputs reach the oversize and
// recovery paths, and verifies for any input:
//
//   - no panic (a panic is a finding: the engines report it);
//   - raw bytes preserved: the raw spans of the frames, plus the bytes of
//     reported oversize skips, concatenate to the input, the Tee sees
//     exactly the input, and a parser's RawStreams.Stdout equals it;
//   - the adaptertest validators (lifecycle grammar, transcript mirror,
//     response and checkpoint rules) report no violation, and a Valid
//     checkpoint only follows a clean outcome with a terminal event that
//     is bytes of the input;
//   - bounded memory: no frame exceeds the configured limit, and the bytes
//     allocated by one check stay below a constant times the input
//     (the runtime/metrics heap allocation counter, see budget);
//   - bounded work: the readers expose no work counter, so the source is
//     wrapped in a counting reader: every input byte is read exactly once,
//     the number of Read calls and of frames is at most a constant times
//     the input length plus a constant.
//
// Seeds for every target live in testdata/fuzz/<Target>/ in Go's corpus
// format; cmd/fuzzseeds regenerates them from the recordings under
// corpus/ (go generate ./fuzz), together with the libFuzzer dictionaries
// under dict/.
package fuzz

//go:generate go run ./cmd/fuzztargets
//go:generate go run ./cmd/fuzzseeds -corpus ../corpus -out testdata/fuzz -dict dict
