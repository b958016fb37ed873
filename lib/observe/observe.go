// Package observe turns what a tool produced into what the model sees: the
// truncation rules, their markers, and the note on a timed-out command.
// Command tools and the coding plugin's shell go through Command (the text
// of a finished command) and Cut (agent.yaml's output: limits, one marker
// with the whole output's size and the file holding it); the coding
// plugin's other tools through Cut too, with their own limits; the plugin
// host's safety net (for plugins that do not bound their output) and
// outputs with no run to keep them in through Truncate and TruncateTail.
//
// Why cut at all: a tool's output goes back into the conversation on
// every later model call, so one huge listing would crowd out the rest of
// the context and cost tokens on every turn. The full output is never
// lost: it stays in the run's io/tool_executions record. The markers say
// how much was removed, so the model knows to ask more narrowly.
package observe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The default limits of a command tool's observation (the shell tool's
// limits): characters first, then lines.
const (
	MaxChars = 30000
	MaxLines = 256
)

// PluginMaxChars is the limit the plugin host applies to every plugin
// tool's output. It is the largest per-tool limit (read_file's): plugins
// apply their own tighter per-tool limits, this is the safety net for
// those that do not.
const PluginMaxChars = 50000

// Truncate shortens a plugin tool's output for the model as seeds/001 §5
// says: first by characters (head/tail split with an explicit warning that
// says how much was removed), then by lines (head/tail split with an
// "[... N lines omitted ...]" marker). Characters are Unicode code points.
// maxChars or maxLines <= 0 disables that step. Command tools use Cut,
// which knows the whole output and where it is kept.
func Truncate(output string, maxChars, maxLines int) string {
	if maxChars > 0 {
		output = truncateChars(output, maxChars)
	}
	if maxLines > 0 {
		output = truncateLines(output, maxLines)
	}
	return output
}

// truncateChars is seeds/001 §5.1 truncate_output in head_tail mode.
func truncateChars(output string, maxChars int) string {
	n := utf8.RuneCountInString(output)
	if n <= maxChars {
		return output
	}
	half := maxChars / 2
	removed := n - maxChars
	return output[:runeOffset(output, half)] +
		"\n\n[WARNING: Tool output was truncated. " +
		fmt.Sprint(removed) + " characters were removed from the middle. " +
		"The full output is available in the event stream. " +
		"If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n" +
		output[runeOffset(output, n-half):]
}

// runeOffset returns the byte offset of the i-th rune of s.
func runeOffset(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}

// TruncateTail keeps the last maxChars characters (the tail mode, for
// results whose end matters most, such as search hits), with a warning
// saying how many were removed. maxChars <= 0 disables it.
func TruncateTail(output string, maxChars int) string {
	if maxChars <= 0 {
		return output
	}
	r := []rune(output)
	if len(r) <= maxChars {
		return output
	}
	removed := len(r) - maxChars
	return fmt.Sprintf("[WARNING: Tool output was truncated. First %d characters were removed. "+
		"The full output is available in the event stream.]\n\n", removed) + string(r[len(r)-maxChars:])
}

// TruncateHead keeps the first maxChars characters (the head mode, for
// outputs read from their start, such as a web page), with a warning
// saying how many were removed. maxChars <= 0 disables it.
func TruncateHead(output string, maxChars int) string {
	if maxChars <= 0 {
		return output
	}
	n := utf8.RuneCountInString(output)
	if n <= maxChars {
		return output
	}
	return output[:runeOffset(output, maxChars)] + fmt.Sprintf("\n\n[WARNING: Tool output was truncated. The last %d characters were removed. "+
		"The full output is available in the event stream.]", n-maxChars)
}

// truncateLines is seeds/001 §5.3 truncate_lines.
func truncateLines(output string, maxLines int) string {
	lines := strings.Split(output, "\n")
	if len(lines) <= maxLines {
		return output
	}
	headCount := maxLines / 2
	tailCount := maxLines - headCount
	omitted := len(lines) - headCount - tailCount
	return strings.Join(lines[:headCount], "\n") +
		"\n[... " + fmt.Sprint(omitted) + " lines omitted ...]\n" +
		strings.Join(lines[len(lines)-tailCount:], "\n")
}

// TimeoutNote is the message appended to the output of a command that
// timed out (after seeds/001 §5.4). Unlike the seed's text it does not tell
// the model to set a timeout_ms parameter, which tools do not have (the
// timeout is agent.yaml configuration), and it mentions output shown above
// only when there is some.
func TimeoutNote(timeoutMS int64, hasOutput bool) string {
	partial := ""
	if hasOutput {
		partial = " Partial output is shown above."
	}
	return fmt.Sprintf("[ERROR: Command timed out after %dms and was stopped.%s\n"+
		"Retry with a quicker command (narrower input, or in the background with its output in a file); "+
		"the time limit itself is set by the agent's configuration.]", timeoutMS, partial)
}

// Command is a finished command as the model reads it (Text): its stdout,
// then its stderr under a marker, then the exit status when it is not 0
// or the timeout note when it timed out. Command tools and the coding
// plugin's shell tool both use it.
type Command struct {
	Stdout, Stderr string
	ExitCode       int
	Signal         string // the signal that killed it ("SIGKILL"), if any
	TimedOut       bool
	TimeoutMS      int64
	// TimeoutParam names the call's own timeout parameter (the shell
	// tool's timeout_ms), which the timeout note then tells the model to
	// raise, up to MaxTimeoutMS; "" when the limit is configuration.
	TimeoutParam string
	MaxTimeoutMS int64
}

// Text is what the model reads of c.
func (c Command) Text() string {
	var b strings.Builder
	newline := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString(c.Stdout)
	if c.Stderr != "" {
		newline()
		b.WriteString("[stderr]\n")
		b.WriteString(c.Stderr)
	}
	switch {
	case c.TimedOut && c.TimeoutParam != "":
		newline()
		b.WriteString(ParamTimeoutNote(c.TimeoutMS, b.Len() > 0, c.TimeoutParam, c.MaxTimeoutMS))
	case c.TimedOut:
		newline()
		b.WriteString(TimeoutNote(c.TimeoutMS, b.Len() > 0))
	case c.ExitCode != 0:
		newline()
		fmt.Fprintf(&b, "[exit code: %d", c.ExitCode)
		if c.Signal != "" {
			fmt.Fprintf(&b, ", killed by %s", c.Signal)
		}
		b.WriteString("]")
	}
	if b.Len() == 0 {
		return NoOutput
	}
	return b.String()
}

// NoOutput is the observation of a call that printed nothing, so that the
// model reads that it ran and was silent.
const NoOutput = "(no output)"

// ParamTimeoutNote is the timeout note of a tool whose calls set their own
// time limit in parameter param (seeds/001 §5.4's message): the command and
// every process it started were stopped, and the model may retry with a
// longer limit, at most maxMS.
func ParamTimeoutNote(timeoutMS int64, hasOutput bool, param string, maxMS int64) string {
	partial := ""
	if hasOutput {
		partial = " Partial output is shown above."
	}
	return fmt.Sprintf("[ERROR: Command timed out after %dms; it and every process it started were stopped.%s\n"+
		"You can retry with a longer timeout by setting the %s parameter (at most %d), "+
		"or run it in the background with its output in a file.]", timeoutMS, partial, param, maxMS)
}
