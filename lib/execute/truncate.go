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

// TimeoutNote is the message seeds/001 §5.4 appends to the partial output
// of a command that timed out.
func TimeoutNote(timeoutMS int64) string {
	return fmt.Sprintf("[ERROR: Command timed out after %dms. Partial output is shown above.\n"+
		"You can retry with a longer timeout by setting the timeout_ms parameter.]", timeoutMS)
}
