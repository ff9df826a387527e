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
)

// TestNoInternalInAPI: no exported declaration of a public package (one
// whose path has no internal element, main packages aside) names a type of
// an internal package, so that no godoc leads where users cannot import
// (issue 16: Outcome was an alias of internal/emit.Outcome in every
// parser). Checked: the signatures of exported functions and methods, the
// exported fields and methods of exported types, alias and defined types,
// and the types of exported variables and constants.
func TestNoInternalInAPI(t *testing.T) {
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		if d.IsDir() {
			if path != ".." && (d.Name() == "internal" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) || rel == "bench" || rel == "cmd" || rel == "fuzz/cmd" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil || f.Name.Name == "main" {
			return err
		}
		checked++
		internal := map[string]string{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.Contains("/"+p+"/", "/internal/") {
				continue
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			internal[name] = p
		}
		if len(internal) == 0 {
			return nil
		}
		check := func(where string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BlockStmt, *ast.FuncLit:
					return false // bodies are not API
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && internal[id.Name] != "" {
						t.Errorf("%s: %s names %s.%s of %s", rel, where, id.Name, x.Sel.Name, internal[id.Name])
					}
				}
				return true
			})
		}
		fields := func(where string, fl *ast.FieldList) {
			if fl == nil {
				return
			}
			for _, fd := range fl.List {
				if len(fd.Names) == 0 || ast.IsExported(fd.Names[0].Name) {
					check(where, fd.Type)
				}
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if s, ok := recv.(*ast.StarExpr); ok {
						recv = s.X
					}
					if ix, ok := recv.(*ast.IndexExpr); ok {
						recv = ix.X
					}
					if id, ok := recv.(*ast.Ident); ok && !id.IsExported() {
						continue
					}
				}
				check("func "+d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						switch ty := s.Type.(type) {
						case *ast.StructType:
							fields("type "+s.Name.Name, ty.Fields)
						case *ast.InterfaceType:
							fields("type "+s.Name.Name, ty.Methods)
						default:
							check("type "+s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								check("var "+n.Name, s.Type)
								for _, v := range s.Values {
									if cl, ok := v.(*ast.CompositeLit); ok {
										check("var "+n.Name, cl.Type)
									}
								}
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files checked", checked)
	}
}
