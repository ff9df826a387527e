package fuzz_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/fuzz"
)

func TestLibFuzzerInputRoundTrip(t *testing.T) {
	for _, data := range [][]byte{nil, {0}, []byte("x"), []byte("data: a\n\n"), bytes.Repeat([]byte{0xff}, 70000)} {
		got, ok := fuzz.FromLibFuzzerInput(fuzz.LibFuzzerInput(data))
		if !ok || !bytes.Equal(got, data) {
			t.Errorf("%q: round trip gives %q, %v", data, got, ok)
		}
	}
}

// TestFromLibFuzzerInput pins go-fuzz-headers' GetBytes on inputs a
// mutator makes: the length prefix is not the length of the rest.
func TestFromLibFuzzerInput(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", false},
		{"\x00\x00\x00\x05", "", false},        // nothing after the prefix
		{"data: a\n\n", "", true},              // "data" is 1684108385, mod 5 is 0
		{"\x00\x00\x00\x03abcde", "abc", true}, // the rest is ignored
		{"\x00\x00\x00\x07abc", "a", true},     // 7 mod 3
		{"\x00\x00\x00\x00" + strings.Repeat("z", 40), strings.Repeat("z", 30), true}, // 0 means 30
		{"\x00\x00\x00\x00abc", "", true},                                             // 30 mod 3
		{"\xff\xff\xff\xffab", "a", true},                                             // 4294967295 mod 2
	} {
		got, ok := fuzz.FromLibFuzzerInput([]byte(c.in))
		if ok != c.ok || string(got) != c.want {
			t.Errorf("FromLibFuzzerInput(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestCorpusFile(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("a\x00\"\\\n\xff")} {
		got, err := fuzz.ParseCorpusFile(fuzz.CorpusFile(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%q: %q, %v", data, got, err)
		}
	}
	for _, bad := range []string{"", "go test fuzz v1\n", "go test fuzz v1\nstring(\"a\")\n", "go test fuzz v1\n[]byte(\"a\")\n[]byte(\"b\")\n"} {
		if _, err := fuzz.ParseCorpusFile([]byte(bad)); err == nil {
			t.Errorf("ParseCorpusFile(%q) accepted it", bad)
		}
	}
}

// TestTargetsForCompileNativeGoFuzzer keeps the registry buildable by
// OSS-Fuzz's compile_native_go_fuzzer, which finds a target's file with
// `grep "func NAME"` and builds only when exactly one line matches, so no
// target's name may begin another's; and the binaries' names must differ.
func TestTargetsForCompileNativeGoFuzzer(t *testing.T) {
	var src []byte
	err := filepath.WalkDir("targets", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			src = append(append(src, b...), '\n')
			return err
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	for _, tg := range fuzz.Targets {
		re := regexp.MustCompile(`(?m)^.*func ` + tg.Name + `.*testing\.F.*$`)
		if n := len(re.FindAll(src, -1)); n != 1 {
			t.Errorf("%s: %d lines of fuzz/targets match compile_native_go_fuzzer's grep, want 1", tg.Name, n)
		}
		b := fuzz.BinaryName(tg.Name)
		if other, ok := bins[b]; ok {
			t.Errorf("%s and %s both build %s", other, tg.Name, b)
		}
		bins[b] = tg.Name
	}
}

// A seed for the libFuzzer build carries its length first; a crash
// artifact decodes back to the bytes the fuzz function was given, which is
// what `go test -run` must replay.
func ExampleLibFuzzerInput() {
	in := fuzz.LibFuzzerInput([]byte("data: hi\n\n"))
	fmt.Printf("%q\n", in)
	data, _ := fuzz.FromLibFuzzerInput(in)
	fmt.Printf("%q\n", data)
	// A raw seed given to the binary as is: "data" is read as a length
	// (1684108385, modulo the 6 bytes left).
	raw, _ := fuzz.FromLibFuzzerInput([]byte("data: hi\n\n"))
	fmt.Printf("%q\n", raw)
	// Output:
	// "\x00\x00\x00\ndata: hi\n\n"
	// "data: hi\n\n"
	// ": hi\n"
}
