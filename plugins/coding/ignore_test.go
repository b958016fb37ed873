package coding

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestIgnoreRules: gitignore(5)'s rules as the matcher reads them.
func TestIgnoreRules(t *testing.T) {
	rules := parseIgnore("/w", []string{
		"# comment", "", "node_modules/", "*.log", "!keep.log", "/top.txt", "docs/*.html",
		"build", "[abc].tmp", `\#hash`, "a/**/z", "{x,y}.txt",
	})
	tests := []struct {
		path  string
		dir   bool
		want  bool
		about string
	}{
		{"/w/node_modules", true, true, "a directory pattern matches a directory"},
		{"/w/sub/node_modules", true, true, "a name without a slash matches at any depth"},
		{"/w/node_modules", false, false, "a directory pattern does not match a file"},
		{"/w/x/err.log", false, true, "wildcards"},
		{"/w/keep.log", false, false, "a later ! re-includes"},
		{"/w/top.txt", false, true, "a leading slash anchors to the file's directory"},
		{"/w/sub/top.txt", false, false, "an anchored pattern does not match deeper"},
		{"/w/docs/a.html", false, true, "a middle slash anchors"},
		{"/w/x/docs/a.html", false, false, "a middle slash anchors, not at any depth"},
		{"/w/build", false, true, "a plain name matches a file too"},
		{"/w/b.tmp", false, true, "character classes"},
		{"/w/d.tmp", false, false, "outside the class"},
		{"/w/#hash", false, true, "an escaped #"},
		{"/w/a/b/c/z", false, true, "** spans directories"},
		{"/w/{x,y}.txt", false, true, "braces are literal in gitignore"},
		{"/w/x.txt", false, false, "braces are not alternatives in gitignore"},
		{"/other/err.log", false, false, "a rule applies below its own directory only"},
	}
	for _, tt := range tests {
		if got := ignored(rules, tt.path, tt.dir); got != tt.want {
			t.Errorf("ignored(%s, dir %t) = %t, want %t (%s)", tt.path, tt.dir, got, tt.want, tt.about)
		}
	}
}

// ignoredRepo is a repository whose .gitignore lists node_modules/ and
// build/, with a nested .gitignore, a .ignore and .git/info/exclude.
func ignoredRepo(t *testing.T) string {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".gitignore":              "node_modules/\nbuild/\n*.log\n",
		".git/info/exclude":       "secret-notes.txt\n",
		".git/config":             "needle in git\n",
		"src/.gitignore":          "gen/\n!keep.log\n",
		"src/.ignore":             "vendor.js\n",
		"src/app.js":              "needle app\n",
		"src/keep.log":            "needle kept\n",
		"src/trace.log":           "needle trace\n",
		"src/gen/out.js":          "needle generated\n",
		"src/vendor.js":           "needle vendored\n",
		"node_modules/pkg/ix.js":  "needle module\n",
		"build/out.js":            "needle built\n",
		"debug.log":               "needle log\n",
		"secret-notes.txt":        "needle excluded\n",
		"lib/{a,b}/x.js":          "",
		"lib/a/y.ts":              "",
		"lib/b/z.ts":              "",
		"lib/node_modules/q/r.js": "needle nested module\n",
	})
	return ws
}

