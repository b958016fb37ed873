package contextgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/engine"
)

// stderrTail is how much of a failed generator's stderr an error quotes.
const stderrTail = 2000

// runGenerator runs argv in the workspace in its own process group; when
// the timeout passes the whole group gets SIGTERM, then SIGKILL.
func runGenerator(ctx context.Context, argv []string, run engine.RunInfo, env []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = run.WorkDir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers of the group
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %q still running after %v, killed", ErrTimeout, argv[0], timeout)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return fmt.Errorf("%w: %q exited with code %d%s", ErrGenerator, argv[0], exit.ExitCode(), tail(stderr.String()))
	case err != nil:
		return fmt.Errorf("%w: start %q: %v", ErrGenerator, argv[0], err)
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
