package cli_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsUseStdio keeps every command testable in-process: outside
// main.go (which passes cli.OSStdio()), no file of cmd/ may reach for the
// process's streams; a command writes to the Stdio its Run method gets.
func TestCommandsUseStdio(t *testing.T) {
	root := filepath.Join("..", "..", "cmd")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") ||
			strings.HasSuffix(path, "_test.go") || d.Name() == "main.go" {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" &&
				(sel.Sel.Name == "Stdin" || sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") {
				t.Errorf("%s uses os.%s: take the stream from the command's cli.Stdio", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked %d files under %s; the walk missed the commands", checked, root)
	}
}
