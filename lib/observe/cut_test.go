package observe

import (
	"strings"
	"testing"
)

func wholeOf(s string) Whole {
	return Whole{Bytes: int64(len(s)), Lines: int64(countLines(s))}
}

func TestCut(t *testing.T) {
	many := strings.Repeat("line\n", 1000)
	for _, tc := range []struct {
		name   string
		in     string
		limits Limits
		whole  Whole
		// want: the text before and after the marker; "" marker means none
		before, after, marker string
	}{
		{"short output untouched", "hello\n", CommandLimits, wholeOf("hello\n"), "hello\n", "", ""},
		{"characters, head and tail", strings.Repeat("a", 100) + strings.Repeat("b", 100), Limits{MaxChars: 20, Mode: HeadTail},
			wholeOf(strings.Repeat("a", 200)), strings.Repeat("a", 10), strings.Repeat("b", 10),
			"Shown here: 1 of 1 line, 20 characters. The whole output (200 bytes, 1 line) is in F:"},
		{"lines and characters: one marker", many, Limits{MaxChars: 30000, MaxLines: 10, Mode: HeadTail}, wholeOf(many),
			strings.Repeat("line\n", 4) + "line", strings.Repeat("line\n", 5),
			"Shown here: 10 of 1000 lines, 49 characters. The whole output (5000 bytes, 1000 lines)"},
		{"tail: the marker first", many, Limits{MaxLines: 3, Mode: Tail}, wholeOf(many), "", "line\nline\nline\n", "Shown here: 3 of 1000 lines"},
		{"head: the marker last", many, Limits{MaxLines: 3, Mode: Head}, wholeOf(many), "line\nline\nline", "", "Shown here: 3 of 1000 lines"},
		{"an output the capture cut: the real totals", "head\n[... 10485000 bytes omitted ...]\ntail\n", CommandLimits,
			Whole{Bytes: 10485760, Lines: 335, Cut: true}, "head\n[... 10485000 bytes omitted ...]\ntail\n", "",
			"The whole output (10485760 bytes, 335 lines) is in F:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Cut(tc.in, tc.limits, tc.whole, "F")
			if tc.marker == "" {
				if got != tc.in {
					t.Fatalf("Cut changed a short output: %q", got)
				}
				return
			}
			if n := strings.Count(got, "[WARNING"); n != 1 || strings.Contains(got, "lines omitted") {
				t.Fatalf("want exactly one marker, got %d:\n%s", n, got)
			}
			i, j := strings.Index(got, "[WARNING"), strings.Index(got, "]")
			for j >= 0 && j < i {
				j = strings.Index(got[j+1:], "]") + j + 1
			}
			before, marker, after := strings.TrimSuffix(got[:i], "\n\n"), got[i:j+1], strings.TrimPrefix(got[j+1:], "\n\n")
			if before != tc.before || after != tc.after || !strings.Contains(marker, tc.marker) {
				t.Errorf("Cut =\n%q\nwant before %q, after %q, a marker with %q", got, tc.before, tc.after, tc.marker)
			}
		})
	}
}

// TestCutKeepsWithinLimits: whatever the output, what the model sees
// (outside the marker) stays within the limits.
func TestCutKeepsWithinLimits(t *testing.T) {
	in := strings.Repeat(strings.Repeat("é", 300)+"\n", 500)
	for _, mode := range []string{HeadTail, Head, Tail} {
		l := Limits{MaxChars: 1000, MaxLines: 7, Mode: mode}
		got := Cut(in, l, wholeOf(in), "F")
		i := strings.Index(got, "[WARNING")
		j := strings.Index(got, "more targeted parameters.]") + len("more targeted parameters.]")
		shown := got[:i] + got[j:]
		if n := len([]rune(shown)); n > l.MaxChars+4 {
			t.Errorf("%s: %d characters shown", mode, n)
		}
		if n := strings.Count(shown, "\n"); n > l.MaxLines+4 {
			t.Errorf("%s: %d lines shown", mode, n)
		}
	}
}

// BenchmarkCut: cutting a 1 MB, 20k-line output to the command defaults.
func BenchmarkCut(b *testing.B) {
	in := strings.Repeat(strings.Repeat("x", 49)+"\n", 20000)
	whole := wholeOf(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Cut(in, CommandLimits, whole, "F")
	}
}
