package execute

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deltakit/delta/lib/execute/guard"
)

// helperEnv makes the test binary act as an engine that runs one command
// and is then killed (see TestMain).
const helperEnv = "DELTA_EXECUTE_TEST_HELPER"

// escapeEnv makes the test binary leave its process group and become
// `sleep VALUE` (see TestMain).
const escapeEnv = "DELTA_EXECUTE_TEST_ESCAPE"

// guardModeEnv tells a helper test process which guard Run must use: a
// path to the dedicated binary, or "self".
const guardModeEnv = "DELTA_EXECUTE_TEST_GUARD"

// nestEnv makes the test binary act as an engine whose command is itself
// an engine (a helperEnv process with VALUE as its marker): two guards,
// one under the other, as a worker's delta-run and its tools have.
const nestEnv = "DELTA_EXECUTE_TEST_NEST"

// findEnv makes the test binary print what findGuardBinary finds.
const findEnv = "DELTA_EXECUTE_TEST_FIND"

// dedicatedGuard is the delta-exec-guard binary TestMain builds, so that
// every test of Run runs with both guards.
var dedicatedGuard string

func TestMain(m *testing.M) {
	if marker := os.Getenv(escapeEnv); marker != "" {
		syscall.Setpgid(0, 0)
		sleep, err := exec.LookPath("sleep")
		if err == nil {
			fmt.Println("up") // proves the escape happened before the command ended
			err = syscall.Exec(sleep, []string{"sleep", marker}, os.Environ())
		}
		fmt.Fprintln(os.Stderr, "escape helper:", err)
		os.Exit(3)
	}
	if os.Getenv(findEnv) != "" {
		fmt.Print(findGuardBinary())
		os.Exit(0)
	}
	if marker := os.Getenv(nestEnv); marker != "" {
		setGuard(os.Getenv(guardModeEnv))
		var env []string // without nestEnv, or the command would nest again
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, nestEnv+"=") {
				env = append(env, kv)
			}
		}
		env = append(env, helperEnv+"="+marker)
		Run(context.Background(), Spec{Argv: []string{os.Args[0], "-test.run=^$"}, Env: env})
		fmt.Fprintln(os.Stderr, "nest helper: Run returned, which it should not")
		os.Exit(3)
	}
	if marker := os.Getenv(helperEnv); marker != "" {
		// Pretend to be an engine running a tool that backgrounds a child.
		setGuard(os.Getenv(guardModeEnv))
		Run(context.Background(), Spec{Argv: []string{"sh", "-c", "sleep " + marker + " & sleep " + marker}})
		fmt.Fprintln(os.Stderr, "helper: Run returned, which it should not")
		os.Exit(3)
	}
	os.Exit(runTests(m))
}

// runTests builds the dedicated guard, then runs the tests.
func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "delta-exec-guard-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	dedicatedGuard = filepath.Join(dir, guard.Name)
	build := exec.Command("go", "build", "-o", dedicatedGuard, "github.com/deltakit/delta/cmd/delta-exec-guard")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build %s: %v\n%s", guard.Name, err, out)
		return 1
	}
	return m.Run()
}

// setGuard makes Run use the guard mode named as in guardModeEnv.
func setGuard(mode string) {
	if mode == "self" {
		mode = ""
	}
	guardBinary = func() string { return mode }
}

// guardEnvFor is the guardModeEnv entry passing on the guard binary path
// ("" for self re-exec).
func guardEnvFor(path string) string {
	if path == "" {
		path = "self"
	}
	return guardModeEnv + "=" + path
}

// forEachGuard runs f as two subtests: with the dedicated guard binary and
// with the self re-exec fallback.
func forEachGuard(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, mode := range []struct{ name, path string }{{"dedicated", dedicatedGuard}, {"self", ""}} {
		t.Run(mode.name, func(t *testing.T) {
			useGuard(t, mode.path)
			f(t)
		})
	}
}

// useGuard makes Run use the guard binary at path ("" for self re-exec)
// until tb ends.
func useGuard(tb testing.TB, path string) {
	old := guardBinary
	guardBinary = func() string { return path }
	tb.Cleanup(func() { guardBinary = old })
}
