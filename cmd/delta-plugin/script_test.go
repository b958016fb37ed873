package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// TestScripts drives delta-plugin, delta-run and real plugin binaries. The
// scripts also see MODROOT (to build examples/plugin-tool) and the real Go
// caches (HOME is private).
func TestScripts(t *testing.T) {
	clitest.Run(t, "testdata/script", clitest.WithGoBuild(), clitest.WithSetup(func(env *testscript.Env) error {
		env.Setenv("DELTA_PLUGIN_DIR", env.WorkDir+"/plugins")
		return nil
	}))
}
