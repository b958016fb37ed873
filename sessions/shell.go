package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Result is what exec prints (seeds/000 §2.3.2), plus timed_out and
// state_lost when they happen.
type Result struct {
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	ExitCode        int    `json:"exit_code"`
	ExecutionTimeMS int64  `json:"execution_time_ms"`
	TimedOut        bool   `json:"timed_out,omitempty"`
	StateLost       bool   `json:"state_lost,omitempty"`
}

// TimeoutExitCode is the exit_code reported for a timed-out command, as
// timeout(1) does.
const TimeoutExitCode = 124

// execShell runs command in the shell session at dir: restore, run, dump.
func execShell(dir string, m *Metadata, command string, timeout time.Duration) (*Result, error) {
	for _, f := range []string{".saved", ".env.sh.new", ".work_dir.txt.new"} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	if err := os.WriteFile(filepath.Join(dir, ".command"), []byte(command), 0o600); err != nil {
		return nil, fmt.Errorf("write command: %w", err)
	}
	cmd, err := shellCommand(dir, m)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	timedOut, err := runGroup(cmd, timeout)
	elapsed := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", m.Argv[0], err)
	}
	res := &Result{ExitCode: exitCode(cmd), ExecutionTimeMS: elapsed.Milliseconds(), TimedOut: timedOut}
	saved, err := commitState(dir)
	if err != nil {
		return nil, err
	}
	if !saved {
		stderr.WriteString("delta-sessions: the shell state of this command was not saved (it was killed, exec'd another program or replaced the EXIT trap); the session keeps its previous state\n")
	}
	if timedOut {
		res.ExitCode = TimeoutExitCode
		stderr.WriteString(TimeoutMessage(timeout))
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	return res, nil
}

// shellCommand builds the wrapper invocation. A session with saved state
// starts from an empty environment: env.sh restores every variable, so
// ones the user unset stay unset.
func shellCommand(dir string, m *Metadata) (*exec.Cmd, error) {
	path, err := resolve(m.Argv)
	if err != nil {
		return nil, err
	}
	var args []string
	script := bashScript
	if m.Kind == KindBash {
		args = append(args, "--noprofile", "--norc")
	} else {
		script = shScript
	}
	args = append(args, m.Argv[1:]...)
	args = append(args, "-c", script, filepath.Base(m.Argv[0]), dir)
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Stdin = nil
	if _, err := os.Stat(filepath.Join(dir, "env.sh")); err == nil {
		cmd.Env = []string{}
	}
	return cmd, nil
}

// commitState renames the dumped state into place if the dump completed.
func commitState(dir string) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, ".saved")); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	for _, f := range []string{"env.sh", "work_dir.txt"} {
		if err := os.Rename(filepath.Join(dir, "."+f+".new"), filepath.Join(dir, f)); err != nil {
			return false, fmt.Errorf("save session state: %w", err)
		}
	}
	return true, os.Remove(filepath.Join(dir, ".saved"))
}
