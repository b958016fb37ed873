package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/runs"
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
	// asked holds the call IDs whose question this stream has shown.
	asked map[string]bool
	// tty is whether the stream is a terminal (streamed text is shown
	// there only); streaming is set while a streamed answer is shown.
	tty, streaming bool
	// streamText shows streamed text (a terminal, or --stream-text).
	streamText bool
	// frontEnd: a front-end such as delta chat shows this stream as a
	// conversation. The model's text is the agent speaking ("agent:",
	// not "thought:"), and questions and approvals are left to the
	// front-end, which asks them itself (once).
	frontEnd bool
	// wait is the waiting indicator (terminal only), running counts the
	// tool calls started and not finished.
	wait    *waiting
	running int
	// shownIteration is the last iteration whose header was shown: an
	// event of a later one shows its header first (delta log, where no
	// engine announces iterations).
	shownIteration int
	// mu serializes what the engine shows with what the live view
	// (subagents, tool output) shows from its poller.
	mu sync.Mutex
	// live is the live view of the run, stopped by endLive; out is how
	// running tools' output is shown (liveoutput.go).
	live *liveView
	out  outputShown
}

func newDisplay(w io.Writer, verbose bool) *display {
	d := &display{w: w, verbose: verbose, hidden: map[string]bool{}, asked: map[string]bool{}}
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		d.tty = true
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

// iteration shows an iteration's header as the engine starts it.
func (d *display) iteration(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.header(n)
}

func (d *display) header(n int) {
	d.wait.set("waiting for the model")
	d.shownIteration = n
	fmt.Fprintf(d.w, "%s\n", d.paint("1;36", fmt.Sprintf("── iteration %d ──", n)))
}

// safe makes text from the model or a tool harmless to a terminal: C0
// and C1 control characters other than newline and tab become caret
// notation (ESC is ^[), DEL ^?, and invalid UTF-8 U+FFFD, so that output
// cannot recolour, clear or retitle the user's terminal.
func safe(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteByte('^')
			b.WriteRune(r + 0x40)
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// abbreviate keeps the first lines of s unless verbose; either way the
// text is made safe for the terminal.
func (d *display) abbreviate(s string, lines, width int) string {
	s = safe(s)
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
	d.mu.Lock()
	defer d.mu.Unlock()
	d.waitFor(ev)
	streamed := d.endStreamed()
	if ev.Iteration > d.shownIteration && ev.Type != journal.EngineEnd {
		d.header(ev.Iteration)
	}
	switch ev.Type {
	case journal.EngineStart:
		fmt.Fprintf(d.w, "%s run %s in %s\n", d.paint("1", "▶"), ev.RunID, ev.WorkDir)
	case journal.UserMessage:
		label := "user:"
		if ev.Source != "" {
			label = "user (" + ev.Source + "):"
		}
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;34", label), d.abbreviate(ev.Content, 5, 200))
	case journal.Thought:
		d.thought(ev, streamed)
	case journal.ActionRequest:
		fmt.Fprintf(d.w, "%s %s %s\n", d.paint("1;33", "→"), d.paint("1", safe(ev.ToolName)), d.abbreviate(string(ev.ToolArgs), 1, 160))
	case journal.ActionResult:
		d.result(ev)
	case journal.HumanInputRequest:
		d.question(ev)
	case journal.HumanInputReceived:
		if runs.IsApproval(ev.InputType) {
			who := "by " + safe(ev.By)
			if ev.By == "" {
				who = "(nobody answered)"
			}
			fmt.Fprintf(d.w, "%s\n", d.paint("1;33", fmt.Sprintf("? %s %s", ev.Decision, who)))
			break
		}
		fmt.Fprintf(d.w, "%s\n", d.paint("1;33", "? answer received"))
	case journal.SystemMessage:
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;33", "warning:"), safe(ev.Content))
	case journal.TurnLimit:
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;33", "turn limit:"), safe(ev.Content))
	case journal.Error:
		fmt.Fprintf(d.w, "%s %s\n", d.paint("1;31", "error:"), safe(ev.ErrorMessage))
	case journal.HookExecution:
		if d.verbose || ev.ErrorMessage != "" {
			fmt.Fprintf(d.w, "%s %s → %s %s\n", d.paint("2", "hook"), ev.HookName, ev.Decision, safe(ev.ErrorMessage))
		}
	case journal.EngineEnd:
		fmt.Fprintf(d.w, "%s %s after iteration %d\n", d.paint("1", "■"), ev.Status, ev.FinalIteration)
	}
}

// thought prints a THOUGHT: its reasoning (the model's own working, shown
// with -v only), its text unless it was streamed already, and with -v its
// token usage.
func (d *display) thought(ev journal.Event, streamed bool) {
	for _, r := range ev.Reasoning {
		if d.verbose && strings.TrimSpace(r.Text) != "" {
			fmt.Fprintf(d.w, "%s\n%s\n", d.paint("2", "thinking:"), d.paint("2", indent(d.abbreviate(r.Text, 12, 200), "  ")))
		}
	}
	if strings.TrimSpace(ev.Content) != "" && !streamed {
		fmt.Fprintf(d.w, "%s\n%s\n", d.paint("1;35", d.textLabel()), indent(d.abbreviate(ev.Content, 12, 200), "  "))
	}
	if d.verbose && ev.Usage != nil {
		fmt.Fprintf(d.w, "  %s\n", d.paint("2", fmt.Sprintf("(%s, %d in / %d out tokens)", ev.Model, ev.Usage.InputTokens, ev.Usage.OutputTokens)))
	}
}

// result prints an ACTION_RESULT: its mark, a non-zero exit code and the
// abbreviated observation (hidden for a sensitive question's answer).
func (d *display) result(ev journal.Event) {
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
	fmt.Fprintf(d.w, "%s %s%s\n%s\n", mark, safe(ev.ToolName), code, indent(d.abbreviate(obs, 6, 160), "  "))
}

// question prints a HUMAN_INPUT_REQUEST (ask_human or an approval) and
// notes it as shown, and a sensitive one's answer as hidden.
func (d *display) question(ev journal.Event) {
	if ev.Sensitive {
		d.hidden[ev.CallID] = true
	}
	d.asked[ev.CallID] = true
	if d.frontEnd {
		return
	}
	label := "? ask_human:"
	if runs.IsApproval(ev.InputType) {
		label = "? approval needed:"
	}
	fmt.Fprintf(d.w, "%s %s\n", d.paint("1;33", label), safe(ev.Prompt))
	if runs.IsApproval(ev.InputType) && len(ev.ToolArgs) > 0 {
		// The prompt shows the command line; the arguments are what
		// the model asked for.
		fmt.Fprintf(d.w, "  %s %s\n", d.paint("2", "arguments:"), d.abbreviate(string(ev.ToolArgs), 1, 160))
	}
}

// textLabel heads the model's text.
func (d *display) textLabel() string {
	if d.frontEnd {
		return "agent:"
	}
	return "thought:"
}

// text shows a piece of the model's answer as it streams in; the
// THOUGHT that follows does not repeat it.
func (d *display) text(delta string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.wait.clear() // the text shows the model at work
	if !d.streaming {
		if strings.TrimSpace(delta) == "" {
			return // no header for leading blank space
		}
		fmt.Fprintf(d.w, "%s\n  ", d.paint("1;35", d.textLabel()))
		d.streaming = true
	}
	fmt.Fprint(d.w, strings.ReplaceAll(safe(delta), "\n", "\n  "))
}

// endStreamed ends the line of a streamed answer, if one is shown, and
// reports whether one was.
func (d *display) endStreamed() bool {
	if !d.streaming {
		return false
	}
	fmt.Fprintln(d.w)
	d.streaming = false
	return true
}

// endLive stops the live view of the run (its last lines are shown).
func (d *display) endLive() { d.live.end() }

// waitFor updates the waiting indicator for ev: the model is waited for
// from an iteration's start until its THOUGHT, tools from their
// ACTION_REQUEST until their last ACTION_RESULT.
func (d *display) waitFor(ev journal.Event) {
	switch ev.Type {
	case journal.ActionRequest:
		d.running++
		what := "running " + safe(ev.ToolName)
		if d.running > 1 {
			what = fmt.Sprintf("running %d tools", d.running)
		}
		d.wait.set(what)
	case journal.ActionResult:
		d.out.reset() // the result shows what the tool printed
		d.wait.setTail(nil)
		if d.running > 0 {
			d.running--
		}
		if d.running == 0 {
			d.wait.clear()
		}
	case journal.Thought, journal.HumanInputRequest, journal.Error, journal.EngineEnd:
		d.running = 0
		d.wait.clear()
	}
}

// retry shows (with -v) a model request about to be retried; an answer
// cut off while it streamed is marked as such in any case.
func (d *display) retry(ev provider.RetryEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.streaming {
		fmt.Fprintf(d.w, "\n  %s\n", d.paint("2", "(the answer was cut off; asking again)"))
		d.streaming = false
	}
	if d.verbose {
		fmt.Fprintf(d.w, "  %s\n", d.paint("2", fmt.Sprintf("(model request attempt %d/%d failed: %v; retrying in %s)",
			ev.Attempt, ev.Attempts, ev.Err, ev.Wait.Round(time.Millisecond))))
	}
}

// showed reports whether the question of callID was shown by this stream.
func (d *display) showed(callID string) bool { return d.asked[callID] }

// remember notes the sensitive questions of earlier events, so that a
// resumed run does not show their answers either.
func (d *display) remember(events []journal.Event) {
	for _, ev := range events {
		if ev.Type == journal.HumanInputRequest && ev.Sensitive {
			d.hidden[ev.CallID] = true
		}
	}
}
