package contextgen

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/tool"
)

// Limits of a fold summary, so that it stays small however long the run.
const (
	foldMaxDecisions = 20
	foldMaxErrors    = 20
	foldMaxFiles     = 50
	foldLineLen      = 200
)

// decisionWords marks a thought line as a decision worth remembering
// (seeds/000 §2.4.6 greps for decided|chose|will).
// It is compiled on first use, not at every start.
var decisionWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(decided|decide|chose|choose|will|going to|plan)\b`)
})

// Fold summarizes the older iterations of a run (all but the last
// keepLast) as Markdown: the tools used with counts, the decisions stated
// in the model's thoughts, the files the tool calls named, and the errors.
// It is the memory-folding generator of delta-context fold: paired with a
// journal source of max_iterations: keepLast, the model sees a short summary
// of everything older and the recent iterations in full.
func Fold(events []journal.Event, keepLast int) string {
	total := 0
	for _, ev := range events {
		if ev.Type == journal.Thought {
			total++
		}
	}
	older := total - max(keepLast, 0)
	var b strings.Builder
	if older <= 0 {
		fmt.Fprintf(&b, "## Memory Summary\n\nNo earlier iterations: all %d are in the recent conversation.\n", total)
		return b.String()
	}
	f := newFolder()
	it := 0
	for _, ev := range events {
		if ev.Type == journal.Thought {
			it++
		}
		if it == 0 || it > older {
			continue
		}
		f.add(it, ev)
	}
	fmt.Fprintf(&b, "## Memory Summary (iterations 1-%d of %d)\n", older, total)
	f.write(&b)
	return b.String()
}

// folder accumulates what Fold reports.
type folder struct {
	tools     map[string]int
	decisions []string
	files     []string
	fileTools map[string][]string
	errors    []string
	calls     map[string]string // call id → tool name
}

func newFolder() *folder {
	return &folder{tools: map[string]int{}, fileTools: map[string][]string{}, calls: map[string]string{}}
}

func (f *folder) add(it int, ev journal.Event) {
	switch ev.Type {
	case journal.Thought:
		for _, line := range strings.Split(ev.Content, "\n") {
			line = strings.TrimSpace(line)
			if line != "" && decisionWords().MatchString(line) {
				f.decisions = append(f.decisions, fmt.Sprintf("(iteration %d) %s", it, clip(line)))
			}
		}
		for _, tc := range ev.ToolCalls {
			f.calls[tc.ID] = tc.Name
			f.touch(tc.Name, json.RawMessage(tc.Arguments))
		}
	case journal.ActionResult:
		f.tools[ev.ToolName]++
		if ev.IsError || (ev.ExitCode != nil && *ev.ExitCode != 0) {
			code := ""
			if ev.ExitCode != nil {
				code = fmt.Sprintf(" (exit code %d)", *ev.ExitCode)
			}
			f.errors = append(f.errors, fmt.Sprintf("(iteration %d) `%s`%s: %s", it, ev.ToolName, code, clip(firstLine(ev.ObservationContent))))
		}
	case journal.Error:
		f.errors = append(f.errors, fmt.Sprintf("(iteration %d) %s", it, clip(firstLine(ev.ErrorMessage))))
	}
}

// touch records the paths named in a tool call's arguments.
func (f *folder) touch(toolName string, args json.RawMessage) {
	for _, p := range tool.ArgPaths(args) {
		f.file(p, toolName)
	}
}

func (f *folder) file(path, tool string) {
	if path == "" {
		return
	}
	tools, seen := f.fileTools[path]
	if !seen {
		f.files = append(f.files, path)
	}
	for _, t := range tools {
		if t == tool {
			return
		}
	}
	f.fileTools[path] = append(tools, tool)
}

func (f *folder) write(b *strings.Builder) {
	b.WriteString("\n### Tools used\n")
	names := make([]string, 0, len(f.tools))
	for n := range f.tools {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if f.tools[names[i]] != f.tools[names[j]] {
			return f.tools[names[i]] > f.tools[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) == 0 {
		b.WriteString("- none\n")
	}
	for _, n := range names {
		fmt.Fprintf(b, "- %s × %d\n", n, f.tools[n])
	}
	section(b, "Decisions", last(f.decisions, foldMaxDecisions), "- none recorded\n")
	var files []string
	for _, p := range last(f.files, foldMaxFiles) {
		files = append(files, fmt.Sprintf("%s (%s)", p, strings.Join(f.fileTools[p], ", ")))
	}
	section(b, "Files touched", files, "- none\n")
	section(b, "Errors", last(f.errors, foldMaxErrors), "- none\n")
}

func section(b *strings.Builder, title string, lines []string, empty string) {
	fmt.Fprintf(b, "\n### %s\n", title)
	if len(lines) == 0 {
		b.WriteString(empty)
	}
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
}

// last keeps the newest n entries, noting how many older ones were left out.
func last(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append([]string{fmt.Sprintf("… %d earlier entries not shown", len(lines)-n)}, lines[len(lines)-n:]...)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func clip(s string) string {
	if r := []rune(s); len(r) > foldLineLen {
		return string(r[:foldLineLen]) + "…"
	}
	return s
}
