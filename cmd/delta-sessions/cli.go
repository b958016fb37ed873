package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/alecthomas/kong"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/sessions"
	"github.com/deltakit/delta/sessions/jsonout"
)

// CLI is the delta-sessions grammar.
type CLI struct {
	cli.ManFlag

	Dir string `name:"dir" placeholder:"DIR" help:"Directory of the sessions (default $DELTA_SESSIONS_DIR, else ./.sessions)."`

	Start startCmd `cmd:"" help:"Start a session and print its id as JSON. COMMAND is bash (default), sh, python3 or node."`
	Exec  execCmd  `cmd:"" help:"Run a command (argument or stdin) in a session; print stdout, stderr, exit_code and execution_time_ms as JSON."`
	End   endCmd   `cmd:"" help:"Terminate a session (stops its interpreter, if any)."`
	List  listCmd  `cmd:"" help:"List sessions as a JSON array."`
	Hold  holdCmd  `cmd:"" name:"__hold" hidden:"" help:"Run the holder of an interpreter session (internal)."`
}

// AfterApply makes --dir the sessions directory of every command (and of
// the holders they start, which read $DELTA_SESSIONS_DIR).
func (c *CLI) AfterApply() error {
	if c.Dir != "" {
		return os.Setenv("DELTA_SESSIONS_DIR", c.Dir)
	}
	return nil
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-sessions gives an agent persistent sessions it drives one synchronous call at a time: start a session, exec commands in it, end it. Each exec prints {"stdout", "stderr", "exit_code", "execution_time_ms"} as JSON; the command comes as arguments (joined with spaces) or on stdin, heredocs welcome.

Shell sessions (bash, the default; sh/dash) keep no process between execs. Each exec starts the shell, restores the saved state, runs the command with eval in that same shell, and an EXIT trap (which also runs after "exit N") dumps the state again. bash keeps the working directory, exported and plain variables (arrays too), functions, aliases, and set -o and shopt options; unset and unalias persist as well. sh keeps the directory, variables, exports, aliases and options, but not functions (dash cannot print them). Because the state is files, a session survives kill -9 of anything and a reboot. A session's environment is fixed when it starts; later changes to the caller's environment do not flow in. State is not saved when the command replaces the EXIT trap or exec's another program (stderr says so; the session keeps its previous state). Background jobs are not tracked between execs.

Interpreter sessions (python3, node) keep a live interpreter in a small detached holder process (its own session, a unix socket in the session directory), so variables, imports and definitions persist. The value of a final expression is printed, as in a REPL. An uncaught exception gives exit_code 1 with the traceback on stderr, and the interpreter lives on; so does sys.exit(N) (exit_code N). node runs the code in the main context with the driver's own names hidden in a closure, so "const fs = require('fs')" or a function named like anything of the driver is the user's own; require is a global. Top-level await works: such code runs in an async function whose declarations at the start of a line (const, let, var, function, class) become globals, and whose last expression is printed. If the interpreter itself dies, a fresh one is started and the result says "state_lost": true. A holder stops after --idle-timeout without use (default 30m), on end, or when killed; exec then fails with {"error": "holder not running (…)", "status": "dead", "hint": …}.

Output: exec returns at most --max-output bytes (default 30000) of each of stdout and stderr: the first and the last halves, with "[… N bytes of output cut from the middle by delta-sessions (exec --max-output) …]" between them. Shell sessions keep only that much in memory however much the command prints; an interpreter's output is cut when the exec ends.

Execs of one session are serialised by a lock (flock on the session's lock file), never interleaved. The lock dies with its client, but a shell command does not: while it runs, its process group is recorded in the session's lock file, and when a client was killed (kill -9) mid-exec, the next exec kills that leftover command first and says so on stderr. (An interpreter's code runs in its holder, which finishes the exec by itself.) exec --timeout (default 10s) stops a command: its process group gets SIGTERM, then SIGKILL 2 seconds later; the result has exit_code 124, "timed_out": true and a timeout message on stderr, and the session stays usable. An interpreter gets SIGINT first and keeps its state when it recovers (KeyboardInterrupt); otherwise it is killed and restarted ("state_lost": true).

Files: sessions live in $DELTA_SESSIONS_DIR, else ./.sessions, one directory per session id (sess_…): metadata.json (session_id, command, argv, kind, created_at, last_executed_at, status, work_dir, execution_count), env.sh (the saved shell state, sourced by the next exec), work_dir.txt, history.log (one JSON line per exec), lock (which also records the process group of a shell exec while it runs), and for interpreters holder.json (pid, socket), holder.log and holder.exit (why the holder stopped). The hidden .command and .env.sh.new, .work_dir.txt.new and .metadata.json.new are an exec's working copies: each new state is written into the copy, which then trades places with the file in one atomic step, so a crash at any moment leaves the previous state or the new one. No state file ever holds a secret's value (a variable whose name is a secret by delta-run's rule, see delta-run(1) ENVIRONMENT, or one the caller has as a secret): the caller's secrets come from its environment at every exec, and a secret exported inside a session lasts for that exec only. The files and directories are readable by their owner only. An ended session keeps its directory with status "terminated".

Working directory: start --cwd needs an existing directory. If the directory a shell session was left in disappears, the next exec runs in the session's start directory (and stays there) with a warning on stderr; if that is gone too, exec fails with a JSON error. A command never runs in the session's own state directory.

Errors are printed once, as JSON on stdout, {"error": "...", "hint": "..."}, so an agent can read them (its tool observation holds stdout and stderr: a second copy on stderr would show every error twice); the exit status is non-zero.

Examples: "delta-sessions start" → {"session_id": "sess_…", "command": "bash", "work_dir": "…", "status": "active"}; "delta-sessions exec sess_… 'cd /tmp; export A=1'"; "echo 'echo $A; pwd' | delta-sessions exec sess_…"; "delta-sessions start --id sess_py python3"; "delta-sessions exec sess_py 'x = 41'"; "delta-sessions exec sess_py 'x + 1'"; "delta-sessions end sess_py". Agents call these as tools: see examples/interactive-shell and examples/python-repl.

On macOS sessions work as on Linux, with these differences: a file an exec rewrites is swapped in with renamex_np RENAME_SWAP (APFS; on a file system without it, with a plain rename, still atomic for readers); the start time that tells a leftover process group of a dead client from a new group with the same id comes from sysctl(3) instead of /proc. Release builds exist for macOS; the tests run on Linux.

Exit status: 0 the command ran (whatever its own exit_code); 1 failure (unknown, ended or dead session, session already exists); 2 bad command line or unsupported session command.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "persistent shell and interpreter sessions for agents"
	return nil
}

func store() (*sessions.Store, error) {
	return sessions.NewStore(sessions.DefaultDir())
}

// classify picks the exit code and hint for a sessions error, prints it
// as JSON for the agent and returns it, silent, for the exit code.
func classify(w io.Writer, err error) error {
	code, hint := runs.ExitFailed, ""
	switch {
	case errors.Is(err, sessions.ErrUnknownSession), errors.Is(err, sessions.ErrBadID):
		hint = "list sessions with: delta-sessions list"
	case errors.Is(err, sessions.ErrEnded):
		hint = "start a new session with: delta-sessions start"
	case errors.Is(err, sessions.ErrHolderDead):
		hint = "the interpreter and its state are gone; start a new session with: delta-sessions start"
	case errors.Is(err, sessions.ErrExists):
		hint = "ids are never reused, even after end: pick another --id or leave it out for a random one"
	case errors.Is(err, sessions.ErrNoWorkDir):
		hint = "create the directory or start the session with --cwd DIR"
	case errors.Is(err, sessions.ErrUnsupported):
		code, hint = cli.ExitUsage, "supported: bash, sh, dash, python3, python, node"
	}
	jsonout.Fail(w, hint, err)
	return &cli.Error{Code: code, Err: err, Hint: hint, Silent: true}
}

type startCmd struct {
	Command     []string      `arg:"" optional:"" passthrough:"" help:"Program and arguments: bash (default), sh, python3, node."`
	ID          string        `help:"Use this session id (sess_ followed by a-z, 0-9, - or _) instead of a random one." placeholder:"SESSION_ID"`
	Cwd         string        `help:"Directory the session starts in (default: the current directory)." placeholder:"DIR"`
	IdleTimeout time.Duration `name:"idle-timeout" default:"30m" help:"Stop an interpreter holder after this long without use (0: never)."`
}

func (c *startCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return classify(std.Out, err)
	}
	m, err := st.Start(c.Command, sessions.StartOptions{ID: c.ID, WorkDir: c.Cwd, IdleTimeout: c.IdleTimeout})
	if err != nil {
		return classify(std.Out, err)
	}
	return jsonout.Print(std.Out, map[string]string{
		"session_id": m.SessionID, "command": m.Command, "work_dir": m.WorkDir, "status": m.Status,
	})
}

type execCmd struct {
	ID        string        `arg:"" name:"session_id" help:"Session id from start."`
	Command   []string      `arg:"" optional:"" help:"The command; joined with spaces. Read from stdin when absent."`
	Timeout   time.Duration `default:"10s" help:"Kill the command after this long (0: no limit)."`
	MaxOutput int           `name:"max-output" default:"30000" help:"Return at most this many bytes of each of stdout and stderr: the first and last halves, with a marker saying how much was cut (0: no limit)." placeholder:"BYTES"`
	Text      bool          `help:"Print the command's stdout and stderr as they are, on stdout and stderr, and exit with its exit code, instead of JSON (for people)."`
}

func (c *execCmd) Run(std cli.Stdio) error { return c.run(std) }

// run is the exec itself, reached through kong or through fastExec.
func (c *execCmd) run(std cli.Stdio) error {
	stdout := std.Out
	st, err := store()
	if err != nil {
		return classify(stdout, err)
	}
	command, err := jsonout.Input(c.Command, std.In, "command")
	if err != nil {
		return classify(stdout, err)
	}
	st.MaxOutput = c.MaxOutput
	res, err := st.Exec(c.ID, string(command), c.Timeout)
	if err != nil {
		return classify(stdout, err)
	}
	if c.Text {
		return printText(stdout, std.Err, res)
	}
	return jsonout.Print(stdout, res)
}

// printText is exec --text: the command's output as it is, and its exit
// code as ours.
func printText(stdout, stderr io.Writer, res *sessions.Result) error {
	if _, err := io.WriteString(stdout, res.Stdout); err != nil {
		return err
	}
	io.WriteString(stderr, res.Stderr)
	if res.ExitCode != 0 {
		return &cli.Error{Code: res.ExitCode, Silent: true, Err: fmt.Errorf("exit code %d", res.ExitCode)}
	}
	return nil
}

type endCmd struct {
	ID string `arg:"" name:"session_id" help:"Session id from start."`
}

func (c *endCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return classify(std.Out, err)
	}
	m, err := st.End(c.ID)
	if err != nil {
		return classify(std.Out, err)
	}
	return jsonout.Print(std.Out, map[string]string{"status": m.Status, "session_id": m.SessionID})
}

type listCmd struct {
	All bool `help:"Include terminated sessions."`
}

func (c *listCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return classify(std.Out, err)
	}
	all, err := st.List()
	if err != nil {
		return classify(std.Out, err)
	}
	entries := make([]jsonout.Entry, 0, len(all))
	for _, m := range all {
		st.Alive(m)
		entries = append(entries, jsonout.Entry{SessionID: m.SessionID, Command: m.Command, Status: m.Status, CreatedAt: m.CreatedAt})
	}
	return jsonout.List(std.Out, entries, c.All)
}

type holdCmd struct {
	Dir string `arg:"" help:"Session directory."`
}

func (c *holdCmd) Run() error {
	return sessions.Hold(c.Dir, os.NewFile(3, "ready"))
}
