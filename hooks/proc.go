package hooks

import (
	"context"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/execute"
)

// result is what running a hook command produced.
type result struct {
	exitCode int
	timedOut bool
	canceled bool // the run was interrupted while the hook ran
	startErr error
	stdout   string
	stderr   string
}

// stderrTail is how much of a hook's stderr a failure or block reason
// quotes.
const stderrTail = 1000

// execHook runs argv in dir with the payload on stdin, the way every Delta
// command runs (execute.Run: own process group, SIGTERM then SIGKILL at the
// timeout, nothing left behind). The full output goes to metaDir as
// stdout.log and stderr.log.
func execHook(ctx context.Context, argv []string, dir string, env []string, stdin []byte, timeout time.Duration, metaDir string) result {
	if stdin == nil {
		stdin = []byte{}
	}
	res, err := execute.Run(ctx, execute.Spec{Argv: argv, Dir: dir, Env: env, Stdin: stdin, Timeout: timeout, OutputDir: metaDir})
	if err != nil {
		return result{startErr: err}
	}
	return result{exitCode: res.ExitCode, timedOut: res.TimedOut, canceled: res.Canceled, stdout: res.Stdout, stderr: res.Stderr}
}

// tail formats the end of a hook's stderr for a reason or failure.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > stderrTail {
		s = "…" + s[len(s)-stderrTail:]
	}
	return ": " + s
}
