package main

import (
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/plugins/lock"
)

// TestScripts runs testdata/script/*.txtar: delta chat without a terminal,
// reading its lines from stdin.
func TestScripts(t *testing.T) {
	// As make build does: the first-party plugins beside delta-run are trusted
	// by the manifest, so the built-in agent runs without an install.
	if err := lock.WriteManifest(clitest.BinDir(t), lock.FirstPartyBinaries...); err != nil {
		t.Fatal(err)
	}
	clitest.Run(t, "testdata/script", clitest.WithExamples())
}
