package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deltakit/delta/lib/journal"
	"golang.org/x/term"
)

// display renders the live think-act-observe stream on stderr: iteration
// headers, thoughts, tool calls with their arguments and abbreviated
// observations. Colour only on a terminal and never with NO_COLOR.
type display struct {
	w       io.Writer
	verbose bool
	color   bool
	// hidden holds the call IDs of sensitive ask_human questions, whose
	// answers are never shown.
	hidden map[string]bool
}

func newDisplay(w io.Writer, verbose bool) *display {
	d := &display{w: w, verbose: verbose, hidden: map[string]bool{}}
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		_, noColor := os.LookupEnv("NO_COLOR")
		d.color = !noColor
	}
	return d
}

// paint wraps s in an ANSI colour when colour is on.
func (d *display) paint(code, s string) string {
	if !d.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (d *display) iteration(n int) {
	fmt.Fprintf(d.w, "%s\n", d.paint("1;36", fmt.Sprintf("── iteration %d ──", n)))
}

// abbreviate keeps the first lines of s unless verbose.
func (d *display) abbreviate(s string, lines, width int) string {
	if d.verbose {
		return s
	}
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	cut := len(all) > lines
	if cut {
		all = all[:lines]
	}
	for i, l := range all {
		if r := []rune(l); len(r) > width {
			all[i] = string(r[:width]) + "…"
		}
	}
	out := strings.Join(all, "\n")
	if cut {
		out += "\n…"
	}
	return out
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// event prints one journal event as it is written.
func (d *display) event(ev journal.Event) {
	switch ev.Type {
	case journal.EngineStart:
		fmt.Fprintf(d.w, "%s run %s in %s\n", d.paint("1", "▶"), ev.RunID, ev.WorkDir)
	case journal.UserMessage:
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;34", "user:"), d.abbreviate(ev.Content, 5, 200))
	case journal.Thought:
		if strings.TrimSpace(ev.Content) != "" {
			fmt.Fprintf(d.w, "%s\n%s\n", d.paint("1;35", "thought:"), indent(d.abbreviate(ev.Content, 12, 200), "  "))
		}
		if d.verbose && ev.Usage != nil {
			fmt.Fprintf(d.w, "  %s\n", d.paint("2", fmt.Sprintf("(%s, %d in / %d out tokens)", ev.Model, ev.Usage.InputTokens, ev.Usage.OutputTokens)))
		}
	case journal.ActionRequest:
		fmt.Fprintf(d.w, "%s %s %s\n", d.paint("1;33", "→"), d.paint("1", ev.ToolName), d.abbreviate(string(ev.ToolArgs), 1, 160))
	case journal.ActionResult:
		mark := d.paint("32", "←")
		if ev.IsError {
			mark = d.paint("31", "✗")
		}
		code := ""
		if ev.ExitCode != nil && *ev.ExitCode != 0 {
			code = fmt.Sprintf(" [exit %d]", *ev.ExitCode)
		}
		obs := ev.ObservationContent
		if d.hidden[ev.CallID] {
			obs = "(sensitive answer hidden)"
		}
		fmt.Fprintf(d.w, "%s %s%s\n%s\n", mark, ev.ToolName, code, indent(d.abbreviate(obs, 6, 160), "  "))
	case journal.HumanInputRequest:
		if ev.Sensitive {
			d.hidden[ev.CallID] = true
		}
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;33", "? ask_human:"), ev.Prompt)
	case journal.HumanInputReceived:
		fmt.Fprintf(d.w, "%s\n", d.paint("1;33", "? answer received"))
	case journal.SystemMessage:
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;33", "warning:"), ev.Content)
	case journal.Error:
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;31", "error:"), ev.ErrorMessage)
	case journal.HookExecution:
		if d.verbose || ev.ErrorMessage != "" {
			fmt.Fprintf(d.w, "%s %s → %s %s\n", d.paint("2", "hook"), ev.HookName, ev.Decision, ev.ErrorMessage)
		}
	case journal.EngineEnd:
		fmt.Fprintf(d.w, "%s %s after iteration %d\n", d.paint("1", "■"), ev.Status, ev.FinalIteration)
	}
}

// remember notes the sensitive questions of earlier events, so that a
// resumed run does not show their answers either.
func (d *display) remember(events []journal.Event) {
	for _, ev := range events {
		if ev.Type == journal.HumanInputRequest && ev.Sensitive {
			d.hidden[ev.CallID] = true
		}
	}
}
