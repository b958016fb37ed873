package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func checkRuneCount(t *testing.T, s string) {
	t.Helper()
	if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
		t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
	}
}

// TestRuneCount holds the word-at-a-time count to utf8's, at every
// alignment of multi-byte characters and on invalid UTF-8.
func TestRuneCount(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", "é", "ééééé", "€uro price: 10€", "🙂 ok 🙂🙂",
		"\xff", "ab\xffcdefgh", "\xe2\x82", strings.Repeat("x", 7) + "€" + strings.Repeat("y", 9), "\u2028\u0000\x7f"} {
		for i := range 9 {
			checkRuneCount(t, strings.Repeat("-", i)+s)
		}
	}
}

func FuzzRuneCount(f *testing.F) {
	f.Add("héllo wörld, ça va? 🙂")
	f.Add("a\xffb")
	f.Fuzz(checkRuneCount)
}
