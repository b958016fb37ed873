package board

import (
	"path"
	"strings"
	"testing"
)

// FuzzParseChannel: any bytes (a damaged or hand-edited channel.jsonl)
// give entries or an error, never a panic, and the entries of a file
// with a torn tail are those of its complete lines.
func FuzzParseChannel(f *testing.F) {
	f.Add([]byte(`{"seq":1,"timestamp":"2025-01-15T10:00:00Z","from":"system","message":"hi","mentions":[]}` + "\n"))
	f.Add([]byte(`{"seq":1,"from":"a","message":"@b x","mentions":["b"]}` + "\n" + `{"seq":2,"from":"b"`))
	f.Add([]byte("\n\n{}\nnot json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseChannel(data)
		if err != nil {
			return
		}
		i := strings.LastIndexByte(string(data), '\n')
		complete, cerr := ParseChannel(data[:i+1])
		if cerr != nil || len(complete) != len(entries) {
			t.Errorf("ParseChannel(%q) = %d entries, its complete lines %d (%v)", data, len(entries), len(complete), cerr)
		}
	})
}

// FuzzCleanDocPath: an accepted document path is clean, relative, inside
// the documents folder and has no hidden part.
func FuzzCleanDocPath(f *testing.F) {
	for _, s := range []string{"notes.md", "findings/auth.md", "../x", "/etc/passwd", "a/../../b", "./a//b/", ".git/config", "a/.b", `a\..\b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file string) {
		clean, err := cleanDocPath(file)
		if err != nil {
			return
		}
		if clean != path.Clean(clean) || path.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") ||
			strings.Contains(clean, `\`) || strings.HasPrefix(clean, ".") || strings.Contains(clean, "/.") {
			t.Errorf("cleanDocPath(%q) = %q, accepted", file, clean)
		}
	})
}

// FuzzMentions: every mention returned is a known agent that appears
// after an @ in the message, once.
func FuzzMentions(f *testing.F) {
	f.Add("@coder please @reviewer @coder")
	f.Add("mail a@b.c @@x @-y")
	agents := []string{"coder", "reviewer", "b", "x"}
	f.Fuzz(func(t *testing.T, msg string) {
		seen := map[string]bool{}
		for _, m := range Mentions(msg, agents) {
			if seen[m] || !strings.Contains(msg, "@"+m) {
				t.Errorf("Mentions(%q) gave %q", msg, m)
			}
			seen[m] = true
		}
	})
}
