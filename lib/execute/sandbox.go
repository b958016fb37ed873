package execute

import (
	"github.com/deltakit/delta/lib/execute/guard"
	"github.com/deltakit/delta/lib/sandbox"
)

// How a command runs sandboxed: the guard starts the guard binary again
// (delta-exec-guard, or our own executable, whose init recognises
// sandbox.ExecArg), which confines itself with Landlock and then execs the
// command. Landlock cannot be applied between fork and exec from Go, and
// the guard itself must stay unconfined (it serves unsandboxed commands
// too, hooks for one), so the confining is done by a process of its own
// that becomes the command: one more exec of a small binary per call.

// sandboxed is c run under r.
func sandboxed(c guard.Command, r sandbox.Rules) (guard.Command, error) {
	path, argv, err := Sandboxed(r, c.Path, c.Argv)
	if err != nil {
		return c, err
	}
	c.Path, c.Argv = path, argv
	return c, nil
}

// Sandboxed is the program and arguments that run the program at path
// with argv confined by r, for callers that start processes themselves
// (plugin hosts): the guard binary in its sandbox mode.
func Sandboxed(r sandbox.Rules, path string, argv []string) (string, []string, error) {
	exe := guardPath()
	full, err := sandbox.Argv(exe, r, path, argv)
	if err != nil {
		return "", nil, err
	}
	return exe, full, nil
}
