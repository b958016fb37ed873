package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/sessions"
)

// CLI is the delta-sessions grammar.
type CLI struct {
	cli.ManFlag

	Start startCmd `cmd:"" help:"Start a session and print its id as JSON. COMMAND is bash (default), sh, zsh-less POSIX shells, python3 or node."`
	Exec  execCmd  `cmd:"" help:"Run a command (argument or stdin) in a session; print stdout, stderr, exit_code and execution_time_ms as JSON."`
	End   endCmd   `cmd:"" help:"Terminate a session (stops its interpreter, if any)."`
	List  listCmd  `cmd:"" help:"List sessions as a JSON array."`
	Hold  holdCmd  `cmd:"" name:"__hold" hidden:"" help:"Run the holder of an interpreter session (internal)."`
}

// Description is the long help, and the DESCRIPTION of the man page.
func (CLI) Help() string {
	return `Sessions live in $DELTA_SESSIONS_DIR, else ./.sessions, one directory per session:
metadata.json, env.sh (the saved shell state), work_dir.txt, history.log, lock.

Shell sessions (bash, sh) have no running process between execs: each exec starts the shell,
restores the saved state, runs the command with eval, and dumps the state again from the same
shell. bash keeps the working directory, exported and plain variables (arrays too), functions,
aliases and set -o / shopt options; sh (dash) keeps the directory, variables, exports, aliases
and options but not functions (dash cannot print them). State survives kill -9 and reboots.
State is not saved when the command replaces the EXIT trap or exec's another program.

Interpreter sessions (python3, node) keep a live interpreter in a detached holder process
(unix socket in the session directory), so variables, imports and definitions persist. An
uncaught exception gives exit_code 1 with the traceback on stderr; the interpreter lives on.
The last expression's value is printed, as in a REPL. A holder stops after --idle-timeout
without use; exec then reports the session dead.

Execs of one session are serialised by a lock. On timeout (exec --timeout, default 10s) the
command's process group gets SIGTERM, then SIGKILL 2 seconds later; exit_code is 124 and
"timed_out": true; the session stays usable (an interpreter gets SIGINT first and keeps its
state if it recovers; otherwise it is restarted and "state_lost": true).

Errors are printed as JSON on stdout, {"error": "...", "hint": "..."}, and on stderr.

Exit codes: 0 the command ran (whatever its exit_code), 1 failure (unknown, ended or dead
session), 2 bad command line.`
}

func store() (*sessions.Store, error) {
	return sessions.NewStore(sessions.DefaultDir())
}

// printJSON writes v as one line of JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// fail prints the error as JSON for the agent and returns it with an exit
// code and hint for the human on stderr.
func fail(w io.Writer, code int, hint string, err error) error {
	out := map[string]string{"error": err.Error()}
	if hint != "" {
		out["hint"] = hint
	}
	if errors.Is(err, sessions.ErrHolderDead) {
		out["status"] = sessions.StatusDead
	}
	_ = printJSON(w, out)
	return cli.WithCode(code, hint, err)
}

// classify picks the exit code and hint for a sessions error.
func classify(w io.Writer, err error) error {
	switch {
	case errors.Is(err, sessions.ErrUnknownSession), errors.Is(err, sessions.ErrBadID):
		return fail(w, cli.ExitFailed, "list sessions with: delta-sessions list", err)
	case errors.Is(err, sessions.ErrEnded):
		return fail(w, cli.ExitFailed, "start a new session with: delta-sessions start", err)
	case errors.Is(err, sessions.ErrHolderDead):
		return fail(w, cli.ExitFailed, "the interpreter and its state are gone; start a new session with: delta-sessions start", err)
	case errors.Is(err, sessions.ErrExists):
		return fail(w, cli.ExitFailed, "pick another --id or end and reuse none: ids are never reused", err)
	case errors.Is(err, sessions.ErrUnsupported):
		return fail(w, cli.ExitUsage, "supported: bash, sh, dash, python3, python, node", err)
	}
	return fail(w, cli.ExitFailed, "", err)
}

type startCmd struct {
	Command     []string      `arg:"" optional:"" passthrough:"" help:"Program and arguments: bash (default), sh, python3, node."`
	ID          string        `help:"Use this session id (sess_ followed by a-z, 0-9, - or _) instead of a random one." placeholder:"SESSION_ID"`
	Cwd         string        `help:"Directory the session starts in (default: the current directory)." placeholder:"DIR"`
	IdleTimeout time.Duration `name:"idle-timeout" default:"30m" help:"Stop an interpreter holder after this long without use (0: never)."`
}

func (c *startCmd) Run(k *kong.Context) error {
	st, err := store()
	if err != nil {
		return classify(k.Stdout, err)
	}
	m, err := st.Start(c.Command, sessions.StartOptions{ID: c.ID, WorkDir: c.Cwd, IdleTimeout: c.IdleTimeout})
	if err != nil {
		return classify(k.Stdout, err)
	}
	return printJSON(k.Stdout, map[string]string{
		"session_id": m.SessionID, "command": m.Command, "work_dir": m.WorkDir, "status": m.Status,
	})
}

type execCmd struct {
	ID      string        `arg:"" name:"session_id" help:"Session id from start."`
	Command []string      `arg:"" optional:"" help:"The command; joined with spaces. Read from stdin when absent."`
	Timeout time.Duration `default:"10s" help:"Kill the command after this long (0: no limit)."`

	In io.Reader `kong:"-"`
}

func (c *execCmd) Run(k *kong.Context) error {
	st, err := store()
	if err != nil {
		return classify(k.Stdout, err)
	}
	command := strings.Join(c.Command, " ")
	if len(c.Command) == 0 {
		in := c.In
		if in == nil {
			in = os.Stdin
		}
		b, err := io.ReadAll(in)
		if err != nil {
			return classify(k.Stdout, fmt.Errorf("read command from stdin: %w", err))
		}
		command = string(b)
	}
	res, err := st.Exec(c.ID, command, c.Timeout)
	if err != nil {
		return classify(k.Stdout, err)
	}
	return printJSON(k.Stdout, res)
}

type endCmd struct {
	ID string `arg:"" name:"session_id" help:"Session id from start."`
}

func (c *endCmd) Run(k *kong.Context) error {
	st, err := store()
	if err != nil {
		return classify(k.Stdout, err)
	}
	m, err := st.End(c.ID)
	if err != nil {
		return classify(k.Stdout, err)
	}
	return printJSON(k.Stdout, map[string]string{"status": m.Status, "session_id": m.SessionID})
}

type listCmd struct {
	All bool `help:"Include terminated sessions."`
}

type listEntry struct {
	SessionID string    `json:"session_id"`
	Command   string    `json:"command"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

func (c *listCmd) Run(k *kong.Context) error {
	st, err := store()
	if err != nil {
		return classify(k.Stdout, err)
	}
	all, err := st.List()
	if err != nil {
		return classify(k.Stdout, err)
	}
	out := []listEntry{}
	for _, m := range all {
		st.Alive(m)
		if m.Status == sessions.StatusTerminated && !c.All {
			continue
		}
		out = append(out, listEntry{m.SessionID, m.Command, m.Status, m.CreatedAt})
	}
	return printJSON(k.Stdout, out)
}

type holdCmd struct {
	Dir string `arg:"" help:"Session directory."`
}

func (c *holdCmd) Run() error {
	return sessions.Hold(c.Dir, os.NewFile(3, "ready"))
}
