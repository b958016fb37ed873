package coding

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// IgnoreFiles are the per-directory files whose patterns grep, glob and
// read_many_files honour, as ripgrep does: Git's .gitignore and the
// .ignore of ripgrep and other search tools, a deeper file's patterns
// overriding a shallower one's. The repository's .git/info/exclude
// applies below them all.
var IgnoreFiles = []string{".gitignore", ".ignore"}

// ignoreRule is one line of an ignore file, as a doublestar pattern
// relative to the directory of the file it came from.
type ignoreRule struct {
	base    string // the ignore file's directory (absolute)
	pattern string
	negate  bool // "!pattern": re-includes what an earlier rule excluded
	dirOnly bool // "pattern/": matches directories only
}

// parseIgnore turns the lines of an ignore file in dir into rules, after
// gitignore(5): blank lines and #comments are skipped, a trailing space
// is kept only when escaped, a pattern with a slash before its end is
// anchored to dir, one without matches a name at any depth. The matching
// itself is doublestar's (*, **, ?, [classes]); gitignore has no {a,b},
// so braces are taken literally.
func parseIgnore(dir string, lines []string) []ignoreRule {
	var rules []ignoreRule
	for _, line := range lines {
		line = strings.TrimRight(line, "\r")
		if !strings.HasSuffix(line, `\ `) {
			line = strings.TrimRight(line, " \t")
		}
		if line == "" || line[0] == '#' {
			continue
		}
		r := ignoreRule{base: dir}
		if line[0] == '!' {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			line = strings.TrimPrefix(line, "/")
		} else {
			line = "**/" + line
		}
		r.pattern = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
		if !doublestar.ValidatePattern(r.pattern) {
			continue // git ignores a line it cannot parse, so do we
		}
		rules = append(rules, r)
	}
	return rules
}

// readIgnore reads the rules of the ignore file path (none when it is
// missing or unreadable), anchored to dir.
func readIgnore(dir, path string) []ignoreRule {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return parseIgnore(dir, lines)
}

// ignored reports whether rules exclude p: the last rule that matches
// decides, as in Git.
func ignored(rules []ignoreRule, p string, isDir bool) bool {
	out := false
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		rel, err := filepath.Rel(r.base, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if ok, _ := doublestar.Match(r.pattern, filepath.ToSlash(rel)); ok {
			out = !r.negate
		}
	}
	return out
}

// dirRules are the rules in force in dir given its parent's: the
// parent's, then those of dir's own ignore files.
func dirRules(parent []ignoreRule, dir string) []ignoreRule {
	rules := slices.Clip(parent)
	for _, name := range IgnoreFiles {
		rules = append(rules, readIgnore(dir, filepath.Join(dir, name))...)
	}
	return rules
}

// outerRules are the rules in force at root from outside it: the
// repository's .git/info/exclude and the ignore files of root's parents
// up to the top of the repository it is in (none when it is in none),
// so that a search in a subdirectory skips what the repository ignores.
func outerRules(root string) []ignoreRule {
	isRepo := func(d string) bool {
		_, err := os.Lstat(filepath.Join(d, ".git"))
		return err == nil
	}
	var parents []string // root's parents up to the top, innermost first
	top := ""
	if isRepo(root) {
		top = root
	} else {
		for d := filepath.Dir(root); top == ""; d = filepath.Dir(d) {
			parents = append(parents, d)
			if isRepo(d) {
				top = d
			} else if filepath.Dir(d) == d {
				return nil
			}
		}
	}
	rules := readIgnore(top, filepath.Join(top, ".git", "info", "exclude"))
	for i := len(parents) - 1; i >= 0; i-- {
		rules = dirRules(rules, parents[i])
	}
	return rules
}

// walkFiles calls fn for every regular file under root in lexical order,
// skipping the SkippedDirs below root and, unless includeIgnored, what
// the ignore files exclude (an excluded directory is not entered, as in
// Git). Unreadable entries are skipped. fn may return filepath.SkipAll.
func walkFiles(ctx context.Context, root string, includeIgnored bool, fn func(p string, d fs.DirEntry) error) error {
	rules := map[string][]ignoreRule{}
	if !includeIgnored {
		rules[filepath.Dir(root)] = outerRules(root)
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != root {
			if d.IsDir() && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if !includeIgnored && ignored(rules[filepath.Dir(p)], p, d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			if !includeIgnored {
				rules[p] = dirRules(rules[filepath.Dir(p)], p)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return fn(p, d)
	})
}
