package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

// TestScripts runs the testdata/script/*.txtar scenarios against the real
// binaries, the agents' models scripted.
func TestScripts(t *testing.T) {
	p := clitest.Params(t, "testdata/script")
	p.Cmds["waitfile"] = waitFile
	p.Cmds["waitgrep"] = waitGrep
	testscript.Run(t, p)
}

// waitDeadline is generous: the machine running the tests may be loaded.
const waitDeadline = 90 * time.Second

// waitfile PATH waits until PATH exists.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(waitDeadline); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	ts.Fatalf("waitfile: %s did not appear within %s", args[0], waitDeadline)
}

// waitgrep TEXT PATH waits until the file PATH contains TEXT.
func waitGrep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitgrep TEXT PATH")
	}
	path := ts.MkAbs(args[1])
	for deadline := time.Now().Add(waitDeadline); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), args[0]) {
			return
		}
	}
	data, _ := os.ReadFile(path)
	ts.Fatalf("waitgrep: %s does not contain %q within %s; it holds:\n%s", filepath.Base(path), args[0], waitDeadline, data)
}
