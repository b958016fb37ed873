package pty

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestStrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello\n", "hello\n"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"cursor moves", "\x1b[2J\x1b[1;1Hhome\x1b[?25l", "home"},
		{"osc title bel", "\x1b]0;title\x07prompt$ ", "prompt$ "},
		{"osc title st", "\x1b]2;t\x1b\\x", "x"},
		{"charset", "\x1b(Bok", "ok"},
		{"keypad mode", "\x1b=\x1b>ok", "ok"},
		{"backspace at the end erases", "abc\b\bX", "aX"},
		{"backspace inside a line moves back", "abcdef\rabc\b\bX", "aXcdef"},
		{"backspace erase as shells echo it", "abc\b \b\b \bX", "aX"},
		{"bare cr overwrites", "abcdef\rXY\n", "XYcdef\n"},
		{"cr then erase to end of line", "abcdef\rXY\x1b[K\n", "XY\n"},
		{"erase whole line", "abc\x1b[2Kd", "   d"},
		{"erase to start", "abcdef\x1b[3D\x1b[1K!", "   !ef"},
		{"cursor left and right", "abcdef\x1b[4DX\x1b[2CY", "abXdeY"},
		{"cursor right past the end", "ab\x1b[2Cc", "ab  c"},
		{"cursor right then overwrite", "$ echo looooong\r\x1b[Cloooong\n", "$loooongooooong\n"},
		{"cr only touches the last line", "one\ntwo\rT\n", "one\nTwo\n"},
		{"bare cr redraws", "10%\r20%\r30%\n", "30%\n"},
		{"trailing cr kept", "abc\r", "abc"},
		{"tab kept, bell dropped", "a\tb\x07", "a\tb"},
		{"utf8", "héllo ✓", "héllo ✓"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"truncated csi", "ok\x1b[3", "ok"},
		{"lone esc", "ok\x1b", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Strip([]byte(tt.in))); diff != "" {
				t.Errorf("Strip(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestStripAt(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		col, cols int
		want      string
	}{
		// bash at 10 columns: "# " prompt, then "echo 12345678" wraps after
		// "echo 123" (the last column); bash writes " \r" to move to the new row.
		{"bash wrap", "echo 123 \r45678\r\nout\r\n", 2, 10, "echo 12345678\nout\n"},
		{"no width: cr goes to the line start", "abc\rX", 0, 0, "Xbc"},
		{"starts mid-line; earlier cells left out", "def\n", 3, 0, "def\n"},
		{"cr overwrites cells read before", "def\r12", 3, 0, "12def"},
		{"exactly at the margin wraps on the next character", "abcd", 0, 4, "abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, StripAt([]byte(tt.in), tt.col, tt.cols)); diff != "" {
				t.Errorf("StripAt(%q, %d, %d) mismatch (-want +got):\n%s", tt.in, tt.col, tt.cols, diff)
			}
		})
	}
}

func TestColumn(t *testing.T) {
	tests := []struct {
		in   string
		cols int
		want int
	}{
		{"", 80, 0},
		{"a\nroot@vm:~# ", 80, 11},
		{"\x1b[1mbold\x1b[0m", 80, 4},
		{"0123456789ab", 10, 2},
		{"progress 10%\rprog", 0, 4},
	}
	for _, tt := range tests {
		if got := Column([]byte(tt.in), tt.cols); got != tt.want {
			t.Errorf("Column(%q, %d) = %d, want %d", tt.in, tt.cols, got, tt.want)
		}
	}
}

// FuzzStrip checks Strip never panics and never lets an escape or other
// control character (but newline and tab) through.
func FuzzStrip(f *testing.F) {
	for _, s := range []string{"\x1b[31mred", "a\r\nb", "\x1b]0;t\x07", "x\b\by", "\x1b", "\x1b[", "\r\r\n", "ab\rc\x1b[K", "\x1b[9C\x1b[2K\x1b[1K"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := StripAt(b, len(b)%7, len(b)%5)
		if !utf8.ValidString(out) {
			t.Fatalf("Strip(%q) = %q: invalid UTF-8", b, out)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
				t.Fatalf("Strip(%q) = %q: control character %U left", b, out, r)
			}
		}
	})
}

func TestKeys(t *testing.T) {
	tests := []struct {
		names []string
		app   bool
		want  string
	}{
		{[]string{"Enter"}, false, "\r"},
		{[]string{"up", "DOWN"}, false, "\x1b[A\x1b[B"},
		{[]string{"Up", "Home"}, true, "\x1bOA\x1bOH"},
		{[]string{"PageUp", "F1", "F12"}, true, "\x1b[5~\x1bOP\x1b[24~"},
		{[]string{"C-c", "C-a", "Ctrl-z", "C-]"}, false, "\x03\x01\x1a\x1d"},
		{[]string{"Esc", "Tab", "Space", "Backspace", "Delete"}, false, "\x1b\t \x7f\x1b[3~"},
	}
	for _, tt := range tests {
		got, err := Keys(tt.names, tt.app)
		if err != nil {
			t.Fatalf("Keys(%q) error: %v", tt.names, err)
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("Keys(%q, %v) mismatch (-want +got):\n%s", tt.names, tt.app, diff)
		}
	}
	for _, bad := range []string{"Hyper", "C-", "C-ab", "F13", ""} {
		if _, err := Keys([]string{bad}, false); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Keys(%q) error = %v, want ErrUnknownKey", bad, err)
		}
	}
}

func TestRing(t *testing.T) {
	r := newRing(8)
	r.Write([]byte("hello"))
	if got := string(r.Since(0)); got != "hello" {
		t.Errorf("Since(0) = %q, want hello", got)
	}
	r.Write([]byte(" world"))
	// 11 bytes written, 8 kept: offsets 3..11.
	if got := string(r.Since(0)); got != "lo world" {
		t.Errorf("Since(0) after wrap = %q, want %q", got, "lo world")
	}
	if got := string(r.Since(6)); got != "world" {
		t.Errorf("Since(6) = %q, want world", got)
	}
	if got := r.Since(11); got != nil {
		t.Errorf("Since(end) = %q, want nothing", got)
	}
	if cap(r.buf) > 64 {
		t.Errorf("ring grew to %d bytes", cap(r.buf))
	}
}

func TestTrimScreen(t *testing.T) {
	got := trimScreen([]string{"a   ", "  b ", "    ", "   "})
	if want := "a\n  b\n"; got != want {
		t.Errorf("trimScreen = %q, want %q", got, want)
	}
	if got := trimScreen(strings.Split("   \n  ", "\n")); got != "" {
		t.Errorf("trimScreen(blank) = %q, want empty", got)
	}
}