// TestSearchSkipsIgnored: glob and grep (in Go and with rg when it is
// installed) do not list what the ignore files exclude, and do with
// include_ignored.
func TestSearchSkipsIgnored(t *testing.T) {
	ws := ignoredRepo(t)
	want := "src/app.js:1:needle app\nsrc/keep.log:1:needle kept\n"
	all := []string{"build/out.js", "debug.log", "lib/node_modules/q/r.js", "node_modules/pkg/ix.js",
		"secret-notes.txt", "src/app.js", "src/gen/out.js", "src/keep.log", "src/trace.log", "src/vendor.js"}
	greps := map[string]*Tools{"go": {Config: Config{NoRipgrep: true}}}
	if _, err := exec.LookPath("rg"); err == nil {
		greps["rg"] = &Tools{}
	} else {
		t.Log("rg is not installed: grep is tested with its Go search only")
	}
	for name, tools := range greps {
		if got := call(t, tools, ws, "grep", `{"pattern":"needle"}`).Output; got != want {
			t.Errorf("%s grep(needle) = %q, want %q", name, got, want)
		}
		got := call(t, tools, ws, "grep", `{"pattern":"needle","include_ignored":true,"output_mode":"files_with_matches"}`).Output
		if diff := cmp.Diff(all, strings.Fields(got)); diff != "" {
			t.Errorf("%s grep(include_ignored) files (-want +got):\n%s", name, diff)
		}
	}
	if got, want := sortedCopy(strings.Fields(call(t, &Tools{}, ws, "glob", `{"pattern":"**/*.js"}`).Output)), []string{"lib/{a,b}/x.js", "src/app.js"}; !slices.Equal(got, want) {
		t.Errorf("glob(**/*.js) = %q, want %q", got, want)
	}
	got := call(t, &Tools{}, ws, "glob", `{"pattern":"**/*.js","include_ignored":true}`).Output
	if !strings.Contains(got, "node_modules/pkg/ix.js") || !strings.Contains(got, "build/out.js") {
		t.Errorf("glob(**/*.js, include_ignored) = %q, want node_modules and build listed", got)
	}
	sub := call(t, &Tools{}, filepath.Join(ws, "src"), "glob", `{"pattern":"*.{js,log}"}`).Output
	if sub != "app.js\nkeep.log\n" && sub != "keep.log\napp.js\n" {
		t.Errorf("glob(*) in src = %q, want app.js and keep.log (the repository's rules apply in a subdirectory)", sub)
	}
}

// TestGlobSyntax: doublestar's alternatives and classes.
func TestGlobSyntax(t *testing.T) {
	ws := ignoredRepo(t)
	tests := []struct{ pattern, want string }{
		{"lib/{a,b}/*.ts", "lib/a/y.ts lib/b/z.ts"},
		{"lib/[a]/*", "lib/a/y.ts"},
		{"**/*.{ts,js}", "lib/a/y.ts lib/b/z.ts lib/{a,b}/x.js src/app.js"},
		{`lib/\{a,b\}/*`, "lib/{a,b}/x.js"},
	}
	for _, tt := range tests {
		got := strings.Fields(call(t, &Tools{}, ws, "glob", `{"pattern":`+quote(tt.pattern)+`}`).Output)
		if diff := cmp.Diff(strings.Fields(tt.want), sortedCopy(got)); diff != "" {
			t.Errorf("glob(%s) (-want +got):\n%s", tt.pattern, diff)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestResultOrder: glob lists files newest first (gemini-cli: the last
// day's newest first, then the rest by path); Claude Code's grep lists
// matching files newest first, the others by path.
func TestResultOrder(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "x\n", "b.txt": "x\n", "c.txt": "x\n", "d.txt": "x\n"})
	now := time.Now()
	for name, age := range map[string]time.Duration{"a.txt": 72 * time.Hour, "b.txt": 48 * time.Hour, "c.txt": time.Hour, "d.txt": 2 * time.Hour} {
		mt := now.Add(-age)
		if err := os.Chtimes(filepath.Join(ws, name), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ profile, tool, args, want string }{
		{"anthropic", "glob", `{"pattern":"*.txt"}`, "c.txt\nd.txt\nb.txt\na.txt\n"},
		{"gemini", "glob", `{"pattern":"*.txt"}`, "c.txt\nd.txt\na.txt\nb.txt\n"},
		{"anthropic", "grep", `{"pattern":"x"}`, "c.txt\nd.txt\nb.txt\na.txt\n"},
		{"gemini", "search_file_content", `{"pattern":"x"}`, "a.txt:1:x\nb.txt:1:x\nc.txt:1:x\nd.txt:1:x\n"},
	}
	for _, tt := range tests {
		if got := call(t, configured(t, tt.profile), ws, tt.tool, tt.args).Output; got != tt.want {
			t.Errorf("%s %s(%s) = %q, want %q", tt.profile, tt.tool, tt.args, got, tt.want)
		}
	}
}
