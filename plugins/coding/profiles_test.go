package coding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func configured(t *testing.T, profile string) *Tools {
	t.Helper()
	tools := &Tools{}
	if err := tools.Configure(context.Background(), json.RawMessage(`{"profile":"`+profile+`","no_ripgrep":true}`)); err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestProfiles: each profile's names and parameter names reach the right
// capability, with the profile's defaults.
func TestProfiles(t *testing.T) {
	tests := []struct {
		profile, tool, args string
		wantErr             bool
		want                string // output prefix
	}{
		{"openai", "apply_patch", `{"input":"*** Begin Patch\n*** Add File: new.txt\n+made by codex\n*** End Patch"}`, false, "Success. Updated the following files:\nA new.txt\n"},
		{"openai", "grep_files", `{"pattern":"needle","include":"*.go"}`, false, "src/a.go\nsrc/b.go\n"},
		{"openai", "grep_files", `{"pattern":"needle","limit":1}`, false, "src/a.go\n[1 more files"},
		{"openai", "list_dir", `{"dir_path":"src"}`, false, "src/\n  a.go\n  b.go\n  deep/\n    c.txt\n"},
		{"openai", "shell", `{"command":["echo","hi"]}`, false, "hi\n"},
		{"openai", "edit_file", `{}`, true, `unknown tool "edit_file"`},
		{"anthropic", "grep", `{"pattern":"NEEDLE","-i":true}`, false, "src/a.go\nsrc/b.go\n"},
		{"anthropic", "grep", `{"pattern":"needle","output_mode":"count"}`, false, "src/a.go:2\nsrc/b.go:1\n"},
		{"anthropic", "grep", `{"pattern":"needle","output_mode":"content","head_limit":1}`, false, "src/a.go:1:needle one\n[results limited to 1 matches"},
		{"anthropic", "shell", `{"command":"sleep 5","timeout":200}`, true,
			"[ERROR: Command timed out after 200ms; it and every process it started were stopped.\nYou can retry with a longer timeout by setting the timeout parameter (at most 600000)"},
		{"anthropic", "shell", `{"command":"exit 3","timeout":900000}`, true, "[timeout 900000 is above the maximum; using 600000]\n[exit code: 3]"},
		{"gemini", "read_file", `{"absolute_path":"src/deep/c.txt"}`, false, "1 | text\n"},
		{"gemini", "search_file_content", `{"pattern":"needle","include":"b.*"}`, false, "src/b.go:1:needle three\n"},
		{"gemini", "list_directory", `{"path":"src"}`, false, "src/\n  a.go\n  b.go\n  deep/\n"},
		{"gemini", "replace", `{"file_path":"twice.txt","old_string":"x","new_string":"y","expected_replacements":3}`, true, "error: twice.txt: expected 3 replacement(s) but old_string occurs 2 time(s)"},
		{"gemini", "replace", `{"file_path":"twice.txt","old_string":"x","new_string":"y","expected_replacements":2}`, false, "Made 2 replacement(s) in twice.txt"},
		{"gemini", "run_shell_command", `{"command":"pwd -P","directory":"src"}`, false, ""},
		{"gemini", "read_many_files", `{"paths":["src/*.go","src/deep"]}`, false, "--- src/a.go ---\nneedle one\nneedle two\n--- src/b.go ---\nneedle three\n--- src/deep/c.txt ---\ntext\n"},
	}
	for _, tt := range tests {
		t.Run(tt.profile+"/"+tt.tool, func(t *testing.T) {
			ws := t.TempDir()
			writeFiles(t, ws, map[string]string{"src/a.go": "needle one\nneedle two\n", "src/b.go": "needle three\n",
				"src/deep/c.txt": "text\n", "twice.txt": "x x\n"})
			// a.go is the newer, so newest-first and path orders agree.
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(filepath.Join(ws, "src/b.go"), old, old); err != nil {
				t.Fatal(err)
			}
			tools := configured(t, tt.profile)
			if tt.tool == "replace" { // an edit needs a read first
				call(t, tools, ws, "read_file", `{"absolute_path":"twice.txt"}`)
			}
			res := call(t, tools, ws, tt.tool, tt.args)
			if res.IsError != tt.wantErr || !strings.HasPrefix(res.Output, tt.want) {
				t.Errorf("%s %s(%s) = %q (error %v), want prefix %q (error %v)", tt.profile, tt.tool, tt.args, res.Output, res.IsError, tt.want, tt.wantErr)
			}
			if tt.tool == "run_shell_command" && res.Output != realDir(t, filepath.Join(ws, "src"))+"\n" {
				t.Errorf("run_shell_command ran in %q, want the directory src", res.Output)
			}
		})
	}
}

func TestGrepOutputModes(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "x\nx\n", "b.txt": "y\n", "c.txt": "x\n"})
	for _, noRg := range []bool{true, false} {
		tools := &Tools{Config: Config{NoRipgrep: noRg}}
		for _, tt := range []struct{ args, want string }{
			{`{"pattern":"x"}`, "a.txt:1:x\na.txt:2:x\nc.txt:1:x\n"},
			{`{"pattern":"x","output_mode":"files_with_matches"}`, "a.txt\nc.txt\n"},
			{`{"pattern":"x","output_mode":"count"}`, "a.txt:2\nc.txt:1\n"},
			{`{"pattern":"zzz","output_mode":"count"}`, "No matches found."},
			{`{"pattern":"x","output_mode":"lines"}`, "error: invalid arguments: output_mode must be content, files_with_matches or count, not \"lines\""},
		} {
			if res := call(t, tools, ws, "grep", tt.args); res.Output != tt.want {
				t.Errorf("grep(%s) no_ripgrep=%v = %q, want %q", tt.args, noRg, res.Output, tt.want)
			}
		}
	}
}

