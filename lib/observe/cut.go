package observe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Truncation modes: which part of a long output the model sees.
const (
	HeadTail = "head_tail" // the beginning and the end (the default)
	Head     = "head"      // the beginning
	Tail     = "tail"      // the end
)

// Limits is how much of a tool's output the model sees: at most MaxChars
// characters and MaxLines lines (0: no such limit), kept as Mode says.
type Limits struct {
	MaxChars int
	MaxLines int
	Mode     string
}

// CommandLimits are a command tool's limits unless agent.yaml says
// otherwise (the shell tool's).
var CommandLimits = Limits{MaxChars: MaxChars, MaxLines: MaxLines, Mode: HeadTail}

// SubagentLimits are what the model sees of a subagent's result (wait):
// its beginning and its end, 20000 characters in all.
var SubagentLimits = Limits{MaxChars: 20000, Mode: HeadTail}

// Whole is the real size of an output, which the text the model is cut
// from may already lack part of (a capture that kept its head and tail).
type Whole struct {
	Bytes int64
	Lines int64
	// Cut is set when the text lacks part of the output.
	Cut bool
}

// WholeOf is the size of output when it is all there.
func WholeOf(output string) Whole {
	return Whole{Bytes: int64(len(output)), Lines: int64(countLines(output))}
}

// Cut shortens output to l with one marker where text was left out. The
// marker gives the real size of the whole output and where it is kept
// (full, a path the model can read), so that the model knows what it does
// not see and how to look at it. Both limits are applied before the
// marker is placed, so no limit ever cuts the marker itself.
func Cut(output string, l Limits, whole Whole, full string) string {
	head, tail, cut := keep(output, l)
	if !cut && !whole.Cut {
		return output
	}
	if !cut {
		head, tail = output, ""
	}
	// A line cut in two counts once when the whole has no more lines.
	shownLines := min(int64(countLines(head)+countLines(tail)), max(whole.Lines, 1))
	shownChars := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
	marker := fmt.Sprintf("[WARNING: Tool output was truncated. Shown here: %d of %s, %d characters. "+
		"The whole output (%d bytes, %s) is in %s: read the part you need from it (grep, head, tail, sed -n) "+
		"or re-run the tool with more targeted parameters.]",
		shownLines, plural(whole.Lines, "line"), shownChars, whole.Bytes, plural(whole.Lines, "line"), full)
	switch {
	case l.Mode == Tail && cut:
		return marker + "\n\n" + tail
	case l.Mode == Head || tail == "":
		return head + "\n\n" + marker
	}
	return head + "\n\n" + marker + "\n\n" + tail
}

// Fits reports whether output is within l, and whole says nothing is
// missing from it: Cut would return it as it is.
func Fits(output string, l Limits, whole Whole) bool {
	return !whole.Cut && (l.MaxChars <= 0 || utf8.RuneCountInString(output) <= l.MaxChars) &&
		(l.MaxLines <= 0 || countLines(output) <= l.MaxLines)
}

// keep returns the parts of output that l lets the model see; cut is
// false when that is all of it.
func keep(output string, l Limits) (head, tail string, cut bool) {
	chars, lines := utf8.RuneCountInString(output), countLines(output)
	if (l.MaxChars <= 0 || chars <= l.MaxChars) && (l.MaxLines <= 0 || lines <= l.MaxLines) {
		return output, "", false
	}
	switch l.Mode {
	case Head:
		return prefix(output, l.MaxChars, l.MaxLines), "", true
	case Tail:
		return "", suffix(output, l.MaxChars, l.MaxLines), true
	}
	hc, hl := half(l.MaxChars), half(l.MaxLines)
	return prefix(output, hc, hl), suffix(output, rest(l.MaxChars, hc), rest(l.MaxLines, hl)), true
}

func half(n int) int {
	if n <= 0 {
		return 0
	}
	return n / 2
}

func rest(n, h int) int {
	if n <= 0 {
		return 0
	}
	return n - h
}

// prefix is the start of s within maxChars characters and maxLines lines
// (0: unlimited).
func prefix(s string, maxChars, maxLines int) string {
	end := len(s)
	if maxChars > 0 {
		end = min(end, runeOffset(s, maxChars))
	}
	if maxLines > 0 {
		nl := 0
		for i := 0; i < end; i++ {
			if s[i] == '\n' {
				if nl++; nl == maxLines {
					end = i
					break
				}
			}
		}
	}
	return s[:end]
}

// suffix is the end of s within maxChars characters and maxLines lines
// (0: unlimited).
func suffix(s string, maxChars, maxLines int) string {
	start := 0
	if maxChars > 0 {
		if n := utf8.RuneCountInString(s); n > maxChars {
			start = runeOffset(s, n-maxChars)
		}
	}
	if maxLines > 0 {
		nl := 0
		last := len(s) - 1
		if strings.HasSuffix(s, "\n") {
			last-- // the final newline ends the last line, it does not start one
		}
		for i := last; i >= start; i-- {
			if s[i] == '\n' {
				if nl++; nl == maxLines {
					start = i + 1
					break
				}
			}
		}
	}
	return s[start:]
}

// countLines counts the lines of s: its newlines, plus one for text after
// the last.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
