package coding

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
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
// with all. old and new take the file's line ending (a CRLF file gets CRLF
// lines). When old is not found verbatim it tries, in turn, a match within
// one line after Unicode NFC normalisation of both, and a line-wise match
// that ignores surrounding whitespace and folds Unicode punctuation and
// normalisation, and uses it when unique.
func Edit(content, old, new string, all bool) (EditResult, error) {
	switch {
	case old == "":
		return EditResult{}, fmt.Errorf("%w: give the exact text to replace (use write_file to create a file)", ErrEmptyOld)
	case old == new:
		return EditResult{}, fmt.Errorf("%w: nothing to do", ErrNoChange)
	}
	if isCRLF(content) {
		old, new = toCRLF(old), toCRLF(new)
	}
	n := strings.Count(content, old)
	switch {
	case n == 1 || n > 1 && all:
		return EditResult{Content: strings.ReplaceAll(content, old, new), Replacements: n}, nil
	case n > 1:
		return EditResult{}, fmt.Errorf("%w: it matches %d locations (lines %s); include more surrounding lines to make it unique, or set replace_all to true",
			ErrNotUnique, n, strings.Join(matchLines(content, old, 5), ", "))
	}
	if res, ok := nfcEdit(content, old, new); ok {
		return res, nil
	}
	if res, ok := fuzzyEdit(content, old, new); ok {
		return res, nil
	}
	return EditResult{}, notFound(content, old)
}

// toCRLF gives every line of s a CRLF ending.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// nfcEdit finds a one-line old in exactly one line of content once both
// are in Unicode NFC (a file in NFD, an old_string in NFC), and replaces
// it there; only that line is rewritten in NFC.
func nfcEdit(content, old, new string) (EditResult, bool) {
	if strings.Contains(old, "\n") {
		return EditResult{}, false
	}
	o := norm.NFC.String(old)
	lines := strings.Split(content, "\n")
	at := -1
	for i, l := range lines {
		switch strings.Count(norm.NFC.String(l), o) {
		case 0:
			continue
		case 1:
			if at < 0 {
				at = i
				continue
			}
		}
		return EditResult{}, false // more than one occurrence
	}
	if at < 0 {
		return EditResult{}, false
	}
	lines[at] = strings.Replace(norm.NFC.String(lines[at]), o, new, 1)
	return EditResult{Content: strings.Join(lines, "\n"), Replacements: 1, Fuzzy: true}, true
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
// surrounding whitespace and Unicode punctuation and normalisation
// differences, and replaces the matched lines when the match is unique.
// new's lines are re-indented by the offset between old's first non-blank
// line and the file line it matched (as apply_patch does), and end as the
// file's lines do.
func fuzzyEdit(content, old, new string) (EditResult, bool) {
	lines := strings.Split(content, "\n")
	want := strings.Split(strings.Trim(strings.ReplaceAll(old, "\r\n", "\n"), "\n"), "\n")
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
	anchor := 0
	for anchor < len(want)-1 && strings.TrimSpace(want[anchor]) == "" {
		anchor++
	}
	var repl []string
	if new != "" {
		repl = strings.Split(strings.Trim(strings.ReplaceAll(new, "\r\n", "\n"), "\n"), "\n")
	}
	cr := ""
	if isCRLF(content) {
		cr = "\r"
	}
	lastCR := strings.HasSuffix(lines[at+len(want)-1], "\r")
	for i, l := range repl {
		l = reindent(l, want[anchor], lines[at+anchor])
		switch {
		case i < len(repl)-1:
			l += cr
		case lastCR:
			l += "\r"
		}
		repl[i] = l
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
		return fmt.Errorf("%w: the closest line is %d: %q%s; read the file and copy old_string exactly, whitespace included",
			ErrNotFound, bestLine, strings.TrimSuffix(best, "\r"), invisibleDiff(strings.TrimSpace(best), first))
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

// invisibleDiff spells out, as escaped code points, a closest line that
// differs from old_string's first line only in characters a reader cannot
// see (zero-width or non-breaking spaces, combining marks, tabs), so that
// the model does not retry the same text; "" when nothing is invisible.
func invisibleDiff(line, first string) string {
	if line == first || !hasHidden(line) && !hasHidden(first) {
		return ""
	}
	return fmt.Sprintf(" (the difference is invisible; as code points the file has %+q, old_string has %+q)", line, first)
}

// hasHidden reports a character outside printable ASCII.
func hasHidden(s string) bool {
	for _, r := range s {
		if r > '~' || r < ' ' {
			return true
		}
	}
	return false
}
