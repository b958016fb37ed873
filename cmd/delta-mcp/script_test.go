package main

import (
	"os"
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
	testscript.Run(t, p)
}
