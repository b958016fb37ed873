package execute

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTruncate(t *testing.T) {
	warn := func(n string) string {
		return "\n\n[WARNING: Tool output was truncated. " + n + " characters were removed from the middle. " +
			"The full output is available in the event stream. " +
			"If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n"
	}
	lines := func(from, to int) []string {
		var l []string
		for i := from; i <= to; i++ {
			l = append(l, "l"+string(rune('a'+i)))
		}
		return l
	}
	tests := []struct {
		name               string
		in                 string
		maxChars, maxLines int
		want               string
	}{
		{"short is untouched", "hello", 10, 10, "hello"},
		{"exactly at the limit", "0123456789", 10, 0, "0123456789"},
		{"head and tail", "0123456789abcdef", 10, 0, "01234" + warn("6") + "bcdef"},
		{"odd limit halves down", "0123456789abcdef", 5, 0, "01" + warn("11") + "ef"},
		{"characters not bytes", "ééééééééé", 4, 0, "éé" + warn("5") + "éé"},
		{"lines", strings.Join(lines(0, 9), "\n"), 0, 4,
			"la\nlb\n[... 6 lines omitted ...]\nli\nlj"},
		{"lines odd limit: tail gets the extra", strings.Join(lines(0, 9), "\n"), 0, 3,
			"la\n[... 7 lines omitted ...]\nli\nlj"},
		{"lines at limit", "a\nb\nc", 0, 3, "a\nb\nc"},
		{"chars first then lines", "a\nb\nc\nd\ne\nf\ng\nh", 6, 3,
			"a\n[... 4 lines omitted ...]\ng\nh"},
		{"two huge lines still cut by chars", strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 100), 20, 256,
			strings.Repeat("x", 10) + warn("181") + strings.Repeat("y", 10)},
		{"disabled", strings.Repeat("z", 50), 0, 0, strings.Repeat("z", 50)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.in, tt.maxChars, tt.maxLines)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Truncate(%q, %d, %d) mismatch (-want +got):\n%s", tt.in, tt.maxChars, tt.maxLines, diff)
			}
		})
	}
}

func TestTimeoutNote(t *testing.T) {
	want := "[ERROR: Command timed out after 10000ms. Partial output is shown above.\n" +
		"You can retry with a longer timeout by setting the timeout_ms parameter.]"
	if got := TimeoutNote(10000); got != want {
		t.Errorf("TimeoutNote(10000) = %q, want %q", got, want)
	}
}
