package fuzz_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/agentwire/agentwire/fuzz"
)

// TestRegistry keeps the fuzz.Targets registry (which the OSS-Fuzz build
// and `campaign minimize` read) in step with the fuzz functions of package
// targets and the fuzz tests here, and checks that every target has seeds
// and a dictionary.
func TestRegistry(t *testing.T) {
	fnRE := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	var want []string
	for _, file := range []string{"targets/targets.go", "fuzz_test.go"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range fnRE.FindAllSubmatch(b, -1) {
			got = append(got, string(m[1]))
		}
		if want == nil {
			want = got
		} else if !slices.Equal(want, got) {
			t.Fatalf("%s declares %v, targets.go %v", file, got, want)
		}
	}
	var names []string
	for _, tg := range fuzz.Targets {
		names = append(names, tg.Name)
		if seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", tg.Name, "*")); len(seeds) == 0 {
			t.Errorf("%s has no seeds (go generate ./fuzz)", tg.Name)
		}
		if _, err := os.Stat(filepath.Join("dict", tg.Dict+".dict")); err != nil {
			t.Errorf("%s: %v", tg.Name, err)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("fuzz.Targets lists %v, the fuzz functions are %v", names, want)
	}
}
