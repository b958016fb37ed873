package tool

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// placeholderRE matches ${name} and ${name:raw}. Any other ${…} is left to
// the template's own rules (an error in exec:, shell syntax in shell:).
// It is compiled on first use, not at every start of every binary.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:raw)?\}`)
})

// Sentinel delimiters that replace placeholders before the template is
// handed to the sh parser. They are private-use runes, parsed by sh as
// ordinary word characters, so a placeholder stays inside the word where it
// stands and is never re-split.
const (
	sentinelOpen  = '\uE000'
	sentinelClose = '\uE001'
)

// placeholder is one ${name} occurrence in a template.
type placeholder struct {
	Name  string
	Raw   bool
	Start int // byte offsets in the original template
	End   int
}

// scanPlaceholders finds every placeholder and returns the template with
// each replaced by a sentinel "\uE000<index>\uE001", where index is the
// placeholder's position in the returned slice.
func scanPlaceholders(tmpl string) (string, []placeholder, error) {
	if strings.ContainsRune(tmpl, sentinelOpen) || strings.ContainsRune(tmpl, sentinelClose) {
		return "", nil, errorf(ErrTemplate, "template contains reserved characters U+E000/U+E001")
	}
	var (
		out strings.Builder
		phs []placeholder
		pos int
	)
	for _, m := range placeholderRE().FindAllStringSubmatchIndex(tmpl, -1) {
		out.WriteString(tmpl[pos:m[0]])
		phs = append(phs, placeholder{Name: tmpl[m[2]:m[3]], Raw: m[4] >= 0, Start: m[0], End: m[1]})
		fmt.Fprintf(&out, "%c%d%c", sentinelOpen, len(phs)-1, sentinelClose)
		pos = m[1]
	}
	out.WriteString(tmpl[pos:])
	return out.String(), phs, nil
}

// splitSentinels cuts s (text after scanPlaceholders) into literal and
// parameter parts.
func splitSentinels(s string, phs []placeholder) []Part {
	var parts []Part
	for {
		i := strings.IndexRune(s, sentinelOpen)
		if i < 0 {
			break
		}
		j := strings.IndexRune(s[i:], sentinelClose)
		if j < 0 {
			break
		}
		var n int
		fmt.Sscanf(s[i+len(string(sentinelOpen)):i+j], "%d", &n)
		if i > 0 {
			parts = append(parts, Part{Literal: s[:i]})
		}
		parts = append(parts, Part{Param: phs[n].Name})
		s = s[i+j+len(string(sentinelClose)):]
	}
	if s != "" {
		parts = append(parts, Part{Literal: s})
	}
	return parts
}

// containsSentinel reports whether s holds a placeholder sentinel.
func containsSentinel(s string) bool { return strings.ContainsRune(s, sentinelOpen) }
