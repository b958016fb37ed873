package coding

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// matchMode is how strictly two lines must agree.
type matchMode int

const (
	exact      matchMode = iota
	trimEnd              // trailing whitespace ignored
	trimmed              // surrounding whitespace ignored
	normalized           // NFC, whitespace runs collapsed, Unicode punctuation folded
)

func matchLine(a, b string, m matchMode) bool {
	switch m {
	case exact:
		return a == b
	case trimEnd:
		return strings.TrimRight(a, " \t") == strings.TrimRight(b, " \t")
	case trimmed:
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	default:
		return normalize(a) == normalize(b)
	}
}

// punct folds the Unicode punctuation models and editors substitute for
// ASCII (smart quotes, dashes, non-breaking spaces) back to ASCII.
var punct = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2212", "-",
	"\u00a0", " ", "\u2009", " ", "\u202f", " ", "\u2026", "...",
)

// normalize is a line in Unicode NFC with Unicode punctuation folded and
// whitespace runs collapsed to one space, trimmed.
func normalize(s string) string {
	return strings.Join(strings.Fields(punct.Replace(norm.NFC.String(s))), " ")
}
