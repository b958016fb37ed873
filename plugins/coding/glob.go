package coding

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

func globTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		Pattern        string `json:"pattern"`
		Path           string `json:"path"`
		IncludeIgnored bool   `json:"include_ignored"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		a.Path = "."
	}
	dir, pattern, err := splitGlobBase(a.Path, a.Pattern)
	if err != nil {
		return "", err
	}
	base, err := t.resolve(ws, dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return "", fmt.Errorf("path not found or not a directory: %s", dir)
	}
	files, err := t.glob(ctx, base, pattern, a.IncludeIgnored)
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "No files found.", nil
	}
	var b strings.Builder
	for _, f := range files {
		b.WriteString(display(ws, f) + "\n")
	}
	return b.String(), nil
}

// fileHit is a file glob found, with its modification time.
type fileHit struct {
	path string
	mod  time.Time
}

// Glob returns the files under base matching pattern, newest first, then
// by name. The pattern is doublestar's: "**" matches any number of
// directories, {a,b} either alternative, [a-z] and [!a-z] one character
// of a class. The SkippedDirs below base are not searched, nor (unless
// includeIgnored) what the IgnoreFiles exclude.
func Glob(ctx context.Context, base, pattern string, includeIgnored bool) ([]string, error) {
	return (&Tools{}).glob(ctx, base, pattern, includeIgnored)
}

// glob is Glob in the order of the configured profile's tool (globOrder).
func (t *Tools) glob(ctx context.Context, base, pattern string, includeIgnored bool) ([]string, error) {
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	if pattern == "" {
		return nil, fmt.Errorf("%w: empty glob", ErrPattern)
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("%w: %q is not a valid glob (check its brackets and braces)", ErrPattern, pattern)
	}
	var hits []fileHit
	err := walkFiles(ctx, base, includeIgnored, func(p string, d fs.DirEntry) error {
		rel, _ := filepath.Rel(base, p)
		if ok, _ := doublestar.Match(pattern, filepath.ToSlash(rel)); !ok {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		hits = append(hits, fileHit{p, info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.globOrder(hits, time.Now())
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.path
	}
	return out, nil
}

// splitGlobBase moves a glob pattern's leading literal directories (an
// absolute "/etc/*", a "../*") into the base directory, so that the base
// goes through the workspace check like every other path instead of the
// walk silently finding nothing. ".." after a wildcard is refused.
func splitGlobBase(dir, pattern string) (string, string, error) {
	pattern = filepath.ToSlash(pattern)
	if strings.HasPrefix(pattern, "/") {
		dir, pattern = "/", strings.TrimLeft(pattern, "/")
	}
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs)-1 && !strings.ContainsAny(segs[i], "*?[{\\") {
		i++
	}
	for _, s := range segs[i:] {
		if s == ".." {
			return "", "", fmt.Errorf("%w: %q: \"..\" after a wildcard; set path to the directory instead", ErrPattern, pattern)
		}
	}
	if i > 0 {
		dir = filepath.Join(append([]string{dir}, segs[:i]...)...)
	}
	return dir, strings.Join(segs[i:], "/"), nil
}
