package coding

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// SkippedDirs are the directories grep and glob do not descend into unless
// the search starts inside them: Git's and Delta's own control planes (the
// run's journal and I/O records under .delta, session state under
// .sessions), which would otherwise answer every search with the agent's
// own earlier tool calls. ripgrep skips them as hidden directories.
var SkippedDirs = []string{".git", ".delta", ".sessions"}

func skipDir(name string) bool {
	for _, s := range SkippedDirs {
		if name == s {
			return true
		}
	}
	return false
}

// ErrPattern is wrapped for an invalid regex or glob pattern.
var ErrPattern = errors.New("invalid pattern")

const defaultMaxResults = 100

// GrepOptions is one grep call, paths already resolved.
type GrepOptions struct {
	Pattern         string
	Root            string // file or directory searched
	Glob            string // file name (or relative path) filter
	CaseInsensitive bool
	MaxResults      int
	// IncludeIgnored searches what the IgnoreFiles exclude too.
	IncludeIgnored bool
}

// Match is one matching line.
type Match struct {
	Path string // absolute
	Line int
	Text string
}

func grepTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		Pattern         string `json:"pattern"`
		Path            string `json:"path"`
		GlobFilter      string `json:"glob_filter"`
		CaseInsensitive bool   `json:"case_insensitive"`
		MaxResults      int    `json:"max_results"`
		OutputMode      string `json:"output_mode"`
		IncludeIgnored  bool   `json:"include_ignored"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	switch a.OutputMode {
	case "":
		a.OutputMode = ModeContent
	case ModeContent, ModeFiles, ModeCount:
	default:
		return "", fmt.Errorf("%w: output_mode must be %s, %s or %s, not %q", ErrArguments, ModeContent, ModeFiles, ModeCount, a.OutputMode)
	}
	if a.Path == "" {
		a.Path = "."
	}
	root, err := t.resolve(ws, a.Path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(root); err != nil {
		return "", fmt.Errorf("path not found: %s", a.Path)
	}
	opts := GrepOptions{Pattern: a.Pattern, Root: root, Glob: a.GlobFilter, CaseInsensitive: a.CaseInsensitive, MaxResults: a.MaxResults, IncludeIgnored: a.IncludeIgnored}
	if opts.MaxResults <= 0 {
		opts.MaxResults = defaultMaxResults
	}
	limit := opts.MaxResults
	if a.OutputMode != ModeContent {
		// Files and counts need every matching line, within reason.
		opts.MaxResults = maxCountedMatches
	}
	var matches []Match
	var more bool
	if rg, err := exec.LookPath("rg"); err == nil && !t.Config.NoRipgrep {
		matches, more, err = GrepRipgrep(ctx, rg, opts)
		if err != nil {
			return "", err
		}
	} else {
		matches, more, err = GrepGo(ctx, opts)
		if err != nil {
			return "", err
		}
	}
	if len(matches) == 0 {
		return "No matches found.", nil
	}
	if a.OutputMode != ModeContent {
		return perFile(ws, matches, a.OutputMode, limit, more, t.Config.Profile == ProfileAnthropic), nil
	}
	var b strings.Builder
	for _, m := range matches {
		fmt.Fprintf(&b, "%s:%d:%s\n", display(ws, m.Path), m.Line, m.Text)
	}
	if more {
		fmt.Fprintf(&b, "[results limited to %d matches; narrow the pattern, path or glob_filter, or raise max_results]\n", opts.MaxResults)
	}
	return b.String(), nil
}

// grep's output modes.
const (
	ModeContent = "content"            // matching lines as path:line:text
	ModeFiles   = "files_with_matches" // the matching files' paths
	ModeCount   = "count"              // path:count per matching file
)

// maxCountedMatches bounds the lines files_with_matches and count look at.
const maxCountedMatches = 100_000

// perFile is grep's answer in the files_with_matches and count modes: the
// matching files in path order (newestFirst: files_with_matches newest
// first, as Claude Code's grep lists them), at most limit of them; more
// says the search stopped at maxCountedMatches lines.
func perFile(ws string, matches []Match, mode string, limit int, more, newestFirst bool) string {
	var files []string
	count := map[string]int{}
	for _, m := range matches {
		if count[m.Path] == 0 {
			files = append(files, m.Path)
		}
		count[m.Path]++
	}
	if newestFirst && mode == ModeFiles {
		byModTime(files)
	}
	var b strings.Builder
	for i, f := range files {
		if i == limit {
			fmt.Fprintf(&b, "[%d more files; narrow the pattern, path or glob filter, or raise the limit]\n", len(files)-limit)
			break
		}
		if mode == ModeCount {
			fmt.Fprintf(&b, "%s:%d\n", display(ws, f), count[f])
		} else {
			b.WriteString(display(ws, f) + "\n")
		}
	}
	if more {
		fmt.Fprintf(&b, "[the search stopped after %d matching lines]\n", maxCountedMatches)
	}
	return b.String()
}

// GrepGo searches in Go: files under Root in lexical order, skipping the
// SkippedDirs below Root, what the IgnoreFiles exclude (unless
// IncludeIgnored) and binary files, at most MaxResults matches; more
// reports that there were more.
func GrepGo(ctx context.Context, o GrepOptions) (matches []Match, more bool, err error) {
	expr := o.Pattern
	if o.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrPattern, err)
	}
	if o.Glob != "" && !doublestar.ValidatePattern(o.Glob) {
		return nil, false, fmt.Errorf("%w: glob_filter %q is not a valid glob", ErrPattern, o.Glob)
	}
	err = walkFiles(ctx, o.Root, o.IncludeIgnored, func(p string, _ fs.DirEntry) error {
		if !globFilter(o.Glob, o.Root, p) {
			return nil
		}
		found, stop, err := grepFile(p, re, o.MaxResults-len(matches))
		if err != nil {
			return nil
		}
		matches = append(matches, found...)
		if stop {
			more = true
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return matches, more, nil
}

// globFilter reports whether file p (under root) passes glob: a pattern
// without "/" matches the base name, one with "/" the relative path.
func globFilter(glob, root, p string) bool {
	if glob == "" {
		return true
	}
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, filepath.Base(p))
		return ok
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	ok, _ := doublestar.Match(strings.TrimPrefix(glob, "./"), filepath.ToSlash(rel))
	return ok
}

// grepFile returns up to max matches in file p; stop is set when the file
// had more matches than max.
func grepFile(p string, re *regexp.Regexp, max int) ([]Match, bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	head := make([]byte, 8000)
	n, _ := f.Read(head)
	if bytes.IndexByte(head[:n], 0) >= 0 {
		return nil, false, nil // binary
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, false, err
	}
	var out []Match
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if re.Match(sc.Bytes()) {
			if len(out) == max {
				return out, true, nil
			}
			out = append(out, Match{Path: p, Line: line, Text: sc.Text()})
		}
	}
	return out, false, nil
}

// GrepRipgrep searches with ripgrep, which also skips hidden files and,
// unless IncludeIgnored, what the IgnoreFiles and .git/info/exclude
// exclude (in a directory that is no Git repository too, as GrepGo does;
// never what the user's global Git excludes file says, which GrepGo
// does not read). The SkippedDirs are excluded explicitly too (so that
// an rg config with --hidden does not bring them back; --no-config keeps
// the user's config out altogether); rg never filters the root it is given,
// so an explicit path inside one of them is still searched.
func GrepRipgrep(ctx context.Context, rg string, o GrepOptions) ([]Match, bool, error) {
	args := []string{"--no-config", "--line-number", "--no-heading", "--with-filename", "--color", "never", "--null", "--sort", "path"}
	for _, d := range SkippedDirs {
		args = append(args, "--glob", "!"+d+"/")
	}
	if o.IncludeIgnored {
		args = append(args, "--no-ignore")
	} else {
		args = append(args, "--no-require-git", "--no-ignore-global")
	}
	if o.CaseInsensitive {
		args = append(args, "--ignore-case")
	}
	if o.Glob != "" {
		args = append(args, "--glob", o.Glob)
	}
	args = append(args, "--regexp", o.Pattern, "--", o.Root)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return nil, false, nil // no matches
	case errors.As(err, &exit) && exit.ExitCode() == 2 && stdout.Len() == 0:
		return nil, false, fmt.Errorf("%w: %s", ErrPattern, strings.TrimSpace(stderr.String()))
	case err != nil && stdout.Len() == 0:
		return nil, false, fmt.Errorf("run rg: %w", err)
	}
	var out []Match
	for _, l := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		file, rest, ok := strings.Cut(l, "\x00")
		if !ok {
			continue
		}
		num, text, _ := strings.Cut(rest, ":")
		var line int
		fmt.Sscan(num, &line)
		if len(out) == o.MaxResults {
			return out, true, nil
		}
		out = append(out, Match{Path: file, Line: line, Text: text})
	}
	return out, false, nil
}
