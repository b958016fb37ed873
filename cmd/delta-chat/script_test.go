package main

import (
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

// TestScripts runs testdata/script/*.txtar: delta chat without a terminal,
// reading its lines from stdin.
func TestScripts(t *testing.T) { clitest.Run(t, "testdata/script", clitest.WithExamples()) }
