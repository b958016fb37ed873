package coding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/plugins/sdk"
)

// call runs tool name with args in workspace ws.
func call(t *testing.T, tools *Tools, ws, name, args string) sdk.CallResult {
	t.Helper()
	res, err := tools.Call(context.Background(), sdk.CallRequest{Name: name, Arguments: json.RawMessage(args), WorkDir: ws})
	if err != nil {
		t.Fatalf("Call(%s) error = %v", name, err)
	}
	return res
}

func writeFiles(t *testing.T, dir string, fs map[string]string) {
	t.Helper()
	for name, content := range fs {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSchemasAreValid(t *testing.T) {
	want := map[string][]string{
		"default":   {"read_file", "write_file", "edit_file", "apply_patch", "grep", "glob", "shell", "list_dir", "read_many_files"},
		"openai":    {"shell", "apply_patch", "read_file", "list_dir", "grep_files", "write_file", "glob"},
		"anthropic": {"shell", "read_file", "edit_file", "write_file", "glob", "grep"},
		"gemini":    {"read_file", "read_many_files", "write_file", "replace", "list_directory", "glob", "search_file_content", "run_shell_command"},
	}
	for _, p := range ProfileNames() {
		tools := &Tools{}
		if err := tools.Configure(context.Background(), json.RawMessage(`{"profile":"`+p+`"}`)); err != nil {
			t.Fatal(err)
		}
		list, _ := tools.Tools(context.Background())
		var names []string
		for _, tl := range list {
			var v struct {
				Type       string                    `json:"type"`
				Properties map[string]map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(tl.Parameters, &v); err != nil || v.Type != "object" {
				t.Errorf("%s: tool %s: schema %s is not a JSON object schema: %v", p, tl.Name, tl.Parameters, err)
			}
			// Every parameter of a profile is one its capability knows.
			d, _ := find(tools.profileTools(), tl.Name)
			for name := range v.Properties {
				if to, ok := d.Rename[name]; ok {
					name = to
				}
				if !canonicalParams[d.Runs][name] {
					t.Errorf("%s: tool %s: parameter %s is not one of %s's", p, tl.Name, name, d.Runs)
				}
			}
			names = append(names, tl.Name)
		}
		if diff := cmp.Diff(want[p], names); diff != "" {
			t.Errorf("%s: tool names (-want +got):\n%s", p, diff)
		}
	}
}

// canonicalParams are the parameters each capability decodes.
var canonicalParams = map[string]map[string]bool{
	"read_file":       {"file_path": true, "offset": true, "limit": true},
	"write_file":      {"file_path": true, "content": true},
	"edit_file":       {"file_path": true, "old_string": true, "new_string": true, "replace_all": true, "expected_replacements": true},
	"apply_patch":     {"patch": true},
	"grep":            {"pattern": true, "path": true, "glob_filter": true, "case_insensitive": true, "max_results": true, "output_mode": true, "include_ignored": true},
	"glob":            {"pattern": true, "path": true, "include_ignored": true},
	"shell":           {"command": true, "timeout_ms": true, "description": true, "workdir": true},
	"list_dir":        {"path": true, "depth": true, "limit": true},
	"read_many_files": {"paths": true},
}

func TestFileTools(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "one\ntwo\nthree\n", "bin.dat": "ab\x00cd"})
	tools := &Tools{}
	tests := []struct {
		name, tool, args string
		wantErr          bool
		want             string // output prefix
	}{
		{"read", "read_file", `{"file_path":"a.txt"}`, false, "1 | one\n2 | two\n3 | three\n"},
		{"read offset limit", "read_file", `{"file_path":"a.txt","offset":2,"limit":1}`, false, "2 | two\n[1 more lines; read on with offset 3]\n"},
		{"read absolute", "read_file", `{"file_path":"` + filepath.Join(ws, "a.txt") + `","offset":3}`, false, "3 | three\n"},
		{"read past end", "read_file", `{"file_path":"a.txt","offset":9}`, true, "error: invalid arguments: offset 9 is past the end"},
		{"read binary", "read_file", `{"file_path":"bin.dat"}`, true, "error: binary file (5 bytes)"},
		{"read missing", "read_file", `{"file_path":"nope.txt"}`, true, "error: file not found: nope.txt"},
		{"read outside", "read_file", `{"file_path":"../x"}`, true, "error: path is outside the workspace"},
		{"read directory", "read_file", `{"file_path":"."}`, true, "error: . is a directory"},
		{"bad json", "read_file", `{"file_path":1}`, true, "error: invalid arguments"},
		{"write", "write_file", `{"file_path":"d/e/f.txt","content":"hello\n"}`, false, "Wrote 6 bytes to d/e/f.txt"},
		{"write without content", "write_file", `{"file_path":"g.txt"}`, true, "error: invalid arguments: content is required"},
		{"edit", "edit_file", `{"file_path":"a.txt","old_string":"two","new_string":"2"}`, false, "Made 1 replacement(s) in a.txt"},
		{"edit not unique", "edit_file", `{"file_path":"a.txt","old_string":"e","new_string":"E"}`, true, "error: a.txt: old_string is not unique: it matches 3 locations (lines 1, 3)"},
		{"unknown tool", "nope", `{}`, true, `unknown tool "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tools, ws, tt.tool, tt.args)
			if res.IsError != tt.wantErr || !strings.HasPrefix(res.Output, tt.want) {
				t.Errorf("%s(%s) = %q (error %v), want prefix %q (error %v)", tt.tool, tt.args, res.Output, res.IsError, tt.want, tt.wantErr)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "d/e/f.txt")); string(data) != "hello\n" {
		t.Errorf("write_file wrote %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) != "one\n2\nthree\n" {
		t.Errorf("edit_file left %q", data)
	}
}

func TestOutsideWorkspace(t *testing.T) {
	ws, other := t.TempDir(), t.TempDir()
	writeFiles(t, other, map[string]string{"secret.txt": "s\n"})
	if err := os.Symlink(other, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	tools := &Tools{}
	for _, p := range []string{filepath.Join(other, "secret.txt"), "link/secret.txt", "../" + filepath.Base(other) + "/secret.txt"} {
		if res := call(t, tools, ws, "read_file", `{"file_path":"`+p+`"}`); !res.IsError || !strings.Contains(res.Output, "outside the workspace") {
			t.Errorf("read_file(%s) = %q, want refusal", p, res.Output)
		}
	}
	if res := call(t, tools, ws, "write_file", `{"file_path":"link/new.txt","content":"x"}`); !res.IsError {
		t.Errorf("write_file through a symlink out of the workspace = %q, want refusal", res.Output)
	}
	if err := tools.Configure(context.Background(), json.RawMessage(`{"allow_outside_workspace":true}`)); err != nil {
		t.Fatal(err)
	}
	if res := call(t, tools, ws, "read_file", `{"file_path":"`+filepath.Join(other, "secret.txt")+`"}`); res.IsError || res.Output != "1 | s\n" {
		t.Errorf("read_file with allow_outside_workspace = %q", res.Output)
	}
}

func TestApplyPatchTool(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"old.py": "import os\nimport sys\nimport old_dep\n", "gone.py": "x\n", "keep.py": "a\n"})
	patch := "*** Begin Patch\n*** Add File: pkg/new.py\n+print(1)\n*** Delete File: gone.py\n*** Update File: old.py\n*** Move to: moved/new.py\n@@ import os\n import sys\n-import old_dep\n+import new_dep\n*** End Patch\n"
	args, _ := json.Marshal(map[string]string{"patch": patch})
	tools := &Tools{}
	for _, f := range []string{"gone.py", "old.py"} { // a patch needs its files read first
		call(t, tools, ws, "read_file", `{"file_path":"`+f+`"}`)
	}
	res := call(t, tools, ws, "apply_patch", string(args))
	want := "Success. Updated the following files:\nA pkg/new.py\nD gone.py\nM old.py -> moved/new.py\n"
	if res.IsError || res.Output != want {
		t.Fatalf("apply_patch = %q, want %q", res.Output, want)
	}
	got := map[string]string{}
	filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(ws, p)
			got[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	wantFiles := map[string]string{"pkg/new.py": "print(1)\n", "moved/new.py": "import os\nimport sys\nimport new_dep\n", "keep.py": "a\n"}
	if diff := cmp.Diff(wantFiles, got); diff != "" {
		t.Errorf("workspace after apply_patch (-want +got):\n%s", diff)
	}
	// A failing hunk changes nothing, not even the files before it.
	bad, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Add File: x.py\n+x\n*** Update File: keep.py\n@@\n-zzz\n+y\n*** End Patch\n"})
	call(t, tools, ws, "read_file", `{"file_path":"keep.py"}`)
	if res := call(t, tools, ws, "apply_patch", string(bad)); !res.IsError || !strings.Contains(res.Output, "hunk 1 of keep.py") ||
		!strings.Contains(res.Output, "nothing was applied") {
		t.Errorf("apply_patch(bad) = %q", res.Output)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.py")); !os.IsNotExist(err) {
		t.Errorf("failed patch created x.py (err %v)", err)
	}
	// Add File over an existing file says so.
	over, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Add File: keep.py\n+b\n*** End Patch\n"})
	if res := call(t, tools, ws, "apply_patch", string(over)); res.IsError || res.Output != "Success. Updated the following files:\nA keep.py (replaced the existing file)\n" {
		t.Errorf("apply_patch(Add File over keep.py) = %q", res.Output)
	}
}

// A write that fails while the patch is being applied (here: a move into
// a path whose parent is a file, which fails even for root) leaves every
// file as it was, including those the patch names first.
func TestApplyPatchWriteFailureChangesNothing(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	patch, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n*** Move to: a.txt/b.txt\n@@\n-b\n+B\n*** End Patch\n"})
	res := call(t, &Tools{}, ws, "apply_patch", string(patch))
	if !res.IsError || !strings.Contains(res.Output, "nothing was applied") {
		t.Errorf("apply_patch = %q, want an error saying nothing was applied", res.Output)
	}
	for name, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n"} {
		if data, _ := os.ReadFile(filepath.Join(ws, name)); string(data) != want {
			t.Errorf("%s = %q after a failed patch, want %q", name, data, want)
		}
	}
	entries, _ := os.ReadDir(ws)
	if len(entries) != 2 {
		t.Errorf("workspace has %d entries after a failed patch, want the 2 files only", len(entries))
	}
}

func TestGrepGoFallback(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"a.go": "package a\n// TODO: one\n", "b/c.py": "x = 1\n# todo two\n", "b/d.go": "// TODO three\n",
		".git/config": "TODO git\n", "bin": "TODO\x00",
		".delta/r1/journal.jsonl": "TODO journal\n", ".sessions/s1/history.log": "TODO history\n",
		"sub/.delta/r2/journal.jsonl": "TODO nested journal\n",
	})
	tools := &Tools{Config: Config{NoRipgrep: true}}
	tests := []struct{ name, args, want string }{
		{"all", `{"pattern":"TODO"}`, "a.go:2:// TODO: one\nb/d.go:1:// TODO three\n"},
		{"case insensitive", `{"pattern":"todo","case_insensitive":true,"glob_filter":"*.py"}`, "b/c.py:2:# todo two\n"},
		{"path", `{"pattern":"TODO","path":"b"}`, "b/d.go:1:// TODO three\n"},
		{"max results", `{"pattern":"TODO","max_results":1}`, "a.go:2:// TODO: one\n[results limited to 1 matches; narrow the pattern, path or glob_filter, or raise max_results]\n"},
		{"none", `{"pattern":"nothing here"}`, "No matches found."},
		{"bad regex", `{"pattern":"("}`, "error: invalid pattern"},
		{"missing path", `{"pattern":"x","path":"nope"}`, "error: path not found: nope"},
		{"explicit path inside .delta", `{"pattern":"TODO","path":".delta"}`, ".delta/r1/journal.jsonl:1:TODO journal\n"},
		{"explicit path inside .sessions", `{"pattern":"TODO","path":".sessions/s1"}`, ".sessions/s1/history.log:1:TODO history\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tools, ws, "grep", tt.args)
			if tt.name == "all" && res.Output != tt.want {
				t.Errorf("grep(%s) = %q, want exactly %q (.git, .delta and .sessions skipped)", tt.args, res.Output, tt.want)
			}
			if !strings.HasPrefix(res.Output, tt.want) {
				t.Errorf("grep(%s) = %q, want %q", tt.args, res.Output, tt.want)
			}
		})
	}
}

func TestGlob(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.ts": "", "src/b.ts": "", "src/deep/c.ts": "", "src/d.js": "", ".git/e.ts": "",
		".delta/r1/f.ts": "", ".sessions/s1/g.ts": ""})
	now := time.Now()
	for i, name := range []string{"a.ts", "src/b.ts", "src/deep/c.ts"} { // c newest
		mt := now.Add(time.Duration(i) * time.Minute)
		os.Chtimes(filepath.Join(ws, name), mt, mt)
	}
	tests := []struct{ name, args, want string }{
		{"double star newest first", `{"pattern":"**/*.ts"}`, "src/deep/c.ts\nsrc/b.ts\na.ts\n"},
		{"one level", `{"pattern":"src/*.ts"}`, "src/b.ts\n"},
		{"base path", `{"pattern":"**/*.js","path":"src"}`, "src/d.js\n"},
		{"none", `{"pattern":"*.rs"}`, "No files found."},
		{"bad pattern", `{"pattern":"[a"}`, "error: invalid pattern"},
		{"explicit path inside .delta", `{"pattern":"**/*.ts","path":".delta"}`, ".delta/r1/f.ts\n"},
		{"pattern inside .sessions", `{"pattern":".sessions/*/*.ts"}`, ".sessions/s1/g.ts\n"},
		{"absolute pattern outside", `{"pattern":"/etc/*"}`, "error: path is outside the workspace: /etc is not under"},
		{"parent pattern outside", `{"pattern":"../*"}`, "error: path is outside the workspace: .. is not under"},
		{"dot-dot after a wildcard", `{"pattern":"*/../*"}`, "error: invalid pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, &Tools{}, ws, "glob", tt.args)
			if tt.name == "double star newest first" && res.Output != tt.want {
				t.Errorf("glob(%s) = %q, want exactly %q (.git, .delta and .sessions skipped)", tt.args, res.Output, tt.want)
			}
			if !strings.HasPrefix(res.Output, tt.want) {
				t.Errorf("glob(%s) = %q, want %q", tt.args, res.Output, tt.want)
			}
		})
	}
}

func TestReadFileTruncates(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"big.txt": strings.Repeat(strings.Repeat("x", 99)+"\n", 1000)})
	res := call(t, &Tools{}, ws, "read_file", `{"file_path":"big.txt"}`)
	if !strings.Contains(res.Output, "[WARNING: Tool output was truncated.") || len([]rune(res.Output)) > 50500 {
		t.Errorf("read_file(big) returned %d chars without the truncation warning", len(res.Output))
	}
}

func TestConfigureRejectsUnknownKeys(t *testing.T) {
	err := (&Tools{}).Configure(context.Background(), json.RawMessage(`{"allow_outside_workpace":true}`))
	want := `coding plugin config: unknown key "allow_outside_workpace" (known keys: allow_outside_workspace, no_ripgrep, profile, shell_timeout_ms, require_read_before_write)`
	if err == nil || err.Error() != want {
		t.Errorf("Configure() error = %v, want %q", err, want)
	}
	if err := (&Tools{}).Configure(context.Background(), json.RawMessage(`{"no_ripgrep":true}`)); err != nil {
		t.Errorf("Configure(known key) error = %v", err)
	}
	err = (&Tools{}).Configure(context.Background(), json.RawMessage(`{"profile":"claude"}`))
	want = `coding plugin config: unknown profile "claude" (profiles: default, openai, anthropic, gemini)`
	if err == nil || err.Error() != want {
		t.Errorf("Configure(bad profile) error = %v, want %q", err, want)
	}
}
