package contextgen

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/runs"
)

// stderrTail is how much of a failed generator's stderr an error quotes.
const stderrTail = 2000

// runGenerator runs argv in the workspace the way every Delta command runs
// (execute.Run: own process group, SIGTERM then SIGKILL at the timeout,
// nothing left behind). Like a hook, each run leaves a record under the
// run directory, io/generators/{seq}_{id}/ (command.txt, exit_code.txt,
// stdout.log, stderr.log), so a failing generator can be debugged from
// files; a failure's error names it.
func runGenerator(ctx context.Context, id string, argv []string, run engine.RunInfo, env []string, timeout time.Duration) error {
	spec := execute.Spec{Argv: argv, Dir: run.WorkDir, Env: env, Timeout: timeout, MaxCapture: 2 * stderrTail}
	recDir, ref := "", ""
	if run.RunDir != "" {
		var err error
		if recDir, ref, err = runs.ReserveRecord(run.RunDir, runs.GeneratorsDir, recordName(id)); err != nil {
			return fmt.Errorf("%w: %v", ErrGenerator, err)
		}
		spec.OutputDir = recDir
	}
	res, err := execute.Run(ctx, spec)
	started, code := err == nil, ""
	switch {
	case err != nil:
		code = "not started: " + err.Error()
		err = fmt.Errorf("%w: start %q: %v", ErrGenerator, argv[0], err)
	case res.TimedOut:
		code = "timeout"
		err = fmt.Errorf("%w: %q still running after %v, killed", ErrTimeout, argv[0], timeout)
	case res.Canceled:
		code = "interrupted"
		err = fmt.Errorf("%w: %q interrupted: %v", ErrGenerator, argv[0], ctx.Err())
	case res.ExitCode != 0:
		code = strconv.Itoa(res.ExitCode)
		err = fmt.Errorf("%w: %q exited with code %d%s", ErrGenerator, argv[0], res.ExitCode, tail(res.Stderr))
	default:
		code = "0"
	}
	if recDir != "" {
		if werr := runs.WriteExecMeta(recDir, argv, code, started); werr != nil && err == nil {
			return fmt.Errorf("%w: record: %v", ErrGenerator, werr)
		}
		if err != nil {
			err = fmt.Errorf("%w (record: %s)", err, ref)
		}
	}
	return err
}

// recordName makes a source id safe as part of a file name.
func recordName(id string) string {
	if id == "" {
		return "generator"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == '\\' {
			return '_'
		}
		return r
	}, id)
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
