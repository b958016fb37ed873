package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// ErrUnsupported is wrapped by every error that says the system cannot
// enforce a sandbox.
var ErrUnsupported = errors.New("the sandbox is not supported here")

// ExecArg is the hidden first argument with which a Delta binary (the
// delta-exec-guard, or any binary linking lib/execute) applies Rules to
// itself and execs a command:
//
//	BINARY ExecArg RULES_JSON PATH ARGV0 ARGS…
//
// It carries a version: bump it when that form changes.
const ExecArg = "__delta_sandbox_exec_v1__"

// ExitCode is the error of Exec when the command ran as a child of this
// process and ended: the status to exit with.
type ExitCode int

func (c ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// Invoked reports whether args (a process's os.Args) ask for ExecMain.
func Invoked(args []string) bool {
	return len(args) >= 5 && args[1] == ExecArg
}

// Argv is the command line with which binary (a Delta binary, see
// ExecArg) runs the program at path with argv under r.
func Argv(binary string, r Rules, path string, argv []string) ([]string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode sandbox rules: %w", err)
	}
	return append([]string{binary, ExecArg, string(b), path}, argv...), nil
}

// ExecMain applies the rules of args (see ExecArg) and execs the command
// in place of this process. It returns only when that fails: 126 after
// saying why on stderr (as a shell does for a command it cannot run).
func ExecMain(args []string) int {
	var r Rules
	if err := json.Unmarshal([]byte(args[2]), &r); err != nil {
		fmt.Fprintf(os.Stderr, "delta sandbox: bad rules: %v\n", err)
		return 126
	}
	if err := Exec(&r, args[3], args[4:], os.Environ()); err != nil {
		var code ExitCode
		if errors.As(err, &code) {
			return int(code)
		}
		fmt.Fprintf(os.Stderr, "delta sandbox: %v\n", err)
		return 126
	}
	return 0 // not reached: Exec returns only errors
}

// Exec replaces this process with the program at path (looked up in PATH
// when it has no slash), with argv and env, confined to r (nil: not at
// all). It returns only an error, having run nothing; except when the
// network namespace of r.Netns needs a user namespace (not root): the
// program then runs as a child and its status comes back as ExitCode.
func Exec(r *Rules, path string, argv, env []string) error {
	if p, err := exec.LookPath(path); err == nil {
		path = p
	}
	if r != nil {
		// The thread that is restricted is the one that execs (or forks
		// the child): it stays locked (it never runs another goroutine)
		// until it does.
		runtime.LockOSThread()
		userns, err := restrictThread(*r)
		if err != nil {
			return err
		}
		if userns {
			return startInNetns(*r, path, argv, env)
		}
	}
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}
