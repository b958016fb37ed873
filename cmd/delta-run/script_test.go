package main

import (
	"os"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

// TestScripts runs the testdata/script/*.txtar CLI scenarios against the
// real binaries with the scripted provider.
func TestScripts(t *testing.T) {
	p := clitest.Params(t, "testdata/script")
	testscript.Run(t, p)
}
