package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

// TestScripts runs the testdata/script/*.txtar scenarios against the real
// binaries: an agent whose MCP server is another agent served by
// delta mcp serve, with the scripted provider.
func TestScripts(t *testing.T) {
	p := clitest.Params(t, "testdata/script")
	clitest.WithExamples()(&p)
	p.Cmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits}
	testscript.Run(t, p)
}

// exits N PROG ARGS… runs PROG like exec and asserts its exit status is N.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
