package contextgen

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/execute"
)

// stderrTail is how much of a failed generator's stderr an error quotes.
const stderrTail = 2000

// runGenerator runs argv in the workspace the way every Delta command runs
// (execute.Run: own process group, SIGTERM then SIGKILL at the timeout,
// nothing left behind).
func runGenerator(ctx context.Context, argv []string, run engine.RunInfo, env []string, timeout time.Duration) error {
	res, err := execute.Run(ctx, execute.Spec{Argv: argv, Dir: run.WorkDir, Env: env, Timeout: timeout, MaxCapture: 2 * stderrTail})
	switch {
	case err != nil:
		return fmt.Errorf("%w: start %q: %v", ErrGenerator, argv[0], err)
	case res.TimedOut:
		return fmt.Errorf("%w: %q still running after %v, killed", ErrTimeout, argv[0], timeout)
	case res.Canceled:
		return fmt.Errorf("%w: %q interrupted: %v", ErrGenerator, argv[0], ctx.Err())
	case res.ExitCode != 0:
		return fmt.Errorf("%w: %q exited with code %d%s", ErrGenerator, argv[0], res.ExitCode, tail(res.Stderr))
	}
	return nil
}

// tail formats the end of a command's stderr for an error message.
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
