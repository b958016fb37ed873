package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// TestScripts drives delta-plugin, delta-run and real plugin binaries. The
// scripts also see MODROOT (to build examples/plugin-tool) and the real Go
// caches (HOME is private).
func TestScripts(t *testing.T) {
	root, err := clitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	goenv := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		goenv[k] = strings.TrimSpace(string(out))
	}
	clitest.Run(t, "testdata/script", clitest.WithSetup(func(env *testscript.Env) error {
		env.Setenv("MODROOT", root)
		for k, v := range goenv {
			env.Setenv(k, v)
		}
		env.Setenv("GOFLAGS", "-mod=mod")
		env.Setenv("DELTA_PLUGIN_DIR", env.WorkDir+"/plugins")
		return nil
	}))
}
