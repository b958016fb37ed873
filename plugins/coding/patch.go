package coding

import (
	"errors"
	"fmt"
	"strings"
)

// ErrPatchSyntax is wrapped by every apply_patch parse error.
var ErrPatchSyntax = errors.New("invalid patch")

// OpKind is what a patch operation does to a file.
type OpKind string

// Patch operations (seeds/001 Appendix A).
const (
	OpAdd    OpKind = "add"
	OpDelete OpKind = "delete"
	OpUpdate OpKind = "update"
)

// PatchOp is one file operation of a v4a patch.
type PatchOp struct {
	Kind   OpKind
	Path   string
	MoveTo string   // update only: rename target
	Lines  []string // add only: the file's lines
	Hunks  []Hunk   // update only
}

// Hunk is one @@ section of an update.
type Hunk struct {
	// Hint is the text after "@@ " (a line near the change; "" for a bare @@).
	Hint  string
	Lines []HunkLine
	// EOF is set by "*** End of File": the hunk ends at the end of the file.
	EOF bool
}

// HunkLine is one line of a hunk: Op is ' ' (context), '-' or '+'.
type HunkLine struct {
	Op   byte
	Text string
}

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	deleteFile = "*** Delete File: "
	updateFile = "*** Update File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// ParsePatch parses a v4a patch. It accepts what models actually send:
// text around the Begin/End markers (a heredoc wrapper), CRLF line ends, a
// missing "*** End Patch", a bare "@@", an update whose first hunk has no
// @@ line, and blank hunk lines that lost their leading space.
func ParsePatch(text string) ([]PatchOp, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == beginPatch {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("%w: missing %q line", ErrPatchSyntax, beginPatch)
	}
	lines = lines[start+1:]
	for i, l := range lines {
		if strings.TrimSpace(l) == endPatch {
			lines = lines[:i]
			break
		}
	}
	var ops []PatchOp
	for i := 0; i < len(lines); {
		l := strings.TrimLeft(lines[i], " \t")
		switch {
		case strings.HasPrefix(l, addFile):
			op := PatchOp{Kind: OpAdd, Path: strings.TrimSpace(l[len(addFile):])}
			i++
			for ; i < len(lines) && !isHeader(lines[i]); i++ {
				switch {
				case strings.HasPrefix(lines[i], "+"):
					op.Lines = append(op.Lines, lines[i][1:])
				case strings.TrimSpace(lines[i]) == "" && onlyBlankUntilHeader(lines[i:]):
					// trailing blank lines before the next header or the end
				default:
					return nil, fmt.Errorf("%w: line %q in Add File %s must start with '+'", ErrPatchSyntax, lines[i], op.Path)
				}
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, deleteFile):
			ops = append(ops, PatchOp{Kind: OpDelete, Path: strings.TrimSpace(l[len(deleteFile):])})
			i++
		case strings.HasPrefix(l, updateFile):
			op := PatchOp{Kind: OpUpdate, Path: strings.TrimSpace(l[len(updateFile):])}
			i++
			if i < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i], " \t"), moveTo) {
				op.MoveTo = strings.TrimSpace(strings.TrimLeft(lines[i], " \t")[len(moveTo):])
				i++
			}
			var err error
			op.Hunks, i, err = parseHunks(lines, i, op.Path)
			if err != nil {
				return nil, err
			}
			if len(op.Hunks) == 0 && op.MoveTo == "" {
				return nil, fmt.Errorf("%w: Update File %s has no hunks", ErrPatchSyntax, op.Path)
			}
			ops = append(ops, op)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, fmt.Errorf("%w: unexpected line %q (expected %q, %q or %q)",
				ErrPatchSyntax, l, strings.TrimSpace(addFile), strings.TrimSpace(deleteFile), strings.TrimSpace(updateFile))
		}
	}
	for _, op := range ops {
		if op.Path == "" {
			return nil, fmt.Errorf("%w: %s operation without a path", ErrPatchSyntax, op.Kind)
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%w: no file operations", ErrPatchSyntax)
	}
	return ops, nil
}

// parseHunks reads the hunks of one Update File starting at lines[i].
func parseHunks(lines []string, i int, path string) ([]Hunk, int, error) {
	var hunks []Hunk
	var cur *Hunk
	for ; i < len(lines) && !isHeader(lines[i]); i++ {
		l := lines[i]
		switch {
		case l == "@@" || strings.HasPrefix(l, "@@ "):
			hunks = append(hunks, Hunk{Hint: strings.TrimSpace(strings.TrimPrefix(l, "@@"))})
			cur = &hunks[len(hunks)-1]
			continue
		case strings.TrimSpace(l) == endOfFile:
			if cur == nil {
				return nil, i, fmt.Errorf("%w: %q before any hunk in %s", ErrPatchSyntax, endOfFile, path)
			}
			cur.EOF = true
			continue
		}
		if cur == nil {
			hunks = append(hunks, Hunk{})
			cur = &hunks[len(hunks)-1]
		}
		switch {
		case l == "":
			if onlyBlankUntilHeader(lines[i:]) {
				continue
			}
			cur.Lines = append(cur.Lines, HunkLine{Op: ' '})
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			cur.Lines = append(cur.Lines, HunkLine{Op: l[0], Text: l[1:]})
		default:
			return nil, i, fmt.Errorf("%w: line %q in Update File %s must start with ' ', '-', '+' or @@", ErrPatchSyntax, l, path)
		}
	}
	for n, h := range hunks {
		if len(h.Lines) == 0 {
			return nil, i, fmt.Errorf("%w: hunk %d of %s is empty", ErrPatchSyntax, n+1, path)
		}
	}
	return hunks, i, nil
}

// isHeader reports whether l starts a file operation; like the Begin and
// End markers, headers may be padded with blanks.
func isHeader(l string) bool {
	l = strings.TrimLeft(l, " \t")
	return strings.HasPrefix(l, addFile) || strings.HasPrefix(l, deleteFile) || strings.HasPrefix(l, updateFile)
}

func onlyBlankUntilHeader(lines []string) bool {
	for _, l := range lines {
		if isHeader(l) {
			return true
		}
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}
