package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/sessions"
	"github.com/deltakit/delta/sessions/jsonout"
	"github.com/deltakit/delta/sessions/pty"
)

// CLI is the delta-pty grammar.
type CLI struct {
	cli.ManFlag

	Start  startCmd  `cmd:"" help:"Start a program (default bash) in a new pseudo-terminal; print the session as JSON."`
	Write  writeCmd  `cmd:"" help:"Type TEXT (or stdin) into the program, exactly as given."`
	Keys   keysCmd   `cmd:"" help:"Press named keys (Enter, Up, C-c, F1 …) in the program."`
	Read   readCmd   `cmd:"" help:"Print the output since the last read (ANSI stripped), or the screen, as JSON."`
	Attach attachCmd `cmd:"" help:"Connect your terminal to the session; detach with Ctrl-] (the program keeps running)."`
	End    endCmd    `cmd:"" help:"Stop the program and everything it started."`
	List   listCmd   `cmd:"" help:"List PTY sessions as a JSON array."`
	Hold   holdCmd   `cmd:"" name:"__hold" hidden:"" help:"Run the holder of a PTY session (internal)."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-pty runs interactive programs (bash, vi, less, top, curses applications) in pseudo-terminals for agents and people. Unlike the experimental PTY sessions of the original Delta Engine design, the two reasons those were deprecated are fixed: reads are plain text or the rendered screen, never raw escape codes, and a read waits for the program instead of the agent sleeping and polling. For plain command execution prefer delta-sessions.

A detached holder process (its own session; this binary re-executed) owns the pseudo-terminal (creack/pty), 1 MiB of scrollback, a terminal emulator (hinshun/vt10x) and a unix socket in the session directory. The program runs with TERM=xterm-256color in a COLSxROWS terminal (default 80x24).

read prints the output since the previous read with escape sequences stripped, as the line would look on the terminal: CR LF becomes LF; a bare CR returns to the start of the line (of its row, when a long line wrapped at the terminal width) and what follows overwrites it, so "abcdef\rXY" reads "XYcdef"; backspace at the end of a line erases, cursor left/right and erase-in-line are followed. Each session has one read cursor. The scrollback keeps the last 1 MiB: when unread output was dropped, the text starts with "[… N bytes of older output dropped …]". read --screen prints the terminal screen as plain text, trailing blanks trimmed, which is what full-screen programs need. read --raw prints the bytes as written. --until REGEX waits until the output (with --screen, the screen) matches the Go regular expression; --idle DURATION waits until the program has written nothing for that long; --timeout DURATION caps either wait (default 10s). In --until, ^ and $ match at the start and end of every line ((?m) is implied). Without --until or --idle read returns at once. write --read and keys --read do the write and return what followed it (output from before the write that was never read is skipped), honouring the same flags; without --until or --idle they wait until the program has been quiet for 300ms (at most 5s, or --timeout). Right after start, first read --until the prompt: text written before the program is ready is echoed before its prompt.

read prints {"output": "...", "matched": false, "timed_out": false, "exited": false, "exit_code": null} (exited and exit_code once the program has ended); --text prints only the output, and exits 1 with a message on stderr when --until did not match before the timeout. start, write, keys, end and list print JSON; errors print {"error": "...", "hint": "..."} on stdout with a non-zero exit status, once (an agent's tool observation holds stdout and stderr).

write types its text exactly (arguments joined with spaces, else stdin); a newline submits a line as Enter would, or add --enter. keys presses named keys: Enter, Tab, Esc, Space, Backspace, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1 to F12, and C-a to C-z (Ctrl; also C-@ C-[ C-\ C-] C-^ C-_); names are case-insensitive and arrow keys follow the application cursor mode the program has set.

attach connects your terminal to the session (raw mode; it first draws the current screen). Ctrl-] detaches and leaves the program running; end of input also detaches. Window size changes are not passed on: the terminal keeps its start size.

end sends SIGHUP and SIGTERM to every process in the terminal's session (jobs in other process groups included), SIGKILL a second later, and stops the holder; the session is then "terminated". list shows each session as active, exited (the program ended; its output can still be read), dead (the holder is gone) or, with --all, terminated. A holder stops by itself after --idle-timeout without use (default 30m; not while someone is attached).

Files: $DELTA_SESSIONS_DIR, else ./.sessions, holds one directory per session id (pty_…, next to delta-sessions' sess_… ones): metadata.json, holder.json, holder.log, holder.exit.

Examples: "delta-pty start --id pty_vi vi notes.txt"; "delta-pty write pty_vi --read --screen --idle 300ms 'iHello'"; "delta-pty keys pty_vi Esc"; "delta-pty write pty_vi --enter ':wq'"; "delta-pty start --id pty_sh bash"; "delta-pty write pty_sh --enter --read --until '\$ $' 'make test'"; "delta-pty end pty_sh". See examples/pty for an agent driving vi.

On macOS the pseudo-terminal (creack/pty), the holder and every verb work as on Linux; end finds the processes of the terminal's session with sysctl(3) instead of /proc. Release builds exist for macOS; the tests run on Linux.

Exit status: 0 ok; 1 failure (unknown, ended or dead session, holder error); 2 bad command line or unknown key.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "drive interactive terminal programs for agents: screen, waits, keys"
	return nil
}

func store() (*pty.Store, error) { return pty.NewStore(sessions.DefaultDir()) }

// fail prints err as JSON for the agent and returns it, silent, for the
// exit code.
func fail(w io.Writer, err error) error {
	code, hint := runs.ExitFailed, ""
	switch {
	case errors.Is(err, pty.ErrUnknownSession), errors.Is(err, pty.ErrBadID):
		hint = "list sessions with: delta-pty list"
	case errors.Is(err, pty.ErrEnded), errors.Is(err, sessions.ErrHolderDead):
		hint = "start a new session with: delta-pty start"
	case errors.Is(err, sessions.ErrNoWorkDir):
		hint = "create the directory or start the session with --cwd DIR"
	case errors.Is(err, pty.ErrUnknownKey):
		code = cli.ExitUsage
	}
	jsonout.Fail(w, hint, err)
	return &cli.Error{Code: code, Err: err, Hint: hint, Silent: true}
}

type startCmd struct {
	Command     []string      `arg:"" optional:"" passthrough:"" help:"Program and arguments (default: bash)."`
	ID          string        `help:"Use this session id (pty_ followed by a-z, 0-9, - or _)." placeholder:"SESSION_ID"`
	Cwd         string        `help:"Directory the program starts in." placeholder:"DIR"`
	Cols        int           `default:"80" help:"Terminal columns."`
	Rows        int           `default:"24" help:"Terminal rows."`
	IdleTimeout time.Duration `name:"idle-timeout" default:"30m" help:"Stop the session after this long without use (0: never)."`
}

func (c *startCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return fail(std.Out, err)
	}
	m, err := st.Start(c.Command, pty.StartOptions{ID: c.ID, WorkDir: c.Cwd, Cols: c.Cols, Rows: c.Rows, IdleTimeout: c.IdleTimeout})
	if err != nil {
		return fail(std.Out, err)
	}
	return jsonout.Print(std.Out, map[string]any{
		"session_id": m.SessionID, "command": m.Command, "work_dir": m.WorkDir,
		"status": m.Status, "cols": m.Cols, "rows": m.Rows,
	})
}

// readFlags are shared by read, write --read and keys --read.
type readFlags struct {
	Screen  bool          `help:"Return the rendered terminal screen instead of the new output." xor:"mode"`
	Raw     bool          `help:"Return the new output as raw bytes, escape sequences included." xor:"mode"`
	Until   string        `help:"Wait until the output (the screen with --screen) matches this regular expression; ^ and $ match at line boundaries." placeholder:"REGEX"`
	Idle    time.Duration `help:"Wait until the program has written nothing for this long." placeholder:"DURATION"`
	Timeout time.Duration `help:"Wait at most this long (default 10s when --until or --idle is given; 5s for a bare write --read)." placeholder:"DURATION"`
	Text    bool          `help:"Print only the output, as plain text, instead of JSON."`
}

func (f *readFlags) options() *pty.ReadOptions {
	o := &pty.ReadOptions{Until: f.Until, IdleMS: f.Idle.Milliseconds(), TimeoutMS: f.Timeout.Milliseconds()}
	switch {
	case f.Screen:
		o.Mode = "screen"
	case f.Raw:
		o.Mode = "raw"
	}
	return o
}

func (f *readFlags) print(w io.Writer, r *pty.ReadResult) error {
	if f.Text {
		if _, err := io.WriteString(w, r.Output); err != nil {
			return err
		}
		if f.Until != "" && !r.Matched && r.TimedOut {
			// Plain text has no "matched": the exit status says it.
			return cli.Errorf(runs.ExitFailed, "the output so far is above; read again, or wait longer with --timeout",
				"--until %q did not match before the timeout", f.Until)
		}
		return nil
	}
	return jsonout.Print(w, r)
}

type readCmd struct {
	ID string `arg:"" name:"session_id" help:"Session id from start."`
	readFlags
}

func (c *readCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return fail(std.Out, err)
	}
	r, err := st.Read(c.ID, c.options())
	if err != nil {
		return fail(std.Out, err)
	}
	return c.print(std.Out, r)
}

type writeCmd struct {
	ID       string   `arg:"" name:"session_id" help:"Session id from start."`
	Text     []string `arg:"" optional:"" help:"Text to type, joined with spaces; stdin when absent. Nothing is added: end with a newline, or use --enter, to submit a line."`
	Enter    bool     `short:"e" help:"Press Enter after the text."`
	ReadBack bool     `name:"read" help:"Then read, as the read command does, with the read flags below."`
	readFlags
}

func (c *writeCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return fail(std.Out, err)
	}
	data, err := jsonout.Input(c.Text, std.In, "text")
	if err != nil {
		return fail(std.Out, err)
	}
	if c.Enter {
		data = append(data, '\r')
	}
	return writeAndRead(std.Out, st, c.ID, data, c.ReadBack, &c.readFlags)
}

// The wait of write --read and keys --read without --until or --idle.
const (
	DefaultReadIdle    = 300 * time.Millisecond
	DefaultReadTimeout = 5 * time.Second
)

func writeAndRead(w io.Writer, st *pty.Store, id string, data []byte, readBack bool, f *readFlags) error {
	var opt *pty.ReadOptions
	if readBack {
		opt = f.options()
		if opt.Until == "" && opt.IdleMS == 0 {
			// --read alone: wait for the program's answer to settle, or
			// the read would come back before the program wrote anything.
			opt.IdleMS = DefaultReadIdle.Milliseconds()
			if opt.TimeoutMS == 0 {
				opt.TimeoutMS = DefaultReadTimeout.Milliseconds()
			}
		}
	}
	r, err := st.Write(id, data, opt)
	if err != nil {
		return fail(w, err)
	}
	if !readBack {
		return jsonout.Print(w, map[string]any{"written": len(data)})
	}
	return f.print(w, r)
}

type keysCmd struct {
	ID       string   `arg:"" name:"session_id" help:"Session id from start."`
	Keys     []string `arg:"" name:"key" help:"Keys to press: Enter, Tab, Esc, Space, Backspace, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1–F12, C-a … C-z, or any single character (q, y, :)."`
	ReadBack bool     `name:"read" help:"Then read, as the read command does, with the read flags below."`
	readFlags
}

func (c *keysCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return fail(std.Out, err)
	}
	var opt *pty.ReadOptions
	if c.ReadBack {
		opt = c.options()
	}
	r, err := st.PressKeys(c.ID, c.Keys, opt)
	if err != nil {
		return fail(std.Out, err)
	}
	if !c.ReadBack {
		return jsonout.Print(std.Out, map[string]any{"keys": len(c.Keys)})
	}
	return c.print(std.Out, r)
}

type attachCmd struct {
	ID string `arg:"" name:"session_id" help:"Session id from start."`
}

// detachKey is Ctrl-], as in telnet.
const detachKey = 0x1d

func (c *attachCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return fail(std.Out, err)
	}
	if cli.IsTerminal(std.In) {
		fd := int(cli.File(std.In).Fd())
		old, err := term.MakeRaw(fd)
		if err != nil {
			return fmt.Errorf("raw mode: %w", err)
		}
		defer term.Restore(fd, old)
		fmt.Fprint(std.Err, "delta-pty: attached; Ctrl-] detaches\r\n")
	}
	if err := st.Attach(c.ID, std.In, std.Out, detachKey); err != nil {
		return fail(std.Out, err)
	}
	fmt.Fprint(std.Err, "\r\ndelta-pty: detached\r\n")
	return nil
}

type endCmd struct {
	ID string `arg:"" name:"session_id" help:"Session id from start."`
}

func (c *endCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return fail(std.Out, err)
	}
	m, code, err := st.End(c.ID)
	if err != nil {
		return fail(std.Out, err)
	}
	return jsonout.Print(std.Out, map[string]any{"session_id": m.SessionID, "status": m.Status, "exit_code": code})
}

type listCmd struct {
	All bool `help:"Include terminated sessions."`
}

func (c *listCmd) Run(std cli.Stdio) error {
	st, err := store()
	if err != nil {
		return fail(std.Out, err)
	}
	all, err := st.List()
	if err != nil {
		return fail(std.Out, err)
	}
	entries := make([]jsonout.Entry, 0, len(all))
	for _, m := range all {
		st.Refresh(m)
		entries = append(entries, jsonout.Entry{SessionID: m.SessionID, Command: m.Command, Status: m.Status, CreatedAt: m.CreatedAt})
	}
	return jsonout.List(std.Out, entries, c.All)
}

type holdCmd struct {
	Dir string `arg:"" help:"Session directory."`
}

func (c *holdCmd) Run() error { return pty.Hold(c.Dir, os.NewFile(3, "ready")) }
