package pty

import (
	"strings"
	"unicode/utf8"
)

// Strip turns raw terminal output into plain text an LLM can read: escape
// sequences (CSI, OSC, DCS and two-byte ESC sequences) are removed, CR LF
// becomes LF, a carriage return starts its line over, backspace erases
// the previous character, and other control characters except tab are
// dropped. It is the fix for the v1.4 deprecation reason "ANSI escape
// sequences are not LLM-friendly".
func Strip(b []byte) string {
	var out []rune
	lineStart := 0
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			i = skipEscape(b, i)
			continue
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
				continue
			}
			if i+1 < len(b) {
				out = out[:lineStart] // a bare CR redraws the line
			}
		case c == '\n':
			out = append(out, '\n')
			lineStart = len(out)
		case c == '\b':
			if len(out) > lineStart {
				out = out[:len(out)-1]
			}
		case c == '\t':
			out = append(out, '\t')
		case c < 0x20 || c == 0x7f:
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				r, size = '\ufffd', 1
			}
			out = append(out, r)
			i += size
			continue
		}
		i++
	}
	return string(out)
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
