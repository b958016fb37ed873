package tool

import (
	"encoding/json"
	"slices"
	"strings"
)

// pathKeys are the argument names that hold a file or directory, across
// the tool sets models are trained with (path, file_path, paths …).
var pathKeys = []string{"path", "file", "filename", "file_path", "filepath", "absolute_path", "notebook_path", "paths", "files",
	"dir", "directory", "dir_path", "target", "source", "src", "dest", "destination", "dst"}

// patchKeys are the argument names of a patch in the apply_patch format
// (codex's input, the coding plugin's patch).
var patchKeys = []string{"patch", "input"}

// patchHeaders start the lines of a patch that name a file.
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// ArgPaths lists the files and directories a tool call's arguments name,
// in the order of pathKeys and without repeats: string and string-array
// values of those keys, and the files an apply_patch patch adds, updates,
// deletes or moves to. They are given as the model wrote them. nil when
// the arguments are not a JSON object or name none.
func ArgPaths(args json.RawMessage) []string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var out []string
	add := func(p string) {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, k := range pathKeys {
		switch v := m[k].(type) {
		case string:
			add(v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					add(s)
				}
			}
		}
	}
	for _, k := range patchKeys {
		if s, ok := m[k].(string); ok && strings.Contains(s, "*** Begin Patch") {
			for _, line := range strings.Split(s, "\n") {
				for _, h := range patchHeaders {
					if p, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), h); ok {
						add(p)
					}
				}
			}
		}
	}
	return out
}
