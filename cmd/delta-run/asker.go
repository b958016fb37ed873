package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
)

// terminalAsker answers ask_human in interactive mode: the prompt on
// stderr, the answer from the terminal (hidden when sensitive) or, when
// stdin is not a terminal, one line of stdin.
type terminalAsker struct {
	in     io.Reader
	out    io.Writer
	reader *bufio.Reader
	// shown reports whether the live stream showed the question of this
	// call already; nil means never.
	shown func(callID string) bool
}

// Ask implements engine.Asker.
func (a *terminalAsker) Ask(ctx context.Context, q engine.Interaction) (string, error) {
	// The live stream has usually just shown the question ("? ask_human:
	// …"); it is repeated only when it was not (a resumed question).
	label := q.Prompt + "\n"
	if a.shown != nil && a.shown(q.CallID) {
		label = ""
	}
	switch q.InputType {
	case "confirmation":
		label += "[yes/no] "
	case runs.InputApproval, runs.InputEscalation:
		label += "[approve, or deny: reason] "
	}
	fmt.Fprintf(a.out, "%s> ", label)
	type answer struct {
		s   string
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		if q.Sensitive && cli.IsTerminal(a.in) {
			b, err := term.ReadPassword(int(cli.File(a.in).Fd()))
			fmt.Fprintln(a.out)
			ch <- answer{string(b), err}
			return
		}
		if a.reader == nil {
			a.reader = bufio.NewReader(a.in)
		}
		line, err := a.reader.ReadString('\n')
		if err != nil && !(errors.Is(err, io.EOF) && line != "") {
			ch <- answer{"", fmt.Errorf("read answer: %w", err)}
			return
		}
		ch <- answer{strings.TrimRight(line, "\r\n"), nil}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-ch:
		return r.s, r.err
	}
}

// pickWorkspace asks on the terminal which workspace to use. ok is false
// when the user chose a new one.
func pickWorkspace(agentHome string, std cli.Stdio) (dir string, ok bool, err error) {
	names, err := runs.ListWorkspaces(agentHome)
	if err != nil {
		return "", false, err
	}
	last, _ := runs.LastUsed(agentHome)
	if len(names) == 0 {
		return "", false, nil
	}
	fmt.Fprintf(std.Err, "Workspaces of %s: %s\n", agentHome, strings.Join(names, " "))
	if last != "" {
		fmt.Fprintf(std.Err, "Last used: %s\n", filepath.Base(last))
	}
	fmt.Fprintf(std.Err, "Workspace to use (name, Enter for a new one): ")
	line, err := bufio.NewReader(std.In).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false, err
	}
	name := strings.TrimSpace(line)
	if name == "" {
		return "", false, nil
	}
	for _, n := range names {
		if n == name {
			if err := atomicfile.Write(filepath.Join(agentHome, runs.WorkspacesDir, runs.LastUsedFile), []byte(name+"\n"), 0o644); err != nil {
				return "", false, err
			}
			return filepath.Join(agentHome, "workspaces", name), true, nil
		}
	}
	return "", false, fmt.Errorf("no workspace %q under %s", name, agentHome)
}
