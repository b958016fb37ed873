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
		buildErr = build(root, binDir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// build compiles every main package under cmd/ and plugins/ into dir. When
// the whole set fails it builds them one by one, so that one broken binary
// only fails the scripts that use it (they then report "not found").
func build(root, dir string) error {
	pkgs, err := mainPackages(root)
	if err != nil {
		return err
	}
	if goBuild(root, dir, pkgs...) == nil {
		return nil
	}
	var failed []string
	for _, p := range pkgs {
		if err := goBuild(root, dir, p); err != nil {
			failed = append(failed, err.Error())
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(os.Stderr, "clitest: some binaries did not build:\n%s\n", strings.Join(failed, "\n"))
	}
	return nil
}

// mainPackages lists the import paths of every main package under cmd/
// and plugins/ of the module at root: every binary Delta ships.
func mainPackages(root string) ([]string, error) {
	list := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./cmd/...", "./plugins/...")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no main packages under cmd/ or plugins/")
	}
	return pkgs, nil
}

func goBuild(root, dir string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, out.String())
	}
	return nil
}

// Params returns testscript parameters for the scripts in dir, with the
// binaries on PATH, a private HOME, no colour, no Delta or provider
// variables leaking in from the developer's environment, and the exits
// command (Exits).
func Params(t testing.TB, dir string) testscript.Params {
	bin := BinDir(t)
	return testscript.Params{
		Dir:  dir,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": Exits},
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

// Run runs the testscript files in dir against the real binaries, with
// Params' environment adjusted by opts in order.
func Run(t *testing.T, dir string, opts ...Option) {
	p := Params(t, dir)
	for _, o := range opts {
		o(&p)
	}
	testscript.Run(t, p)
}

// Option adjusts the testscript parameters of Run: what a package's
// scripts need beyond the binaries on PATH.
type Option func(*testscript.Params)

// WithSetup runs fn for every script after the common setup (and after
// the setups of earlier options).
func WithSetup(fn func(env *testscript.Env) error) Option {
	return func(p *testscript.Params) {
		prev := p.Setup
		p.Setup = func(env *testscript.Env) error {
			if err := prev(env); err != nil {
				return err
			}
			return fn(env)
		}
	}
}

// WithExamples sets $EXAMPLES to the repository's examples directory, so
// scripts can run the shipped examples.
func WithExamples() Option {
	return WithSetup(func(env *testscript.Env) error {
		root, err := ModuleRoot()
		if err != nil {
			return err
		}
		env.Setenv("EXAMPLES", filepath.Join(root, "examples"))
		return nil
	})
}

// WithGoBuild lets scripts run the go command: $MODROOT is the module
// root, and GOCACHE, GOMODCACHE and GOPATH are the real ones (HOME is
// private, so go would otherwise start with empty caches and need the
// network).
func WithGoBuild() Option {
	return func(p *testscript.Params) {
		root, rootErr := ModuleRoot()
		goenv := map[string]string{}
		var envErr error
		for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			out, err := exec.Command("go", "env", k).Output()
			if err != nil {
				envErr = fmt.Errorf("go env %s: %v", k, err)
				break
			}
			goenv[k] = strings.TrimSpace(string(out))
		}
		WithSetup(func(env *testscript.Env) error {
			if rootErr != nil {
				return rootErr
			}
			if envErr != nil {
				return envErr
			}
			env.Setenv("MODROOT", root)
			for k, v := range goenv {
				env.Setenv(k, v)
			}
			env.Setenv("GOFLAGS", "-mod=mod")
			return nil
		})(p)
	}
}

// WithCmds adds custom script commands.
func WithCmds(cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) Option {
	return func(p *testscript.Params) {
		if p.Cmds == nil {
			p.Cmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}
		}
		for name, fn := range cmds {
			p.Cmds[name] = fn
		}
	}
}

// Main runs the tests and then removes the built binaries. A CLI test's
// TestMain is: func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	Cleanup()
	return code
}

// Cleanup removes the built binaries; call it from TestMain after m.Run.
func Cleanup() {
	for _, dir := range []string{binDir, releaseDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
}
