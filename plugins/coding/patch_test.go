package coding

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// files is an in-memory file set for ComputePatch.
type files map[string]string

func (f files) read(p string) (string, error) {
	s, ok := f[p]
	if !ok {
		return "", fs.ErrNotExist
	}
	return s, nil
}

func TestComputePatchSeedExamples(t *testing.T) {
	tests := []struct {
		name  string
		files files
		patch string
		want  []Change
	}{
		{
			name: "add file",
			patch: `*** Begin Patch
*** Add File: src/utils/helpers.py
+def greet(name):
+    return f"Hello, {name}!"
*** End Patch
`,
			want: []Change{{Kind: OpAdd, Path: "src/utils/helpers.py", Content: "def greet(name):\n    return f\"Hello, {name}!\"\n"}},
		},
		{
			name:  "delete file",
			files: files{"src/old_module.py": "x = 1\n"},
			patch: `*** Begin Patch
*** Delete File: src/old_module.py
*** End Patch
`,
			want: []Change{{Kind: OpDelete, Path: "src/old_module.py"}},
		},
		{
			name:  "update file",
			files: files{"src/main.py": "import os\n\ndef main():\n    print(\"Hello\")\n    return 0\n\nmain()\n"},
			patch: `*** Begin Patch
*** Update File: src/main.py
@@ def main():
     print("Hello")
-    return 0
+    print("World")
+    return 1
*** End Patch
`,
			want: []Change{{Kind: OpUpdate, Path: "src/main.py", Content: "import os\n\ndef main():\n    print(\"Hello\")\n    print(\"World\")\n    return 1\n\nmain()\n"}},
		},
		{
			name:  "update and rename",
			files: files{"old_name.py": "import os\nimport sys\nimport old_dep\n\nprint(sys.argv)\n"},
			patch: `*** Begin Patch
*** Update File: old_name.py
*** Move to: new_name.py
@@ import os
 import sys
-import old_dep
+import new_dep
*** End Patch
`,
			want: []Change{{Kind: OpUpdate, Path: "old_name.py", NewPath: "new_name.py", Content: "import os\nimport sys\nimport new_dep\n\nprint(sys.argv)\n"}},
		},
		{
			name:  "multi-hunk update",
			files: files{"src/config.py": "import json\n\nDEFAULT_TIMEOUT = 30\n\ndef load_config():\n    config = {}\n    config[\"debug\"] = False\n    return config\n"},
			patch: `*** Begin Patch
*** Update File: src/config.py
@@ DEFAULT_TIMEOUT = 30
-DEFAULT_TIMEOUT = 30
+DEFAULT_TIMEOUT = 60
@@ def load_config():
     config = {}
-    config["debug"] = False
+    config["debug"] = True
*** End Patch
`,
			want: []Change{{Kind: OpUpdate, Path: "src/config.py", Content: "import json\n\nDEFAULT_TIMEOUT = 60\n\ndef load_config():\n    config = {}\n    config[\"debug\"] = True\n    return config\n"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ComputePatch(tt.patch, tt.files.read)
			if err != nil {
				t.Fatalf("ComputePatch() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ComputePatch() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputePatchTolerance(t *testing.T) {
	src := files{"a.go": "package a\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 2\n}\n"}
	tests := []struct {
		name, patch, want string
	}{
		{
			name:  "bare @@ and heredoc wrapper",
			patch: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.go\n@@\n func G() int {\n-\treturn 2\n+\treturn 3\n }\n*** End Patch\nEOF\n",
			want:  "package a\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 3\n}\n",
		},
		{
			name:  "no @@ line and no End Patch",
			patch: "*** Begin Patch\n*** Update File: a.go\n func F() int {\n-\treturn 1\n+\treturn 10\n",
			want:  "package a\n\nfunc F() int {\n\treturn 10\n}\n\nfunc G() int {\n\treturn 2\n}\n",
		},
		{
			name:  "whitespace-tolerant context (spaces instead of tabs)",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@ func G() int {\n-    return 2\n+\treturn 4\n*** End Patch\n",
			want:  "package a\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 4\n}\n",
		},
		{
			name:  "hint selects the second of two equal lines",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@ func G() int {\n }\n+\n+// H is new.\n*** End Patch\n",
			want:  "package a\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 2\n}\n\n// H is new.\n",
		},
		{
			name:  "CRLF patch",
			patch: "*** Begin Patch\r\n*** Update File: a.go\r\n@@ func F() int {\r\n-\treturn 1\r\n+\treturn 5\r\n*** End Patch\r\n",
			want:  "package a\n\nfunc F() int {\n\treturn 5\n}\n\nfunc G() int {\n\treturn 2\n}\n",
		},
		{
			name:  "end of file marker appends",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@\n+// end\n*** End of File\n*** End Patch\n",
			want:  "package a\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 2\n}\n// end\n",
		},
		{
			name:  "smart quotes in context",
			patch: "*** Begin Patch\n*** Update File: a.go\n@@\n-func F() int {\n+func F() int { // “one”\n*** End Patch\n",
			want:  "package a\n\nfunc F() int { // “one”\n\treturn 1\n}\n\nfunc G() int {\n\treturn 2\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ComputePatch(tt.patch, src.read)
			if err != nil {
				t.Fatalf("ComputePatch() error = %v", err)
			}
			if len(got) != 1 {
				t.Fatalf("ComputePatch() = %d changes, want 1", len(got))
			}
			if diff := cmp.Diff(tt.want, got[0].Content); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputePatchErrors(t *testing.T) {
	src := files{"a.txt": "one\ntwo\nthree\n"}
	tests := []struct {
		name, patch string
		want        error
		mention     string
	}{
		{"no begin", "*** Update File: a.txt\n-one\n", ErrPatchSyntax, "Begin Patch"},
		{"empty", "*** Begin Patch\n*** End Patch\n", ErrPatchSyntax, "no file operations"},
		{"garbage line", "*** Begin Patch\nhello\n*** End Patch\n", ErrPatchSyntax, "unexpected line"},
		{"add without plus", "*** Begin Patch\n*** Add File: b.txt\nno plus\n*** End Patch\n", ErrPatchSyntax, "must start with '+'"},
		{"update without hunks", "*** Begin Patch\n*** Update File: a.txt\n*** End Patch\n", ErrPatchSyntax, "no hunks"},
		{"context not found", "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-tw0\n+2\n*** End Patch\n", ErrHunkNotFound, "line(s) 1"},
		{"update missing file", "*** Begin Patch\n*** Update File: nope.txt\n@@\n-x\n*** End Patch\n", fs.ErrNotExist, "nope.txt"},
		{"delete missing file", "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch\n", fs.ErrNotExist, "nope.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ComputePatch(tt.patch, src.read)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ComputePatch() error = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("ComputePatch() error = %q, want it to mention %q", err, tt.mention)
			}
		})
	}
}

func FuzzComputePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ x\n x\n-y\n+z\n*** End of File\n*** End Patch\n", "x\ny\n")
	f.Add("*** Begin Patch\n*** Add File: b\n+hi\n*** Delete File: a\n*** End Patch\n", "")
	f.Add("*** Begin Patch\n*** Update File: a\n*** Move to: c\n@@\n+\n", "\n\n")
	f.Fuzz(func(t *testing.T, patch, content string) {
		src := files{"a": content}
		changes, err := ComputePatch(patch, src.read)
		if err != nil {
			return
		}
		for _, c := range changes {
			if c.Path == "" {
				t.Fatalf("change without path: %+v", c)
			}
		}
	})
}

// TestComputePatchKeepsFileLines checks that context lines only locate a
// change: the file keeps their text, '+' lines follow the file's
// indentation and line endings (qa-b 5.0, 5.0b).
func TestComputePatchKeepsFileLines(t *testing.T) {
	tests := []struct {
		name, file, patch, want string
	}{
		{
			name:  "context indented wrongly keeps the file's text",
			file:  "def f():\n    return 1\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n   def f():\n-      return 1\n+      return 2\n*** End Patch",
			want:  "def f():\n    return 2\n",
		},
		{
			name:  "added lines shift by the anchor's offset",
			file:  "class A:\n    def f(self):\n        return 1\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n def f(self):\n-    return 1\n+    x = 1\n+    if x:\n+        return x\n*** End Patch",
			want:  "class A:\n    def f(self):\n        x = 1\n        if x:\n            return x\n",
		},
		{
			name:  "added line less indented than its anchor",
			file:  "if a:\n    if b:\n        pass\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n       if b:\n           pass\n+  c = 1\n*** End Patch",
			want:  "if a:\n    if b:\n        pass\nc = 1\n",
		},
		{
			name:  "trailing whitespace of a context line stays",
			file:  "a  \nb\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n*** End Patch",
			want:  "a  \nB\n",
		},
		{
			name:  "CRLF file keeps CRLF",
			file:  "alpha\r\nbeta\r\ngamma\r\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n alpha\n-beta\n+BETA\n+more\n gamma\n*** End Patch",
			want:  "alpha\r\nBETA\r\nmore\r\ngamma\r\n",
		},
		{
			name:  "a file without a final newline gets one",
			file:  "alpha\nbeta",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n alpha\n-beta\n+BETA\n*** End Patch",
			want:  "alpha\nBETA\n",
		},
		{
			name:  "a CRLF file without a final newline gets CRLF",
			file:  "alpha\r\nbeta\r\ngamma",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-alpha\n+ALPHA\n*** End Patch",
			want:  "ALPHA\r\nbeta\r\ngamma\r\n",
		},
		{
			name:  "mixed endings: a replaced line keeps its own ending",
			file:  "one\ntwo\r\nthree\nfour\r\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n one\n-two\n+TWO\n three\n-four\n+FOUR\n*** End Patch",
			want:  "one\nTWO\r\nthree\nFOUR\r\n",
		},
		{
			name:  "mixed endings: an inserted line takes its anchor's ending",
			file:  "one\ntwo\r\nthree\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n two\n+two-and-a-half\n three\n*** End Patch",
			want:  "one\ntwo\r\ntwo-and-a-half\r\nthree\n",
		},
		{
			name:  "headers padded with blanks",
			file:  "a\nb\n",
			patch: "  *** Begin Patch\n  *** Update File: f  \n@@\n a\n-b\n+B\n  *** End Patch",
			want:  "a\nB\n",
		},
		{
			name:  "CRLF file, pure addition at the end",
			file:  "alpha\r\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n+omega\n*** End of File\n*** End Patch",
			want:  "alpha\r\nomega\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ComputePatch(tt.patch, files{"f": tt.file}.read)
			if err != nil {
				t.Fatalf("ComputePatch() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got[0].Content); diff != "" {
				t.Errorf("content mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
