package main

import (
	"os"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/plugins/lock"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

// TestScripts runs the testdata/script/*.txtar CLI scenarios against the
// real binaries with the scripted provider.
func TestScripts(t *testing.T) {
	p := clitest.Params(t, "testdata/script")
	clitest.WithExamples()(&p)
	// As make build does: the first-party plugins beside delta-run are trusted
	// by the manifest, so the built-in agent runs without an install.
	if err := lock.WriteManifest(clitest.BinDir(t), lock.FirstPartyBinaries...); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, p)
}