func TestListDir(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a/b/c.txt": "", "a/d.txt": "", "e.txt": "", ".git/config": ""})
	if err := os.Symlink("e.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	tools := &Tools{}
	for _, tt := range []struct{ args, want string }{
		{`{}`, "./\n  .git/\n  a/\n  e.txt\n  empty/\n  link@\n"},
		{`{"depth":3}`, "./\n  .git/\n  a/\n    b/\n      c.txt\n    d.txt\n  e.txt\n  empty/\n  link@\n"},
		{`{"path":"empty"}`, "empty/\n  (empty directory)\n"},
		{`{"limit":2}`, "./\n  .git/\n  a/\n[listing stopped at 2 entries; list a subdirectory, lower depth or raise limit]\n"},
		{`{"path":"e.txt"}`, "error: path not found or not a directory: e.txt"},
		{`{"path":".."}`, "error: path is outside the workspace"},
	} {
		if res := call(t, tools, ws, "list_dir", tt.args); !strings.HasPrefix(res.Output, tt.want) {
			t.Errorf("list_dir(%s) = %q, want %q", tt.args, res.Output, tt.want)
		}
	}
}

func TestReadManyFiles(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "alpha", "d/b.txt": "beta\n", "bin.dat": "a\x00b"})
	tools := &Tools{}
	for _, tt := range []struct{ args, want string }{
		{`{"paths":["a.txt","d"]}`, "--- a.txt ---\nalpha\n--- d/b.txt ---\nbeta\n"},
		{`{"paths":["a.txt","a.txt","missing.txt","bin.dat"]}`, "--- a.txt ---\nalpha\n--- (not read) ---\nfile not found: missing.txt (use glob to find the right path)\nskipped binary file bin.dat\n"},
		{`{"paths":["*.md"]}`, "error: no file read: no file matches *.md"},
		{`{"paths":[]}`, "error: invalid arguments: paths is empty"},
		{`{"paths":["../x"]}`, "error: path is outside the workspace"},
	} {
		if res := call(t, tools, ws, "read_many_files", tt.args); !strings.HasPrefix(res.Output, tt.want) {
			t.Errorf("read_many_files(%s) = %q, want %q", tt.args, res.Output, tt.want)
		}
	}
}

// TestShellDescriptionsNameDefaultTimeout: the shell tools tell the model
// the timeout a call gets when it sets none, the config's when it has one.
func TestShellDescriptionsNameDefaultTimeout(t *testing.T) {
	for _, tc := range []struct {
		config, tool, want string
	}{
		{`{}`, "shell", `(default: 10000, at most 600000)`},
		{`{"shell_timeout_ms":45000}`, "shell", `(default: 45000, at most 600000)`},
		{`{"profile":"anthropic","shell_timeout_ms":120000}`, "shell", `commands time out after 120000ms`},
		{`{"profile":"openai"}`, "shell", `(default 10000, at most 600000)`},
		{`{"profile":"gemini","shell_timeout_ms":30000}`, "run_shell_command", `(default 30000, at most 600000)`},
	} {
		tools := &Tools{}
		if err := tools.Configure(context.Background(), json.RawMessage(tc.config)); err != nil {
			t.Fatal(err)
		}
		list, err := tools.Tools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tl := range list {
			text := tl.Description + string(tl.Parameters)
			if strings.Contains(text, defaultTimeoutMark) {
				t.Errorf("%s: %s still holds %s", tc.config, tl.Name, defaultTimeoutMark)
			}
			if tl.Name == tc.tool {
				found = strings.Contains(text, tc.want)
			}
			if !json.Valid(tl.Parameters) {
				t.Errorf("%s: %s parameters are not JSON", tc.config, tl.Name)
			}
		}
		if !found {
			t.Errorf("%s: %s does not say %q", tc.config, tc.tool, tc.want)
		}
	}
}
