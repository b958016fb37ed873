package execute

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Truncate shortens a tool's output for the model exactly as seeds/001 §5
// says: first by characters (head/tail split with an explicit warning that
// says how much was removed), then by lines (head/tail split with an
// "[... N lines omitted ...]" marker). Characters are Unicode code points.
// maxChars or maxLines <= 0 disables that step.
func Truncate(output string, maxChars, maxLines int) string {
	return TruncateCaptured(output, 0, maxChars, maxLines)
}

// TruncateCaptured is Truncate for output whose in-memory capture already
// left hidden bytes out (Result.StdoutBytes+StderrBytes minus the length of
// Stdout+Stderr, see Result): the warning then counts them too, so the
// model learns how much of the real output it does not see, not how much
// of the capture. The capture's own "[... N bytes omitted ...]" marker is
// in the removed middle, and its length is what hidden falls short of the
// omitted bytes, so the two cancel out.
func TruncateCaptured(output string, hidden int64, maxChars, maxLines int) string {
	if maxChars > 0 {
		output = truncateChars(output, hidden, maxChars)
	}
	if maxLines > 0 {
		output = truncateLines(output, maxLines)
	}
	return output
}

// truncateChars is seeds/001 §5.1 truncate_output in head_tail mode.
func truncateChars(output string, hidden int64, maxChars int) string {
	n := utf8.RuneCountInString(output)
	if n <= maxChars {
		return output
	}
	half := maxChars / 2
	removed := int64(n-maxChars) + max(hidden, 0)
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
