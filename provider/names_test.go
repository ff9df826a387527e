package provider_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwire/agentwire/provider"
)

// nameFree are the directories (below the module root) whose non-test Go
// files reach providers only through this registry: they import no
// parsers/ package and hold no string literal equal to a provider's name.
var nameFree = []string{"corpus", "fuzz", "cmd", "drivers/internal"}

// nameExempt are the files and directories of nameFree that name providers
// on purpose, with the reason.
var nameExempt = map[string]string{
	// The recorder drives the real CLIs and their mock model servers.
	"corpus/record":    "the recorder runs the real CLIs",
	"corpus/mock":      "the mock model servers the CLIs talk to",
	"corpus/scenarios": "recording scenarios of the real CLIs",
	"corpus/internal":  "recorder internals",
}

// TestNoProviderNames: corpus, fuzz, cmd and drivers/internal name no
// provider outside the registry.
func TestNoProviderNames(t *testing.T) {
	names := map[string]bool{}
	for _, p := range provider.All() {
		names[p.Name] = true
	}
	checked := 0
	for _, dir := range nameFree {
		err := filepath.WalkDir(filepath.Join("..", dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
			if _, ok := nameExempt[rel]; ok {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			checked++
			for _, im := range f.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); strings.Contains(p, "/agentwire/parsers/") {
					t.Errorf("%s imports %s: reach providers through the provider registry", rel, p)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
						t.Errorf("%s: the literal %s names a provider: ask the provider registry", rel, lit.Value)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked", checked)
	}
}
