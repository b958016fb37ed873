package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/sessions"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

// TestScripts runs testdata/script/*.txtar with a private sessions
// directory per script; holders a failing script left behind are stopped.
func TestScripts(t *testing.T) {
	p := clitest.Params(t, "testdata/script")
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		root, err := clitest.ModuleRoot()
		if err != nil {
			return err
		}
		env.Setenv("EXAMPLES", filepath.Join(root, "examples"))
		dir := filepath.Join(env.WorkDir, ".sessions")
		env.Setenv("DELTA_SESSIONS_DIR", dir)
		env.Defer(func() { stopHolders(dir) })
		return nil
	}
	testscript.Run(t, p)
}

// stopHolders sends SIGKILL to every holder still recorded under dir.
func stopHolders(dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "holder.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		var hi sessions.HolderInfo
		if err != nil || json.Unmarshal(data, &hi) != nil || hi.PID <= 0 {
			continue
		}
		_ = syscall.Kill(hi.PID, syscall.SIGKILL)
	}
}
