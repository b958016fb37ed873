package main

import (
	"fmt"
	"strings"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// What the display shows of a live view beyond the run's own events: the
// last lines of a running tool, and its subagents' events on one line
// each, tagged with the subagent ([sub1]).

// outputTailLines is how many of a running tool's last lines are shown.
const outputTailLines = 5

// outputShown is what the display keeps of running tools' output.
type outputShown struct {
	lines   []string // the last complete lines, at most outputTailLines
	partial string   // the line under way
	label   string   // the subagent they come from ("" for the run)
}

// add keeps the last lines of text, a piece of output of label's tool.
func (o *outputShown) add(label, text string) {
	if label != o.label {
		*o = outputShown{label: label}
	}
	parts := strings.Split(o.partial+text, "\n")
	o.partial = parts[len(parts)-1]
	for _, l := range parts[:len(parts)-1] {
		o.lines = append(o.lines, strings.TrimRight(l, "\r"))
	}
	if extra := len(o.lines) - outputTailLines; extra > 0 {
		o.lines = append(o.lines[:0:0], o.lines[extra:]...)
	}
}

// reset forgets the output shown (a call ended).
func (o *outputShown) reset() { *o = outputShown{} }

// toolOutput shows a piece of a running tool's output on a terminal: its
// last lines above the waiting indicator, erased with it. A stream that is
// not a terminal (a log, delta log's output) shows none: what it shows
// must not depend on when the output was read (the result shows it, and
// --format stream-json has it all as it comes).
func (d *display) toolOutput(label string, out toolOutput) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.wait == nil {
		return
	}
	d.out.add(label, out.Text)
	prefix := "  │ "
	if label != "" {
		prefix = "  [" + safe(label) + "] │ "
	}
	width := d.wait.width() - len([]rune(prefix)) - 1
	lines := make([]string, 0, outputTailLines+1)
	for _, l := range append(d.out.lines, d.out.partial) {
		if l != "" {
			lines = append(lines, prefix+d.clip(l, width))
		}
	}
	if len(lines) > outputTailLines {
		lines = lines[len(lines)-outputTailLines:]
	}
	d.wait.setTail(lines)
}

// clip makes a line of output safe and at most width characters.
func (d *display) clip(l string, width int) string {
	l = safe(strings.ReplaceAll(l, "\t", "    "))
	if r := []rune(l); len(r) > max(width, 10) {
		return string(r[:max(width, 10)-1]) + "…"
	}
	return l
}

// childEvent shows one event of the subagent label, on one line.
func (d *display) childEvent(label string, ev journal.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := label + "\x00" + ev.CallID
	switch {
	case ev.Type == journal.HumanInputRequest && ev.Sensitive:
		d.hidden[key] = true
	case ev.Type == journal.ActionResult:
		d.out.reset()
		d.wait.setTail(nil)
		if d.hidden[key] {
			ev.ObservationContent = "(sensitive answer hidden)"
		}
	}
	line := d.childLine(ev)
	if line == "" {
		return
	}
	d.endStreamed()
	fmt.Fprintf(d.w, "%s %s\n", d.paint("2", "["+safe(label)+"]"), line)
}

// childLine is the line that shows a subagent's event ("" for none).
func (d *display) childLine(ev journal.Event) string {
	switch ev.Type {
	case journal.EngineStart:
		return d.paint("1", "▶") + " subagent run " + safe(ev.RunID)
	case journal.UserMessage:
		return d.paint("1;34", "task:") + " " + d.oneLine(ev.Content, 1, 160)
	case journal.Thought:
		if strings.TrimSpace(ev.Content) == "" {
			return ""
		}
		return d.paint("1;35", "thought:") + " " + d.oneLine(ev.Content, 1, 160)
	case journal.ActionRequest:
		return d.paint("1;33", "→") + " " + d.paint("1", safe(ev.ToolName)) + " " + d.oneLine(string(ev.ToolArgs), 1, 160)
	case journal.ActionResult:
		mark := d.paint("32", "←")
		if ev.IsError {
			mark = d.paint("31", "✗")
		}
		return mark + " " + safe(ev.ToolName) + " " + d.oneLine(ev.ObservationContent, 1, 160)
	case journal.HumanInputRequest:
		label := "? ask_human:"
		if ev.InputType == runs.InputApproval {
			label = "? approval needed:"
		}
		return d.paint("1;33", label) + " " + d.oneLine(ev.Prompt, 1, 160)
	case journal.Error:
		return d.paint("1;31", "error:") + " " + d.oneLine(ev.ErrorMessage, 1, 160)
	case journal.TurnLimit:
		return d.paint("1;33", "turn limit:") + " " + d.oneLine(ev.Content, 1, 160)
	case journal.EngineEnd:
		return fmt.Sprintf("%s %s after iteration %d", d.paint("1", "■"), ev.Status, ev.FinalIteration)
	}
	return ""
}

// oneLine is the first line of s, abbreviated, " …" marking the rest.
func (d *display) oneLine(s string, lines, width int) string {
	return strings.Replace(d.abbreviate(s, lines, width), "\n…", " …", 1)
}
