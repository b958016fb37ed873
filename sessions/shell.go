package sessions

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
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
// Each of stdout and stderr keeps at most maxOutput bytes (0: all).
// lock is the session's lock file, held by the caller; it records the
// exec's process group while it runs (see killLeftover).
func execShell(dir string, m *Metadata, command string, timeout time.Duration, maxOutput int, lock *os.File) (*Result, error) {
	if err := overwrite(filepath.Join(dir, ".command"), []byte(command)); err != nil {
		return nil, fmt.Errorf("write command: %w", err)
	}
	stdout, stderr := &capWriter{limit: maxOutput}, &capWriter{limit: maxOutput}
	wd, err := shellWorkDir(dir, m, stderr)
	if err != nil {
		return nil, err
	}
	nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd, err := shellCommand(dir, m, nonce)
	if err != nil {
		return nil, err
	}
	cmd.Dir = wd
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	killLeftover(lock, stderr)
	timedOut, err := runGroup(cmd, timeout, func(pgid int) { recordRunning(lock, pgid) })
	clearRunning(lock)
	elapsed := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", m.Argv[0], err)
	}
	res := &Result{ExitCode: exitCode(cmd), ExecutionTimeMS: elapsed.Milliseconds(), TimedOut: timedOut}
	saved, err := commitState(dir, nonce)
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

// shellWorkDir returns the directory the next command runs in: the saved
// one, or, when that is gone, the session's start directory (saved as the
// new working directory, with a warning on stderr). When both are gone it
// fails with ErrNoWorkDir: a command must never run in the session's
// state directory, where it could destroy the session.
func shellWorkDir(dir string, m *Metadata, stderr io.Writer) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "work_dir.txt"))
	if err != nil {
		return "", fmt.Errorf("read working directory: %w", err)
	}
	saved := strings.TrimSuffix(string(data), "\n")
	if isDir(saved) {
		return saved, nil
	}
	if !isDir(m.WorkDir) {
		return "", fmt.Errorf("%w: %s (nor the session's start directory %s)", ErrNoWorkDir, saved, m.WorkDir)
	}
	if err := atomicfile.WriteNoSync(filepath.Join(dir, "work_dir.txt"), []byte(m.WorkDir+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("save working directory: %w", err)
	}
	fmt.Fprintf(stderr, "delta-sessions: warning: the working directory %s is gone; the command runs in the session's start directory %s\n", saved, m.WorkDir)
	return m.WorkDir, nil
}

// shellCommand builds the wrapper invocation. A session with saved state
// starts from an empty environment: env.sh restores every variable, so
// ones the user unset stay unset.
func shellCommand(dir string, m *Metadata, nonce string) (*exec.Cmd, error) {
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
	args = append(args, "-c", script, filepath.Base(m.Argv[0]), dir, nonce)
	cmd := exec.Command(path, args...)
	cmd.Stdin = nil
	if _, err := os.Stat(filepath.Join(dir, "env.sh")); err == nil {
		cmd.Env = []string{}
	}
	return cmd, nil
}

// commitState puts the dumped state in place if the dump of this exec
// completed: the spare .env.sh.new has the stateSaved line with nonce,
// after which it is cut (it was overwritten in place, so an older, longer
// dump may follow). A dump cut short (the shell killed, exec'd another
// program, its EXIT trap replaced) lacks that line and is left as the
// spare.
func commitState(dir, nonce string) (bool, error) {
	path := filepath.Join(dir, spare("env.sh"))
	data, err := os.ReadFile(path)
	if err != nil {
		return false, nil
	}
	mark := "\n" + stateSaved + nonce
	i := strings.Index(string(data), mark)
	if i < 0 {
		return false, nil
	}
	end, rest := i+len(mark), string(data[i+len(mark):])
	cd := strings.HasPrefix(rest, " cd\n")
	switch {
	case cd:
		end += len(" cd\n")
	case strings.HasPrefix(rest, "\n"):
		end++
	default:
		return false, nil
	}
	if end < len(data) {
		if err := os.Truncate(path, int64(end)); err != nil {
			return false, fmt.Errorf("save session state: %w", err)
		}
	}
	// The directory, when it changed, was written before that line.
	if cd {
		if err := exchange(dir, "work_dir.txt"); err != nil {
			return false, fmt.Errorf("save session state: %w", err)
		}
	}
	if err := exchange(dir, "env.sh"); err != nil {
		return false, fmt.Errorf("save session state: %w", err)
	}
	return true, nil
}
