package sessions

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/secret"
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
	env := splitSecrets(os.Environ())
	cmd, err := shellCommand(dir, m, nonce, env.secrets)
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
	saved, err := commitState(dir, nonce, env.plain)
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

// shellCommand builds the wrapper invocation; secrets are the caller's
// secret variables (NAME=value). A session with saved state starts from
// an empty environment: env.sh restores every variable, so ones the user
// unset stay unset.
func shellCommand(dir string, m *Metadata, nonce string, secrets []string) (*exec.Cmd, error) {
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
	// The caller's secrets, by name: unset before the state is saved.
	names := secretVarNames(secrets)
	script = strings.Replace(script, callerSecretNames, strings.Join(names, " "), 1)
	script = strings.Replace(script, callerSecrets, strings.Join(append([]string{"_"}, wrap(names)...), "|"), 1)
	args = append(args, "-c", script, filepath.Base(m.Argv[0]), dir, nonce)
	if err := privateSpares(dir); err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = nil
	cmd.Env = os.Environ()
	if _, err := os.Stat(filepath.Join(dir, "env.sh")); err == nil {
		// env.sh restores every variable but the secrets, which it never
		// holds: those come from the caller, this time as every time.
		cmd.Env = secrets
	}
	return cmd, nil
}

// privateSpares makes sure the files the shell writes its state into
// exist, readable by their owner only, before it runs: a shell creates
// files with its umask. The first exec of a session creates them; they
// then stay (see exchange).
func privateSpares(dir string) error {
	for _, name := range []string{spare("env.sh"), spare("work_dir.txt")} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil {
			if fi.Mode().Perm()&0o077 != 0 {
				if err := os.Chmod(p, 0o600); err != nil {
					return err
				}
			}
			continue
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

// callerEnv is the caller's environment sorted by the secret rule, once
// per exec: the rule looks at every name, and the state dump repeats most
// of them.
type callerEnv struct {
	secrets []string        // the NAME=value entries that are secrets
	plain   map[string]bool // the names of the others
}

func splitSecrets(environ []string) callerEnv {
	env := callerEnv{secrets: []string{}, plain: make(map[string]bool, len(environ))}
	for _, kv := range environ {
		if name, value, _ := strings.Cut(kv, "="); secret.IsSecret(name, value) {
			env.secrets = append(env.secrets, kv)
		} else {
			env.plain[name] = true
		}
	}
	return env
}

// secretVarNames are the names of the secrets (NAME=value entries) that
// are shell variable names (letters, digits and _: nothing a shell treats
// specially, so they can stand in the script).
func secretVarNames(secrets []string) []string {
	var names []string
	for _, kv := range secrets {
		if name, _, _ := strings.Cut(kv, "="); validName(name) {
			names = append(names, name)
		}
	}
	return names
}

// wrap makes case patterns _NAME_ of names ("_" alone matches none).
func wrap(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "_" + n + "_"
	}
	return out
}

// validName reports whether name is a shell variable name.
func validName(name string) bool {
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return name != ""
}

// commitState puts the dumped state in place if the dump of this exec
// completed: the spare .env.sh.new has the stateSaved line with nonce,
// after which it is cut (it was overwritten in place, so an older, longer
// dump may follow). A dump cut short (the shell killed, exec'd another
// program, its EXIT trap replaced) lacks that line and is left as the
// spare.
// plain names variables known not to have a secret name.
func commitState(dir, nonce string, plain map[string]bool) (bool, error) {
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
	if kept := restorable(data[:end], plain); len(kept) < end {
		// bash's own read-only variables, and any variable with a secret
		// name set inside the session: their lines go, the rest of the
		// state is saved.
		if err := overwrite(path, kept); err != nil {
			return false, fmt.Errorf("save session state: %w", err)
		}
	} else if end < len(data) {
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

// unrestorable are bash's own variables that declare -p lists but that no
// shell can take back: the read-only ones, each refused with an error
// message at every restore (the options are restored from the dump's
// first line instead), and the call stack's arrays, which bash keeps
// itself. Their lines are not saved.
var unrestorable = map[string]bool{"BASHOPTS": true, "SHELLOPTS": true, "BASH_VERSINFO": true, "EUID": true, "PPID": true,
	"UID": true, "BASH_ARGC": true, "BASH_ARGV": true, "BASH_LINENO": true, "BASH_SOURCE": true}

// restorable drops from a bash state dump the lines that set a variable
// with a secret name (lib/secret), and those of the unrestorable
// variables. bash's declare -p prints each variable on one line, starting
// "declare -FLAGS NAME=" (values with newlines are quoted $'…'); lines of
// function bodies are indented. The names in plain are known not to be
// secret names (the caller's environment, which makes most of a dump):
// they are not asked again.
func restorable(dump []byte, plain map[string]bool) []byte {
	lines := bytes.SplitAfter(dump, []byte("\n"))
	out := dump[:0:0]
	dropped := false
	for _, l := range lines {
		if name, ok := declaredName(l); ok && (unrestorable[name] ||
			!plain[name] && secret.IsSecretName(name) && name != "PWD" && name != "OLDPWD") {
			dropped = true
			continue
		}
		out = append(out, l...)
	}
	if !dropped {
		return dump
	}
	return out
}

// declaredName is NAME of a line "declare -FLAGS NAME=…" or "declare
// -FLAGS NAME".
func declaredName(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("declare -"))
	if !ok {
		return "", false
	}
	_, rest, ok = bytes.Cut(rest, []byte(" "))
	if !ok {
		return "", false
	}
	end := bytes.IndexAny(rest, "=\n")
	if end < 0 {
		end = len(rest)
	}
	return string(rest[:end]), end > 0
}
