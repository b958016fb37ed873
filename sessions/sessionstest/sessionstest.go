// Package sessionstest gives CLI tests of session commands (delta-sessions,
// delta-pty, and agents using them) a private sessions directory per
// script, and stops the holder processes a failing script left behind.
package sessionstest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/sessions"
)

// Dir sets $DELTA_SESSIONS_DIR to $WORK/.sessions for every script and
// kills, when the script ends, every holder still recorded there.
func Dir() clitest.Option {
	return clitest.WithSetup(func(env *testscript.Env) error {
		dir := filepath.Join(env.WorkDir, ".sessions")
		env.Setenv("DELTA_SESSIONS_DIR", dir)
		env.Defer(func() { StopHolders(dir) })
		return nil
	})
}

// StopHolders sends SIGKILL to every holder recorded under the sessions
// directory dir.
func StopHolders(dir string) {
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
