// Package clitest runs testscript CLI tests against the real Delta
// binaries: it builds every main package of the module once per test
// binary into a temporary directory and puts that directory first on PATH.
package clitest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// ModuleRoot returns the directory holding go.mod, found from the current
// directory upwards.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// BinDir builds all binaries (cmd/... and the first-party plugins) once and
// returns the directory they are in.
func BinDir(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := ModuleRoot()
		if err != nil {
			buildErr = err
			return
		}
		binDir, err = os.MkdirTemp("", "delta-testbin-")
		if err != nil {
			buildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "./cmd/...", "./plugins/...")
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out.String())
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// Params returns testscript parameters for the scripts in dir, with the
// binaries on PATH, a private HOME, no colour and no Delta or provider
// variables leaking in from the developer's environment.
func Params(t testing.TB, dir string) testscript.Params {
	bin := BinDir(t)
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("DELTA_BIN", bin)
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				if strings.HasPrefix(name, "DELTA_") || strings.HasPrefix(name, "OPENAI_") || strings.HasPrefix(name, "ANTHROPIC_") {
					env.Setenv(name, "")
				}
			}
			env.Setenv("DELTA_BIN", bin)
			return nil
		},
	}
}

// Run runs the testscript files in dir against the real binaries.
func Run(t *testing.T, dir string) {
	testscript.Run(t, Params(t, dir))
}

// Cleanup removes the built binaries; call it from TestMain after m.Run.
func Cleanup() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}
