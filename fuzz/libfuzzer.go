package fuzz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The libFuzzer build (fuzz/engine, .clusterfuzzlite/build.sh) and the
// native fuzz tests run the same fuzz functions of package fuzz/targets on
// the same data, but the two engines do not hand over the bytes the same
// way. compile_native_go_fuzzer builds a target with go-118-fuzz-build,
// whose replacement testing.F fills each argument of the fuzz function
// from the libFuzzer input with go-fuzz-headers' ConsumeFuzzer; a []byte
// argument is GetBytes:
//
//   - the first 4 bytes are a big-endian length L (an input of fewer than
//     5 bytes never calls the fuzz function);
//   - L = 0 means 30;
//   - unless L equals the number of bytes left after the prefix, it is
//     taken modulo that number;
//   - the argument is the next L bytes; anything after them is ignored.
//
// So a raw seed handed to a libFuzzer binary is not the seed the native
// test sees: its first 4 bytes become a length and the rest is cut.
// LibFuzzerInput encodes a seed so that the binary calls the fuzz function
// with exactly it, and FromLibFuzzerInput decodes a libFuzzer input (a
// crash artifact, a corpus unit) back to the data the function received,
// which `go test -run` then replays natively.

// LibFuzzerInput returns the libFuzzer input that makes a target built by
// compile_native_go_fuzzer call its fuzz function with data.
func LibFuzzerInput(data []byte) []byte {
	if len(data) == 0 {
		// L = 2 is not the 1 byte left, and 2 mod 1 is 0.
		return []byte{0, 0, 0, 2, 0}
	}
	in := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(data)), uint32(len(data)))
	return append(in, data...)
}

// FromLibFuzzerInput returns the data a target built by
// compile_native_go_fuzzer passes to its fuzz function for the libFuzzer
// input in, and false when in is too short for the function to be called.
// The result aliases in.
func FromLibFuzzerInput(in []byte) ([]byte, bool) {
	if len(in) <= 4 {
		return nil, false
	}
	n := binary.BigEndian.Uint32(in)
	if n == 0 {
		n = 30
	}
	if left := uint32(len(in) - 4); n != left {
		n %= left
	}
	return in[4 : 4+n], true
}

// BinaryName is the name of a target's libFuzzer binary in $OUT: FuzzSSE
// is fuzz_sse, FuzzAppServer fuzz_appserver. Its seed corpus is
// <binary>_seed_corpus.zip and its dictionary <binary>.dict beside it.
func BinaryName(target string) string {
	return "fuzz_" + strings.ToLower(strings.TrimPrefix(target, "Fuzz"))
}

// corpusHeader is the first line of a file of Go's fuzz corpus format.
const corpusHeader = "go test fuzz v1"

// CorpusFile returns data as a file of Go's fuzz corpus format holding one
// []byte value, as `go test` reads it from testdata/fuzz/<Target>/.
func CorpusFile(data []byte) []byte {
	return fmt.Appendf(nil, "%s\n[]byte(%q)\n", corpusHeader, data)
}

// ParseCorpusFile returns the []byte value of a one-value file of Go's fuzz
// corpus format (the inverse of CorpusFile).
func ParseCorpusFile(b []byte) ([]byte, error) {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || strings.TrimSpace(lines[0]) != corpusHeader {
		return nil, errors.New("not a one-value corpus file")
	}
	v := strings.TrimSpace(lines[1])
	if !strings.HasPrefix(v, "[]byte(") || !strings.HasSuffix(v, ")") {
		return nil, fmt.Errorf("value is not a []byte: %.40s", v)
	}
	s, err := strconv.Unquote(v[len("[]byte(") : len(v)-1])
	return []byte(s), err
}
