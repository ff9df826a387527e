package fuzz_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/agentwire/agentwire/fuzz"
	"github.com/agentwire/agentwire/fuzz/internal/targetgen"
	"github.com/agentwire/agentwire/provider"
)

// TestGeneratedTargets fails while the generated fuzz functions
// (targets/targets.go, fuzz_test.go) are not those of the fuzz.Targets
// registry, as after a provider is registered or renamed: go generate
// ./fuzz rewrites them.
func TestGeneratedTargets(t *testing.T) {
	files, err := targetgen.Files(fuzz.Targets)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./fuzz (or go run ./cmd/fuzztargets in fuzz/)", path)
		}
	}
}

// TestRegistry keeps the fuzz.Targets registry (which the OSS-Fuzz build
// and `campaign` read) in step with the fuzz functions of package
// targets and the fuzz tests here, checks that every registered provider
// has its parser target and that every target has seeds and a
// dictionary.
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
			t.Errorf("%s: %v (go generate ./fuzz)", tg.Name, err)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("fuzz.Targets lists %v, the fuzz functions are %v", names, want)
	}
	for _, p := range provider.All() {
		if tg := fuzz.TargetByName(p.FuzzTarget()); tg.Provider != p.Name {
			t.Errorf("provider %s: target %s runs %q", p.Name, tg.Name, tg.Provider)
		}
	}
}

// TestTargetNamesStable: the targets campaigns and OSS-Fuzz keep corpora
// and findings under are still registered by these names (a target may
// be added, never renamed).
func TestTargetNamesStable(t *testing.T) {
	for _, name := range []string{"FuzzSSE", "FuzzNDJSON", "FuzzJSONRPC", "FuzzCodex", "FuzzClaude", "FuzzAppServer", "FuzzGemini",
		"FuzzAnthropicMessages", "FuzzOpenAIResponses", "FuzzOpenAIChat", "FuzzChunking", "FuzzCodec"} {
		if !slices.ContainsFunc(fuzz.Targets, func(t fuzz.Target) bool { return t.Name == name }) {
			t.Errorf("target %s is gone from fuzz.Targets", name)
		}
	}
}
