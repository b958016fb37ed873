package pty

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Strip turns raw terminal output into plain text an LLM can read: escape
// sequences (CSI, OSC, DCS and two-byte ESC sequences) are removed, CR LF
// becomes LF, and the rest follows the terminal's cursor within a line, so
// the text says what the screen shows: a bare carriage return goes back to
// the start of the line and what follows overwrites it ("abcdef\rXY" is
// "XYcdef"), backspace and cursor left/right (CSI D, CSI C) move along the
// line, erase-in-line (CSI K) cuts it. Other control characters except
// tab are dropped. It is the fix for the v1.4 deprecation reason "ANSI
// escape sequences are not LLM-friendly".
func Strip(b []byte) string { return StripAt(b, 0, 0) }

// StripAt is Strip for output that starts at column col of a terminal cols
// wide (0: no limit). A line reaching the right margin wraps as on the
// terminal, so a carriage return after the wrap returns to the start of
// the wrapped part, not of the whole line (bash redraws long command lines
// that way); the text itself is not broken. Cells before col that the
// output does not overwrite are left out.
func StripAt(b []byte, col, cols int) string {
	l := strip(b, col, cols)
	return strings.ReplaceAll(string(l.out), string(blankCell), "")
}

// strip runs Strip's terminal model over b and returns its final state.
func strip(b []byte, col, cols int) *line {
	l := line{cols: cols}
	for range col {
		l.out = append(l.out, blankCell)
	}
	l.cur = col
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			next := skipEscape(b, i)
			l.csi(b[i:min(next, len(b))])
			i = next
			continue
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
				continue
			}
			l.cur = l.start
		case c == '\n':
			l.out = append(l.out, '\n')
			l.start, l.cur = len(l.out), len(l.out)
		case c == '\b':
			switch {
			case l.cur == len(l.out) && l.cur > l.start:
				l.out = l.out[:l.cur-1] // at the end: erase, as shells echo it
				l.cur--
			case l.cur > l.start:
				l.cur--
			}
		case c == '\t':
			l.put('\t')
		case c < 0x20 || c == 0x7f:
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				r, size = '\ufffd', 1
			}
			l.put(r)
			i += size
			continue
		}
		i++
	}
	return &l
}

// blankCell marks the cells of the first line before the output's start.
const blankCell = '\uffff'

// line is Strip's output with a cursor in its last line.
type line struct {
	out   []rune
	start int // index in out where the last line starts
	cur   int // the cursor: index in out, start <= cur <= len(out)
	cols  int // terminal width; 0: no wrapping
}

// put writes r at the cursor, overwriting what is there.
func (l *line) put(r rune) {
	if l.cols > 0 && l.cur-l.start >= l.cols {
		l.start = l.cur // auto-wrap: a new row of the same text line
	}
	if l.cur < len(l.out) {
		l.out[l.cur] = r
	} else {
		l.out = append(l.out, r)
	}
	l.cur++
}

// csi applies the in-line cursor moves and erases of the escape sequence
// seq (ESC included); everything else is ignored.
func (l *line) csi(seq []byte) {
	if len(seq) < 3 || seq[1] != '[' {
		return
	}
	final, params := seq[len(seq)-1], string(seq[2:len(seq)-1])
	n := 1
	if v, err := strconv.Atoi(params); err == nil && v > 0 {
		n = v
	}
	switch final {
	case 'K': // erase in line: 0 (default) to the end, 1 to the start, 2 all
		switch params {
		case "", "0":
			l.out = l.out[:l.cur]
		case "1":
			for i := l.start; i < l.cur && i < len(l.out); i++ {
				l.out[i] = ' '
			}
		case "2":
			l.out = l.out[:l.start]
			for len(l.out) < l.cur {
				l.out = append(l.out, ' ')
			}
		}
	case 'D': // cursor left
		l.cur = max(l.start, l.cur-n)
	case 'C': // cursor right: blanks where there was nothing
		l.cur += n
		for len(l.out) < l.cur {
			l.out = append(l.out, ' ')
		}
	}
}

// skipEscape returns the index after the escape sequence starting at i.
func skipEscape(b []byte, i int) int {
	i++ // ESC
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '[': // CSI: parameters and intermediates, then a final byte 0x40–0x7e
		i++
		for i < len(b) && (b[i] < 0x40 || b[i] > 0x7e) {
			i++
		}
		return i + 1
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: until BEL or ST
		i++
		for i < len(b) {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
			i++
		}
		return i
	case '(', ')', '*', '+', '#', '%': // charset and similar: one more byte
		return i + 2
	default:
		return i + 1
	}
}

// trimScreen renders screen rows as text: trailing blanks of each row and
// trailing empty rows removed.
func trimScreen(rows []string) string {
	for len(rows) > 0 && strings.TrimRight(rows[len(rows)-1], " ") == "" {
		rows = rows[:len(rows)-1]
	}
	var sb strings.Builder
	for _, r := range rows {
		sb.WriteString(strings.TrimRight(r, " "))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Column returns the cursor column (counted from 0) after the terminal
// output b, which must start at a line start or contain a newline: the
// column StripAt continues from.
func Column(b []byte, cols int) int {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	l := strip(b, 0, cols)
	return l.cur - l.start
}
