package coding

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTruncateTool checks the per-tool limits on top of the shared
// seeds/001 §5 algorithm: rune counting, an odd limit, tail mode and the
// line limit applied after the character limit.
func TestTruncateTool(t *testing.T) {
	midWarning := func(n string) string {
		return "\n\n[WARNING: Tool output was truncated. " + n + " characters were removed from the middle. " +
			"The full output is available in the event stream. " +
			"If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n"
	}
	tests := []struct {
		name, tool, in, want string
	}{
		{"unknown tool untouched", "bash", strings.Repeat("x", 60000), strings.Repeat("x", 60000)},
		{"read_file head_tail", "read_file", strings.Repeat("é", 50001),
			strings.Repeat("é", 25000) + midWarning("1") + strings.Repeat("é", 25000)},
		{"write_file tail", "write_file", "ab" + strings.Repeat("y", 1000),
			"[WARNING: Tool output was truncated. First 2 characters were removed. The full output is available in the event stream.]\n\n" +
				strings.Repeat("y", 1000)},
		{"grep lines", "grep", strings.Repeat("m\n", 300) + "end",
			strings.Repeat("m\n", 99) + "m\n[... 101 lines omitted ...]\n" + strings.Repeat("m\n", 99) + "end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, TruncateTool(tt.tool, tt.in)); diff != "" {
				t.Errorf("TruncateTool(%q) mismatch (-want +got):\n%s", tt.tool, diff)
			}
		})
	}
	if got, want := TruncateChars("abcde", 3, HeadTail), "a"+midWarning("2")+"e"; got != want {
		t.Errorf("TruncateChars(abcde, 3) = %q, want %q", got, want)
	}
}
