package main

import (
	"os"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// TestScripts runs testdata/script/*.txtar against the real binaries.
func TestScripts(t *testing.T) { clitest.Run(t, "testdata/script", clitest.WithExamples()) }
