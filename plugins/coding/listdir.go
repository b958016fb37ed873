package coding

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	defaultListDepth = 1
	defaultListLimit = 500
	maxReadManyFiles = 200
)

// listDirTool lists a directory's entries to a depth, one per line,
// indented by level; directories end in "/" and symbolic links in "@".
// The SkippedDirs are listed but not entered.
func listDirTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		Path  string `json:"path"`
		Depth int    `json:"depth"`
		Limit int    `json:"limit"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		a.Path = "."
	}
	if a.Depth <= 0 {
		a.Depth = defaultListDepth
	}
	if a.Limit <= 0 {
		a.Limit = defaultListLimit
	}
	dir, err := t.resolve(ws, a.Path)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("path not found or not a directory: %s", a.Path)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s/\n", strings.TrimSuffix(display(ws, dir), "/"))
	n, more := 0, false
	var walk func(dir string, level int) error
	walk = func(dir string, level int) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			fmt.Fprintf(&b, "%s[unreadable: %v]\n", strings.Repeat("  ", level), err)
			return nil
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if n == a.Limit {
				more = true
				return nil
			}
			n++
			suffix := ""
			switch {
			case e.IsDir():
				suffix = "/"
			case e.Type()&fs.ModeSymlink != 0:
				suffix = "@"
			}
			fmt.Fprintf(&b, "%s%s%s\n", strings.Repeat("  ", level), e.Name(), suffix)
			if e.IsDir() && level < a.Depth && !skipDir(e.Name()) {
				if err := walk(filepath.Join(dir, e.Name()), level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(dir, 1); err != nil {
		return "", err
	}
	if n == 0 {
		b.WriteString("  (empty directory)\n")
	}
	if more {
		fmt.Fprintf(&b, "[listing stopped at %d entries; list a subdirectory, lower depth or raise limit]\n", a.Limit)
	}
	return b.String(), nil
}

// readManyFilesTool reads files named by paths, directories (recursively)
// and glob patterns, each after a "--- path ---" header; binary files are
// named and skipped.
func readManyFilesTool(ctx context.Context, t *Tools, ws string, raw json.RawMessage) (string, error) {
	var a struct {
		Paths []string `json:"paths"`
	}
	if err := decode(raw, &a); err != nil {
		return "", err
	}
	if len(a.Paths) == 0 {
		return "", fmt.Errorf("%w: paths is empty", ErrArguments)
	}
	files, problems, err := t.manyFiles(ctx, ws, a.Paths)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	read := 0
	for i, f := range files {
		if i == maxReadManyFiles {
			fmt.Fprintf(&b, "[%d more files not read; name fewer files]\n", len(files)-i)
			break
		}
		saw(ctx, f)
		data, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, fileError(display(ws, f), err).Error())
			continue
		}
		if strings.IndexByte(string(data[:min(len(data), 8000)]), 0) >= 0 {
			problems = append(problems, fmt.Sprintf("skipped binary file %s", display(ws, f)))
			continue
		}
		fmt.Fprintf(&b, "--- %s ---\n%s", display(ws, f), data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		read++
	}
	if read == 0 && len(problems) > 0 {
		return "", fmt.Errorf("no file read: %s", strings.Join(problems, "; "))
	}
	if len(problems) > 0 {
		fmt.Fprintf(&b, "--- (not read) ---\n%s\n", strings.Join(problems, "\n"))
	}
	return b.String(), nil
}

// manyFiles is the files read_many_files reads for paths, once each in
// the order named: a glob's matches and a directory's files sorted, and
// what could not be found as problems to report beside the files read.
func (t *Tools) manyFiles(ctx context.Context, ws string, paths []string) (files, problems []string, err error) {
	seen := map[string]bool{}
	add := func(found ...string) {
		for _, p := range found {
			if !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
		}
	}
	for _, p := range paths {
		if strings.ContainsAny(p, "*?[") {
			found, err := t.globFiles(ctx, ws, p)
			if err != nil {
				return nil, nil, err
			}
			if len(found) == 0 {
				problems = append(problems, fmt.Sprintf("no file matches %s", p))
			}
			add(found...)
			continue
		}
		abs, err := t.resolve(ws, p)
		if err != nil {
			return nil, nil, err
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			problems = append(problems, fileError(p, err).Error())
		case st.IsDir():
			found, err := Glob(ctx, abs, "**", false)
			if err != nil {
				return nil, nil, err
			}
			sort.Strings(found)
			add(found...)
		default:
			add(abs)
		}
	}
	return files, problems, nil
}

// globFiles is the files matching the glob p, sorted.
func (t *Tools) globFiles(ctx context.Context, ws, p string) ([]string, error) {
	dir, pattern, err := splitGlobBase(".", p)
	if err != nil {
		return nil, err
	}
	base, err := t.resolve(ws, dir)
	if err != nil {
		return nil, err
	}
	found, err := Glob(ctx, base, pattern, false)
	if err != nil {
		return nil, err
	}
	sort.Strings(found)
	return found, nil
}
