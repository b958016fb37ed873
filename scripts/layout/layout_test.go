package layout

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits: long bodies and long files hide more than one concern.
const (
	maxFuncLines = 80
	maxFileLines = 500
)

// TestSizes fails for every non-test, non-generated Go file of the module
// over maxFileLines lines and every function or method in one whose
// declaration (from func to its closing brace) is over maxFuncLines lines.
func TestSizes(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var problems []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "bin", "dist", "node_modules", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found, err := checkFile(path)
		problems = append(problems, found...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// checkFile returns what in the file at path breaks the limits (nothing
// for generated code).
func checkFile(path string) ([]string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	rel := strings.TrimPrefix(filepath.ToSlash(path), "../../")
	var out []string
	if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, over %d: split it along what the code does", rel, n, maxFileLines))
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		start, end := fset.Position(fn.Type.Func).Line, fset.Position(fn.Body.Rbrace).Line
		if n := end - start + 1; n > maxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: %s is %d lines, over %d: split it along what it does", rel, start, fn.Name.Name, n, maxFuncLines))
		}
	}
	return out, nil
}
