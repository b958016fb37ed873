// Package jsonout is the output side shared by delta-sessions and
// delta-pty: both print results, session lists and errors as JSON on
// stdout, because their reader is an agent. An error is printed once,
// there: a tool's observation holds its stdout and stderr, so a second
// copy on stderr would show the agent every error twice (the binaries
// return it to lib/cli silent, with its exit code; this package only
// prints).
package jsonout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/deltakit/delta/sessions"
)

// Print writes v as one line of JSON, with <, > and & left as they are.
func Print(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Fail prints err as {"error": …, "hint": …}, with "status": "dead"
// when the session's holder is gone. What is printed is the agent's copy:
// the caller returns err with its exit code and nothing more to print.
func Fail(w io.Writer, hint string, err error) {
	out := map[string]string{"error": err.Error()}
	if hint != "" {
		out["hint"] = hint
	}
	if errors.Is(err, sessions.ErrHolderDead) {
		out["status"] = sessions.StatusDead
	}
	_ = Print(w, out)
}

// ParseErrors returns the printer of command-line errors (a missing
// session id, a bad --timeout, an unknown subcommand) as
// {"error": …, "hint": "see NAME --help"} on stdout, so an agent reading
// stdout learns what was wrong; the binaries give it to cli.Run as its
// cli.ParseErrorHook.
func ParseErrors(name string) func(stdout io.Writer, err error) {
	return func(w io.Writer, err error) {
		_ = Print(w, map[string]string{"error": err.Error(), "hint": "see " + name + " --help"})
	}
}

// Entry is one session in the JSON array list prints.
type Entry struct {
	SessionID string    `json:"session_id"`
	Command   string    `json:"command"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// List prints entries as a JSON array (never null), leaving out
// terminated sessions unless all is set.
func List(w io.Writer, entries []Entry, all bool) error {
	out := []Entry{}
	for _, e := range entries {
		if e.Status == sessions.StatusTerminated && !all {
			continue
		}
		out = append(out, e)
	}
	return Print(w, out)
}

// Input returns args joined with spaces or, when there are none, all of
// in (os.Stdin when nil): a command or text comes either way, and stdin
// spares the agent shell quoting. what names the input in errors.
func Input(args []string, in io.Reader, what string) ([]byte, error) {
	if len(args) > 0 {
		return []byte(strings.Join(args, " ")), nil
	}
	b, err := io.ReadAll(in)
	if err != nil {
		return nil, fmt.Errorf("read %s from stdin: %w", what, err)
	}
	return b, nil
}
