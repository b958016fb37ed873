package coding

import (
	"fmt"
	"strings"
)

// Truncation modes of seeds/001 §5.1.
const (
	HeadTail = "head_tail"
	Tail     = "tail"
)

// Limit is one tool's output limit (seeds/001 §5.2, §5.3).
type Limit struct {
	MaxChars int
	Mode     string
	MaxLines int // 0: none
}

// Limits are the default output limits of the coding tools.
var Limits = map[string]Limit{
	"read_file":   {50000, HeadTail, 0},
	"grep":        {20000, Tail, 200},
	"glob":        {20000, Tail, 500},
	"edit_file":   {10000, Tail, 0},
	"apply_patch": {10000, Tail, 0},
	"write_file":  {1000, Tail, 0},
}

// TruncateTool applies tool's limits: characters first, then lines.
func TruncateTool(tool, out string) string {
	l, ok := Limits[tool]
	if !ok {
		return out
	}
	out = TruncateChars(out, l.MaxChars, l.Mode)
	if l.MaxLines > 0 {
		out = TruncateLines(out, l.MaxLines)
	}
	return out
}

// TruncateChars is seeds/001 §5.1 truncate_output, counting characters
// (runes), with the warning that tells the model output is missing.
func TruncateChars(out string, maxChars int, mode string) string {
	r := []rune(out)
	if len(r) <= maxChars {
		return out
	}
	removed := len(r) - maxChars
	if mode == HeadTail {
		half := maxChars / 2
		return string(r[:half]) +
			fmt.Sprintf("\n\n[WARNING: Tool output was truncated. %d characters were removed from the middle. "+
				"The full output is available in the event stream. "+
				"If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n", removed) +
			string(r[len(r)-half:])
	}
	return fmt.Sprintf("[WARNING: Tool output was truncated. First %d characters were removed. "+
		"The full output is available in the event stream.]\n\n", removed) + string(r[len(r)-maxChars:])
}

// TruncateLines is seeds/001 §5.3 truncate_lines.
func TruncateLines(out string, maxLines int) string {
	lines := strings.Split(out, "\n")
	if len(lines) <= maxLines {
		return out
	}
	head := maxLines / 2
	tail := maxLines - head
	omitted := len(lines) - head - tail
	return strings.Join(lines[:head], "\n") +
		fmt.Sprintf("\n[... %d lines omitted ...]\n", omitted) +
		strings.Join(lines[len(lines)-tail:], "\n")
}
