package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

// TestScripts drives delta-plugin, delta-run and real plugin binaries. The
// scripts also see MODROOT (to build examples/plugin-tool) and the real Go
// caches (HOME is private).
func TestScripts(t *testing.T) {
	p := clitest.Params(t, "testdata/script")
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
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		env.Setenv("MODROOT", root)
		for k, v := range goenv {
			env.Setenv(k, v)
		}
		env.Setenv("GOFLAGS", "-mod=mod")
		env.Setenv("DELTA_PLUGIN_DIR", env.WorkDir+"/plugins")
		return nil
	}
	testscript.Run(t, p)
}
