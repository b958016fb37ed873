package coding

import (
	"errors"
	"fmt"
	"strings"
)

// ErrHunkNotFound is wrapped when a hunk's lines are not in the file.
var ErrHunkNotFound = errors.New("hunk does not match the file")

// Change is one file change computed from a patch, not yet written.
type Change struct {
	Kind    OpKind
	Path    string
	NewPath string // rename target ("" when not moved)
	Content string // new content (add and update)
}

// ReadFunc reads a file named in a patch (as written in the patch).
type ReadFunc func(path string) (string, error)

// ComputePatch parses text and computes every change against the files
// read returns, without writing anything: a patch applies whole or not at
// all.
func ComputePatch(text string, read ReadFunc) ([]Change, error) {
	ops, err := ParsePatch(text)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, op := range ops {
		switch op.Kind {
		case OpAdd:
			content := strings.Join(op.Lines, "\n")
			if len(op.Lines) > 0 {
				content += "\n"
			}
			changes = append(changes, Change{Kind: OpAdd, Path: op.Path, Content: content})
		case OpDelete:
			if _, err := read(op.Path); err != nil {
				return nil, fmt.Errorf("delete %s: %w", op.Path, err)
			}
			changes = append(changes, Change{Kind: OpDelete, Path: op.Path})
		case OpUpdate:
			old, err := read(op.Path)
			if err != nil {
				return nil, fmt.Errorf("update %s: %w", op.Path, err)
			}
			content, err := applyHunks(old, op.Hunks, op.Path)
			if err != nil {
				return nil, err
			}
			changes = append(changes, Change{Kind: OpUpdate, Path: op.Path, NewPath: op.MoveTo, Content: content})
		}
	}
	return changes, nil
}

// applyHunks applies hunks in order to content. Context and '-' lines only
// locate a change: the matched file lines keep their own text (indentation
// and line ending included) and only '-' lines are removed and '+' lines
// inserted. '+' lines follow the file's indentation where the patch's
// context was indented differently (see reindent). A '+' line replacing
// '-' lines takes their line ending; other '+' lines take the ending of
// the context line they follow, or the file's (CRLF when most of its lines
// end so). The result always ends with a newline.
func applyHunks(content string, hunks []Hunk, path string) (string, error) {
	cr := ""
	if isCRLF(content) {
		cr = "\r"
	}
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	if content == "" {
		lines = nil
	}
	cursor := 0
	for n, h := range hunks {
		var old []string
		for _, hl := range h.Lines {
			if hl.Op != '+' {
				old = append(old, hl.Text)
			}
		}
		from, hintAt := cursor, -1
		if h.Hint != "" {
			if hintAt = findHint(lines, h.Hint, cursor); hintAt >= 0 {
				from = hintAt
			}
		}
		var at int
		switch {
		case len(old) == 0 && hintAt >= 0 && !h.EOF:
			at = hintAt + 1 // pure addition after the hinted line
		case len(old) == 0:
			at = len(lines)
		default:
			at = findLines(lines, old, from, h.EOF)
			if at < 0 && from != cursor {
				at = findLines(lines, old, cursor, h.EOF)
			}
			if at < 0 {
				at = findLines(lines, old, 0, h.EOF)
			}
			if at < 0 {
				return "", hunkError(n+1, path, h, old, lines)
			}
		}
		block := hunkBlock(h.Lines, lines[at:at+len(old)], cr)
		lines = append(lines[:at], append(block, lines[at+len(old):]...)...)
		cursor = at + len(block)
	}
	out := strings.Join(lines, "\n")
	if len(lines) > 0 {
		// An updated file ends with a newline, as the reference apply_patch
		// writes it, in the file's own style.
		if !strings.HasSuffix(out, "\r") {
			out += cr
		}
		out += "\n"
	}
	return out, nil
}

// isCRLF reports whether most of content's lines end in CRLF.
func isCRLF(content string) bool {
	return 2*strings.Count(content, "\r\n") > strings.Count(content, "\n")
}

// hunkBlock is what replaces matched (the file lines the hunk's context and
// '-' lines matched, in order): the context lines as the file has them and
// the '+' lines re-indented and ended with cr.
func hunkBlock(hl []HunkLine, matched []string, cr string) []string {
	file := make([]string, len(hl)) // the file's line for each ' ' and '-' line
	k := 0
	for i, l := range hl {
		if l.Op != '+' {
			file[i] = matched[k]
			k++
		}
	}
	var block []string
	for i, l := range hl {
		switch l.Op {
		case ' ':
			block = append(block, file[i])
		case '+':
			text := l.Text
			end := cr
			if a := anchorLine(hl, i); a >= 0 {
				text = reindent(text, hl[a].Text, file[a])
				end = ending(file[a])
			}
			if r := replacedLine(hl, i); r >= 0 {
				end = ending(file[r])
			}
			block = append(block, text+end)
		}
	}
	return block
}

