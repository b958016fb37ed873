package pty

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrUnknownKey is returned for a key name Keys does not know.
var ErrUnknownKey = errors.New("unknown key")

// namedKeys are the byte sequences an xterm sends for each key.
var namedKeys = map[string]string{
	"enter": "\r", "tab": "\t", "esc": "\x1b", "escape": "\x1b", "space": " ",
	"backspace": "\x7f", "delete": "\x1b[3~", "insert": "\x1b[2~",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// KeyNames lists the accepted key names for help texts.
const KeyNames = "Enter, Tab, Esc, Space, Backspace, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1–F12, C-a … C-z (also C-[ C-\\ C-] C-^ C-_ C-@)"

// appCursorKeys replace the arrow, Home and End sequences while the
// program has switched the terminal to application cursor mode (DECCKM),
// as full-screen programs such as curses applications and vi do.
var appCursorKeys = map[string]string{
	"up": "\x1bOA", "down": "\x1bOB", "right": "\x1bOC", "left": "\x1bOD",
	"home": "\x1bOH", "end": "\x1bOF",
}

// Keys returns the bytes a terminal sends for the named keys, in order;
// appCursor selects application cursor mode. Names are case-insensitive;
// C-x is Ctrl+x; a single character stands for itself.
func Keys(names []string, appCursor bool) ([]byte, error) {
	var out []byte
	for _, n := range names {
		k, err := key(n)
		if err != nil {
			return nil, err
		}
		if s, ok := appCursorKeys[strings.ToLower(n)]; ok && appCursor {
			k = s
		}
		out = append(out, k...)
	}
	return out, nil
}

func key(name string) (string, error) {
	l := strings.ToLower(name)
	if s, ok := namedKeys[l]; ok {
		return s, nil
	}
	if (strings.HasPrefix(l, "c-") || strings.HasPrefix(l, "ctrl-")) && len(name) == strings.Index(l, "-")+2 {
		c := l[len(l)-1]
		switch {
		case c >= 'a' && c <= 'z':
			return string(rune(c - 'a' + 1)), nil
		case c == '@':
			return "\x00", nil
		case c >= '[' && c <= '_':
			return string(rune(c - '@')), nil
		}
	}
	if utf8.RuneCountInString(name) == 1 {
		// A single character is that key: keys q, keys y, keys :
		return name, nil
	}
	return "", fmt.Errorf("%w %q (known: %s, or any single character)", ErrUnknownKey, name, KeyNames)
}
