package main

import (
	"os"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

// TestScripts runs the testdata/script/*.txtar CLI scenarios against the
// real binaries with the scripted provider.
func TestScripts(t *testing.T) { clitest.Run(t, "testdata/script") }