// ending is "\r" when a file line (split at "\n") ended in CRLF.
func ending(fileLine string) string {
	if strings.HasSuffix(fileLine, "\r") {
		return "\r"
	}
	return ""
}

// replacedLine is the index of the '-' line that '+' line i replaces: the
// nearest '-' line in the same run of changes (before it, else after it),
// or -1 for a pure insertion.
func replacedLine(hl []HunkLine, i int) int {
	for j := i - 1; j >= 0 && hl[j].Op != ' '; j-- {
		if hl[j].Op == '-' {
			return j
		}
	}
	for j := i + 1; j < len(hl) && hl[j].Op != ' '; j++ {
		if hl[j].Op == '-' {
			return j
		}
	}
	return -1
}

// anchorLine is the index of the non-blank context or '-' line nearest
// before '+' line i (after it when none is before), or -1.
func anchorLine(hl []HunkLine, i int) int {
	for j := i - 1; j >= 0; j-- {
		if hl[j].Op != '+' && strings.TrimSpace(hl[j].Text) != "" {
			return j
		}
	}
	for j := i + 1; j < len(hl); j++ {
		if hl[j].Op != '+' && strings.TrimSpace(hl[j].Text) != "" {
			return j
		}
	}
	return -1
}

// reindent moves an added line by the difference between the file's and
// the patch's indentation of its anchor line, so that a patch indented
// wrongly throughout (a whitespace-tolerant match) adds lines at the
// file's indentation: when the added line starts with the patch anchor's
// indentation, that prefix becomes the file anchor's; when it is indented
// less, with one kind of whitespace throughout, it is shifted by the same
// width. Anything else (tabs against spaces) is left as the patch has it.
func reindent(plus, patchAnchor, fileAnchor string) string {
	pi, fi, li := leadingSpace(patchAnchor), leadingSpace(fileAnchor), leadingSpace(plus)
	if pi == fi || strings.TrimSpace(plus) == "" {
		return plus
	}
	if strings.HasPrefix(li, pi) {
		return fi + plus[len(pi):]
	}
	if ch, ok := oneChar(pi + li + fi); ok {
		return strings.Repeat(ch, max(0, len(li)-len(pi)+len(fi))) + plus[len(li):]
	}
	return plus
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// oneChar reports the single character s is made of ("" and false when s
// mixes characters or is empty).
func oneChar(s string) (string, bool) {
	if s == "" || strings.Trim(s, s[:1]) != "" {
		return "", false
	}
	return s[:1], true
}

// findHint returns the first line at or after from that matches hint
// (exactly, then with normalized whitespace and punctuation, then as a
// substring), or -1.
func findHint(lines []string, hint string, from int) int {
	for _, m := range []matchMode{exact, trimmed, normalized} {
		for i := from; i < len(lines); i++ {
			if matchLine(strings.TrimSuffix(lines[i], "\r"), hint, m) {
				return i
			}
		}
	}
	nh := normalize(hint)
	for i := from; i < len(lines); i++ {
		if nh != "" && strings.Contains(normalize(lines[i]), nh) {
			return i
		}
	}
	return -1
}

// findLines finds want as consecutive lines at or after from, trying exact
// matching first and then the whitespace- and punctuation-tolerant modes.
// With eof it prefers a match that ends at the end of the file.
func findLines(lines, want []string, from int, eof bool) int {
	for _, m := range []matchMode{exact, trimEnd, trimmed, normalized} {
		if eof {
			if at := len(lines) - len(want); at >= from && linesMatch(lines[at:], want, m) {
				return at
			}
		}
		for at := from; at+len(want) <= len(lines); at++ {
			if linesMatch(lines[at:], want, m) {
				return at
			}
		}
	}
	return -1
}

func linesMatch(lines, want []string, m matchMode) bool {
	for i, w := range want {
		if !matchLine(strings.TrimSuffix(lines[i], "\r"), w, m) {
			return false
		}
	}
	return true
}

// hunkError explains a hunk that did not match, with where its first line
// does occur, so the model can re-read the file and retry.
func hunkError(n int, path string, h Hunk, old, lines []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "hunk %d of %s: these lines were not found in the file", n, path)
	if h.Hint != "" {
		fmt.Fprintf(&b, " (after @@ %s)", h.Hint)
	}
	b.WriteString(":\n")
	for _, l := range old {
		b.WriteString("  " + l + "\n")
	}
	first := ""
	for _, l := range old {
		if strings.TrimSpace(l) != "" {
			first = l
			break
		}
	}
	var seen []string
	for i, l := range lines {
		if first != "" && matchLine(l, first, normalized) && len(seen) < 5 {
			seen = append(seen, fmt.Sprint(i+1))
		}
	}
	if len(seen) > 0 {
		fmt.Fprintf(&b, "the first of them appears at line(s) %s, but the lines after it differ; ", strings.Join(seen, ", "))
	}
	b.WriteString("read the file again and resend the patch with context lines copied exactly")
	return fmt.Errorf("%w: %s", ErrHunkNotFound, b.String())
}
