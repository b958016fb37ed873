package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseErr  error
)

// ReleaseBinDir builds every main package (cmd/... and the first-party
// plugins) once as make build does, static (CGO_ENABLED=0), -trimpath and
// stripped (-s -w), and returns the directory they are in. Benchmarks of
// start-up and CPU use these: BinDir's plain go build links libc
// dynamically where cgo is on, which every start would pay and a user's
// binary does not. Cleanup removes it.
func ReleaseBinDir(t testing.TB) string {
	t.Helper()
	releaseOnce.Do(func() {
		root, err := ModuleRoot()
		if err != nil {
			releaseErr = err
			return
		}
		releaseDir, err = os.MkdirTemp("", "delta-releasebin-")
		if err != nil {
			releaseErr = err
			return
		}
		pkgs, err := mainPackages(root)
		if err != nil {
			releaseErr = err
			return
		}
		releaseErr = buildRelease(root, releaseDir, pkgs...)
	})
	if releaseErr != nil {
		t.Fatal(releaseErr)
	}
	return releaseDir
}

// buildRelease builds pkgs (run from dir root) into dir with the release's
// flags.
func buildRelease(root, dir string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-trimpath", "-ldflags", "-s -w", "-o", dir + string(os.PathSeparator)}, pkgs...)...)
	cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	return nil
}

// ReleaseBinary builds the one main package pkg (a path relative to the
// module root, "./cmd/delta-context") with the release's flags into a
// temporary directory and returns the binary's path.
func ReleaseBinary(t testing.TB, pkg string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := buildRelease(root, dir, pkg); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.Base(pkg))
}

// Hello builds the minimal Go program start-up benchmarks compare with (it
// writes "hello" to stdout), with the release's flags, and returns its path.
func Hello(t testing.TB) string {
	t.Helper()
	src := t.TempDir()
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(src, "hello")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Dir, cmd.Env = src, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build hello: %v\n%s", err, out)
	}
	return bin
}
