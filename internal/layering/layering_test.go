package layering

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/agentwire/agentwire"

// rule says what one family of packages may import (non-test imports).
type rule struct {
	// modulePkgs lists allowed module package prefixes ("driver",
	// "internal/"): an entry ending in "/" allows that subtree.
	modulePkgs []string
	// anyModule allows every module package except those in denyModule.
	anyModule  bool
	denyModule []string
	// thirdParty lists allowed non-standard, non-module import prefixes;
	// "*" allows all.
	thirdParty []string
	// stdOnlyDeps requires the whole dependency closure to be standard.
	stdOnlyDeps bool
	// pure forbids goroutine and process plumbing: such packages are plain
	// state machines (DESIGN.md: no context, mutexes, logging or processes).
	pure bool
	// oneFraming allows at most one framing package (sse, ndjson, jsonrpc)
	// among the direct imports.
	oneFraming bool
}

var impurePkgs = []string{"context", "sync", "log", "log/slog", "os/exec", "os/signal"}

var framing = []string{"sse", "ndjson", "jsonrpc"}

// ruleFor classifies a module-relative package path. A package that fits no
// family fails the test, so a new top-level directory has to be given a rule.
func ruleFor(rel string) (rule, bool) {
	top, _, _ := strings.Cut(rel, "/")
	switch {
	case rel == "driver":
		return rule{stdOnlyDeps: true}, true
	case top == "internal":
		// internal helpers sit just above driver (internal/emit speaks its
		// vocabulary) and below everything else.
		return rule{modulePkgs: []string{"internal/", "driver"}, thirdParty: []string{"*"}}, true
	case rel == "sse":
		// sse's line-end search has an AVX2 path (eol_amd64.s), chosen by
		// golang.org/x/sys/cpu's feature bits: the Go team's CPU detection,
		// already in the module graph through segmentio/encoding.
		return rule{modulePkgs: []string{"internal/"}, thirdParty: []string{"github.com/segmentio/encoding", "golang.org/x/sys/cpu"}, pure: true}, true
	case rel == "ndjson":
		return rule{modulePkgs: []string{"internal/"}, thirdParty: []string{"github.com/segmentio/encoding"}, pure: true}, true
	case rel == "jsonrpc":
		// jsonrpc frames with ndjson's line reader (issue 5): the one
		// framing package built on another. It stays a pure state machine.
		return rule{modulePkgs: []string{"internal/", "ndjson"}, thirdParty: []string{"github.com/segmentio/encoding"}, pure: true}, true
	case top == "jsonrpc":
		// Subpackages wrap sourcegraph/jsonrpc2, whose connection owns
		// goroutines, so they are not held to the pure rule; parsers do not
		// import them.
		return rule{modulePkgs: []string{"internal/", "ndjson", "jsonrpc"}, thirdParty: []string{"github.com/segmentio/encoding", "github.com/sourcegraph/jsonrpc2"}}, true
	case top == "parsers":
		parts := strings.Split(rel, "/")
		if len(parts) < 2 {
			return rule{}, false
		}
		own := "parsers/" + parts[1] + "/"
		return rule{modulePkgs: append([]string{"driver", "internal/", own}, framing...), thirdParty: []string{"github.com/segmentio/encoding"}, pure: true, oneFraming: true}, true
	case top == "process":
		return rule{modulePkgs: append([]string{"driver", "internal/", "process/"}, framing...), thirdParty: []string{"*"}}, true
	case top == "provider":
		// The registry sits between the parsers and their users (corpus,
		// fuzz, cmd, drivers), which reach providers only through it.
		return rule{anyModule: true, denyModule: []string{"cmd/", "corpus/", "fuzz/", "drivers/"}, thirdParty: []string{"*"}}, true
	case top == "adaptertest", top == "drivers":
		return rule{anyModule: true, denyModule: []string{"cmd/", "corpus/", "fuzz/"}, thirdParty: []string{"*"}}, true
	case top == "corpus", top == "fuzz":
		return rule{anyModule: true, denyModule: []string{"cmd/"}, thirdParty: []string{"*"}}, true
	case top == "cmd":
		return rule{anyModule: true, thirdParty: []string{"*"}}, true
	}
	return rule{}, false
}

// matchPrefix reports whether module-relative package p is in list: an
// entry ending in "/" matches that directory and everything below it, any
// other entry matches exactly that package.
func matchPrefix(list []string, p string) bool {
	for _, e := range list {
		if e == "*" || p == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(p+"/", e)) {
			return true
		}
	}
	return false
}

