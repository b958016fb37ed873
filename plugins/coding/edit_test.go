package coding

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/plugins/sdk"
)

func TestEdit(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		old, new string
		all      bool
		want     EditResult
		wantErr  error
		mention  string
	}{
		{name: "unique", content: "a\nb\nc\n", old: "b", new: "B", want: EditResult{Content: "a\nB\nc\n", Replacements: 1}},
		{name: "multi-line", content: "func f() {\n\treturn 1\n}\n", old: "\treturn 1\n}", new: "\treturn 2\n}", want: EditResult{Content: "func f() {\n\treturn 2\n}\n", Replacements: 1}},
		{name: "replace all", content: "x x x", old: "x", new: "y", all: true, want: EditResult{Content: "y y y", Replacements: 3}},
		{name: "delete", content: "keep\ndrop\n", old: "drop\n", new: "", want: EditResult{Content: "keep\n", Replacements: 1}},
		{name: "not unique", content: "x\ny\nx\n", old: "x", new: "z", wantErr: ErrNotUnique, mention: "lines 1, 3"},
		{name: "not found shows closest line", content: "func main() {\n\tfmt.Println(\"hi\")\n}\n", old: "fmt.Printn(\"hi\")", new: "x", wantErr: ErrNotFound, mention: "closest line is 2"},
		{name: "not found at all", content: "abc\n", old: "zzzzzzzz", new: "x", wantErr: ErrNotFound, mention: "copy old_string exactly"},
		{name: "empty old", content: "abc", old: "", new: "x", wantErr: ErrEmptyOld},
		{name: "same", content: "abc", old: "a", new: "a", wantErr: ErrNoChange},
		{
			name: "fuzzy whitespace", content: "if x {\n\t\tcall(a,  b)\n}\n", old: "if x {\n    call(a, b)\n}", new: "if y {\n\tcall(b)\n}",
			want: EditResult{Content: "if y {\n\tcall(b)\n}\n", Replacements: 1, Fuzzy: true},
		},
		{
			name: "CRLF file, LF old_string", content: "alpha\r\nbeta\r\ngamma\r\n", old: "beta\ngamma", new: "B\nG",
			want: EditResult{Content: "alpha\r\nB\r\nG\r\n", Replacements: 1},
		},
		{
			name: "CRLF file, fuzzy", content: "alpha\r\n  beta\r\n  gamma", old: "beta\ngamma ", new: "B\nG",
			want: EditResult{Content: "alpha\r\n  B\r\n  G", Replacements: 1, Fuzzy: true},
		},
		{
			name: "NFD file, NFC old_string within a line", content: "x = \"cafe\u0301\" # drink\n", old: "caf\u00e9", new: "tea",
			want: EditResult{Content: "x = \"tea\" # drink\n", Replacements: 1, Fuzzy: true},
		},
		{
			name: "NFD lines, NFC old_string over two lines", content: "cafe\u0301\nnai\u0308ve\nend\n", old: "caf\u00e9\nna\u00efve", new: "x\ny",
			want: EditResult{Content: "x\ny\nend\n", Replacements: 1, Fuzzy: true},
		},
		{
			name: "fuzzy match re-indents new like old", content: "def f():\n    return 1\n", old: "      return 1", new: "      x = 1\n      return x",
			want: EditResult{Content: "def f():\n    x = 1\n    return x\n", Replacements: 1, Fuzzy: true},
		},
		{
			name: "invisible difference is spelled out", content: "total = price\u200b * qty\n", old: "total = price * qty", new: "x",
			wantErr: ErrNotFound, mention: `as code points the file has "total = price\u200b * qty", old_string has "total = price * qty"`,
		},
		{
			name: "fuzzy unicode quotes", content: "msg := \"it's\"\n", old: "msg := \"it’s\"", new: "msg := \"its\"",
			want: EditResult{Content: "msg := \"its\"\n", Replacements: 1, Fuzzy: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Edit(tt.content, tt.old, tt.new, tt.all)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Edit() error = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.mention) {
					t.Errorf("Edit() error = %q, want it to mention %q", err, tt.mention)
				}
				return
			}
			if err != nil {
				t.Fatalf("Edit() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Edit() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzEdit(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false)
	f.Add("x x", "x", "y", true)
	f.Add("  a\n\tb\n", "a\nb", "c", false)
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		res, err := Edit(content, old, new, all)
		if err != nil {
			return
		}
		if res.Replacements < 1 {
			t.Fatalf("Edit() succeeded with %d replacements", res.Replacements)
		}
		if !res.Fuzzy && !all && res.Content != strings.Replace(content, old, new, 1) {
			t.Fatalf("Edit() exact result differs from strings.Replace")
		}
	})
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("a", 60) + strings.Repeat("b", 60)
	got := TruncateChars(long, 100, sdk.HeadTail)
	if !strings.HasPrefix(got, strings.Repeat("a", 50)+"\n\n[WARNING: Tool output was truncated. 20 characters were removed from the middle.") ||
		!strings.HasSuffix(got, "]\n\n"+strings.Repeat("b", 50)) {
		t.Errorf("TruncateChars(head_tail) = %q", got)
	}
	got = TruncateChars(long, 100, sdk.Tail)
	if want := "[WARNING: Tool output was truncated. First 20 characters were removed. The full output is available in the event stream.]\n\n" + long[20:]; got != want {
		t.Errorf("TruncateChars(tail) = %q, want %q", got, want)
	}
	if got := TruncateChars("short", 100, sdk.Tail); got != "short" {
		t.Errorf("TruncateChars(short) = %q", got)
	}
	lines := strings.TrimSuffix(strings.Repeat("l\n", 10), "\n")
	if got, want := TruncateLines(lines, 4), "l\nl\n[... 6 lines omitted ...]\nl\nl"; got != want {
		t.Errorf("TruncateLines() = %q, want %q", got, want)
	}
}
