package main

import (
	"os"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/sessions/sessionstest"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// TestScripts runs testdata/script/*.txtar with a private sessions
// directory per script; holders a failing script left behind are stopped.
func TestScripts(t *testing.T) {
	clitest.Run(t, "testdata/script", clitest.WithExamples(), sessionstest.Dir())
}