// matchImport reports whether import path p is one of the listed modules
// or packages, or below one of them.
func matchImport(list []string, p string) bool {
	for _, e := range list {
		if e == "*" || p == e || strings.HasPrefix(p, e+"/") {
			return true
		}
	}
	return false
}

type pkgInfo struct {
	path     string
	standard bool
	imports  []string
	dir      string
	files    []string
}

func goList(t *testing.T, args ...string) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{join .Imports \" \"}}\t{{.Dir}}\t{{join .GoFiles \" \"}}"}, args...)...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, stderr.String())
	}
	var pkgs []pkgInfo
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 5 {
			t.Fatalf("unexpected go list line %q", sc.Text())
		}
		pkgs = append(pkgs, pkgInfo{path: f[0], standard: f[1] == "true", imports: strings.Fields(f[2]), dir: f[3], files: strings.Fields(f[4])})
	}
	return pkgs
}

func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	pkgs := goList(t, "./...")
	if len(pkgs) < 3 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.path, module), "/")
		r, ok := ruleFor(rel)
		if !ok {
			t.Errorf("%s: no layering rule covers this package; add one to ruleFor", rel)
			continue
		}
		framingImports := 0
		for _, imp := range p.imports {
			switch {
			case strings.HasPrefix(imp, module+"/"):
				irel := strings.TrimPrefix(imp, module+"/")
				if matchPrefix(framing, irel) {
					framingImports++
				}
				allowed := matchPrefix(r.modulePkgs, irel) || (r.anyModule && !matchPrefix(r.denyModule, irel))
				if !allowed {
					t.Errorf("%s imports %s: not allowed by the layering rules", rel, irel)
				}
			case isStd(imp):
				if r.pure && matchImport(impurePkgs, imp) && !(imp == "sync" && onlySyncPool(t, p)) {
					t.Errorf("%s imports %s: framing and parser packages are plain state machines", rel, imp)
				}
			default:
				if !matchImport(r.thirdParty, imp) {
					t.Errorf("%s imports third-party %s: not allowed by the layering rules", rel, imp)
				}
			}
		}
		if r.oneFraming && framingImports > 1 {
			t.Errorf("%s imports %d framing packages; a parser uses exactly one", rel, framingImports)
		}
		if r.stdOnlyDeps {
			for _, d := range goList(t, "-deps", p.path) {
				if !d.standard && d.path != p.path {
					t.Errorf("%s depends on non-standard package %s", rel, d.path)
				}
			}
		}
	}
}

func TestRuleTable(t *testing.T) {
	// The classifier itself: a few paths and what they may import.
	cases := []struct {
		pkg, imp string
		want     bool
	}{
		{"parsers/codex", "ndjson", true},
		{"parsers/codex", "parsers/claude", false},
		{"parsers/codex", "parsers/codex/internal/x", true},
		{"sse", "driver", false},
		{"sse", "internal/quote", true},
		{"ndjson", "internal/jsonguard", true},
		{"jsonrpc", "ndjson", true},
		{"jsonrpc", "driver", false},
		{"jsonrpc/conn", "jsonrpc", true},
		{"parsers/appserver", "jsonrpc/conn", false},
		{"adaptertest", "corpus", false},
		{"corpus/record", "sse", true},
		{"cmd/agentwire", "corpus/record", true},
	}
	for _, tc := range cases {
		r, ok := ruleFor(tc.pkg)
		if !ok {
			t.Fatalf("no rule for %s", tc.pkg)
		}
		got := matchPrefix(r.modulePkgs, tc.imp) || (r.anyModule && !matchPrefix(r.denyModule, tc.imp))
		if got != tc.want {
			t.Errorf("%s may import %s = %v, want %v", tc.pkg, tc.imp, got, tc.want)
		}
	}
	if _, ok := ruleFor("newthing"); ok {
		t.Errorf("unknown top-level packages must have no rule")
	}
	if path.Base(module) != "agentwire" {
		t.Errorf("module path changed")
	}
}

// onlySyncPool reports whether the package uses nothing of sync but
// sync.Pool: a framing package may lend its buffers to a pool between
// streams (the pool is safe for concurrent use on its own), but it takes
// no locks and starts no goroutines.
func onlySyncPool(t *testing.T, p pkgInfo) bool {
	t.Helper()
	fset := token.NewFileSet()
	ok := true
	for _, name := range p.files {
		f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, isSel := n.(*ast.SelectorExpr); isSel {
				if x, isIdent := sel.X.(*ast.Ident); isIdent && x.Name == "sync" && sel.Sel.Name != "Pool" {
					t.Logf("%s: uses sync.%s", fset.Position(sel.Pos()), sel.Sel.Name)
					ok = false
				}
			}
			return true
		})
	}
	return ok
}
