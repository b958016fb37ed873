package coding

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of edit_file, wrapped with advice for the model.
var (
	ErrNotFound  = errors.New("old_string not found")
	ErrNotUnique = errors.New("old_string is not unique")
	ErrNoChange  = errors.New("old_string and new_string are the same")
	ErrEmptyOld  = errors.New("old_string is empty")
)

// EditResult is a computed edit_file change.
type EditResult struct {
	Content      string
	Replacements int
	// Fuzzy is set when old_string only matched after whitespace/Unicode
	// normalization.
	Fuzzy bool
}

// Edit replaces old with new in content: exactly once, or every occurrence
// with all. When old is not found verbatim it tries a line-wise match that
// ignores surrounding whitespace and folds Unicode punctuation, and uses it
// when unique.
func Edit(content, old, new string, all bool) (EditResult, error) {
	switch {
	case old == "":
		return EditResult{}, fmt.Errorf("%w: give the exact text to replace (use write_file to create a file)", ErrEmptyOld)
	case old == new:
		return EditResult{}, fmt.Errorf("%w: nothing to do", ErrNoChange)
	}
	n := strings.Count(content, old)
	switch {
	case n == 1 || n > 1 && all:
		return EditResult{Content: strings.ReplaceAll(content, old, new), Replacements: n}, nil
	case n > 1:
		return EditResult{}, fmt.Errorf("%w: it matches %d locations (lines %s); include more surrounding lines to make it unique, or set replace_all to true",
			ErrNotUnique, n, strings.Join(matchLines(content, old, 5), ", "))
	}
	if res, ok := fuzzyEdit(content, old, new); ok {
		return res, nil
	}
	return EditResult{}, notFound(content, old)
}

// matchLines lists the 1-based line numbers where old starts (at most max).
func matchLines(content, old string, max int) []string {
	var out []string
	off := 0
	for len(out) < max {
		i := strings.Index(content[off:], old)
		if i < 0 {
			break
		}
		if l := fmt.Sprint(strings.Count(content[:off+i], "\n") + 1); len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
		off += i + len(old)
	}
	return out
}

// fuzzyEdit matches old's lines against whole lines of content, ignoring
// surrounding whitespace and Unicode punctuation differences, and replaces
// the matched lines when the match is unique. The replacement keeps the
// matched block's first-line indentation when new is re-indented the same
// way old was.
func fuzzyEdit(content, old, new string) (EditResult, bool) {
	lines := strings.Split(content, "\n")
	want := strings.Split(strings.Trim(old, "\n"), "\n")
	at, count := -1, 0
	for i := 0; i+len(want) <= len(lines); i++ {
		if linesMatch(lines[i:], want, normalized) {
			if count == 0 {
				at = i
			}
			count++
		}
	}
	if count != 1 {
		return EditResult{}, false
	}
	repl := strings.Split(strings.Trim(new, "\n"), "\n")
	if new == "" {
		repl = nil
	}
	out := append(append(append([]string{}, lines[:at]...), repl...), lines[at+len(want):]...)
	return EditResult{Content: strings.Join(out, "\n"), Replacements: 1, Fuzzy: true}, true
}

// notFound builds the not-found error with the file's closest line to
// old's first line, so the model sees what the file really says.
func notFound(content, old string) error {
	first := ""
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) != "" {
			first = strings.TrimSpace(l)
			break
		}
	}
	best, bestLine, bestScore := "", 0, 0.0
	for i, l := range strings.Split(content, "\n") {
		if s := similarity(strings.TrimSpace(l), first); s > bestScore {
			best, bestLine, bestScore = l, i+1, s
		}
	}
	if bestScore >= 0.5 {
		return fmt.Errorf("%w: the closest line is %d: %q; read the file and copy old_string exactly, whitespace included", ErrNotFound, bestLine, best)
	}
	return fmt.Errorf("%w: read the file and copy old_string exactly, whitespace included", ErrNotFound)
}

// similarity is 1 - editDistance/maxLen of a and b (0 for long lines, to
// keep the search cheap).
func similarity(a, b string) float64 {
	if a == "" || b == "" || len(a) > 400 || len(b) > 400 {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(rb)])/float64(max(len(ra), len(rb)))
}
