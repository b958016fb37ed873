package observe

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
	for _, tt := range []struct {
		hasOutput bool
		want      string
	}{
		{true, "[ERROR: Command timed out after 10000ms and was stopped. Partial output is shown above.\n" +
			"Retry with a quicker command (narrower input, or in the background with its output in a file); " +
			"the time limit itself is set by the agent's configuration.]"},
		{false, "[ERROR: Command timed out after 10000ms and was stopped.\n" +
			"Retry with a quicker command (narrower input, or in the background with its output in a file); " +
			"the time limit itself is set by the agent's configuration.]"},
	} {
		got := TimeoutNote(10000, tt.hasOutput)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("TimeoutNote(10000, %v) mismatch (-want +got):\n%s", tt.hasOutput, diff)
		}
		if strings.Contains(got, "timeout_ms") {
			t.Errorf("TimeoutNote names a timeout_ms parameter tools do not have: %q", got)
		}
	}
}

func TestTruncateTail(t *testing.T) {
	if got := TruncateTail("short", 10); got != "short" {
		t.Errorf("under the limit: %q", got)
	}
	if got := TruncateTail("anything", 0); got != "anything" {
		t.Errorf("limit 0 disables: %q", got)
	}
	want := "[WARNING: Tool output was truncated. First 3 characters were removed. " +
		"The full output is available in the event stream.]\n\nδεζ"
	if got := TruncateTail("αβγδεζ", 3); got != want {
		t.Errorf("TruncateTail = %q, want %q (characters, not bytes)", got, want)
	}
}

func TestTruncateHead(t *testing.T) {
	if got := TruncateHead("short", 10); got != "short" {
		t.Errorf("under the limit: %q", got)
	}
	if got := TruncateHead("anything", 0); got != "anything" {
		t.Errorf("limit 0 disables: %q", got)
	}
	want := "αβγ\n\n[WARNING: Tool output was truncated. The last 3 characters were removed. " +
		"The full output is available in the event stream.]"
	if got := TruncateHead("αβγδεζ", 3); got != want {
		t.Errorf("TruncateHead = %q, want %q (characters, not bytes)", got, want)
	}
}

func TestCommandText(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    Command
		want string
	}{
		{"stdout only", Command{Stdout: "ok\n"}, "ok\n"},
		{"nothing", Command{}, "(no output)"},
		{"stderr and exit", Command{Stdout: "a", Stderr: "b\n", ExitCode: 2}, "a\n[stderr]\nb\n[exit code: 2]"},
		{"killed", Command{ExitCode: 137, Signal: "SIGKILL"}, "[exit code: 137, killed by SIGKILL]"},
		{"timeout by configuration", Command{Stdout: "x", TimedOut: true, TimeoutMS: 5}, "x\n" + TimeoutNote(5, true)},
		{"timeout by parameter", Command{TimedOut: true, TimeoutMS: 5, TimeoutParam: "timeout_ms", MaxTimeoutMS: 600000},
			"[ERROR: Command timed out after 5ms; it and every process it started were stopped.\n" +
				"You can retry with a longer timeout by setting the timeout_ms parameter (at most 600000), " +
				"or run it in the background with its output in a file.]"},
	} {
		if got := tt.c.Text(); got != tt.want {
			t.Errorf("%s: Text() = %q, want %q", tt.name, got, tt.want)
		}
	}
}
