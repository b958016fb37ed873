package coding

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/plugins/sdk"
)

// TestTruncateTool checks the per-tool limits on top of the shared
// seeds/001 §5 algorithm: rune counting, an odd limit, tail mode and the
// line limit applied after the character limit.
func TestTruncateTool(t *testing.T) {
	midWarning := func(n string) string {
		return "\n\n[WARNING: Tool output was truncated. " + n + " characters were removed from the middle. " +
			"The full output is available in the event stream. " +
			"If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n"
	}
	tests := []struct {
		name, tool, in, want string
	}{
		{"unknown tool untouched", "bash", strings.Repeat("x", 60000), strings.Repeat("x", 60000)},
		{"read_file head_tail", "read_file", strings.Repeat("é", 50001),
			strings.Repeat("é", 25000) + midWarning("1") + strings.Repeat("é", 25000)},
		{"write_file tail", "write_file", "ab" + strings.Repeat("y", 1000),
			"[WARNING: Tool output was truncated. First 2 characters were removed. The full output is available in the event stream.]\n\n" +
				strings.Repeat("y", 1000)},
		{"grep lines", "grep", strings.Repeat("m\n", 300) + "end",
			strings.Repeat("m\n", 99) + "m\n[... 101 lines omitted ...]\n" + strings.Repeat("m\n", 99) + "end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, TruncateTool(tt.tool, tt.in)); diff != "" {
				t.Errorf("TruncateTool(%q) mismatch (-want +got):\n%s", tt.tool, diff)
			}
		})
	}
	if got, want := TruncateChars("abcde", 3, sdk.HeadTail), "a"+midWarning("2")+"e"; got != want {
		t.Errorf("TruncateChars(abcde, 3) = %q, want %q", got, want)
	}
}

// TestToolKeepsWholeOutput: read_file and grep past their limits show one
// marker with the whole output's real size and the file, in the call's
// record directory, that keeps all of it, not the seed's "event stream" text.
func TestToolKeepsWholeOutput(t *testing.T) {
	ws := t.TempDir()
	recDir := recordDir(t, ws, "r1")
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("x", 100000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var hits strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&hits, "hit %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(ws, "hits.txt"), []byte(hits.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := &Tools{}
	for _, tc := range []struct {
		tool, args string
		lines      int64
	}{
		{"read_file", `{"file_path":"big.txt"}`, 1},
		{"grep", `{"pattern":"hit","path":"hits.txt","max_results":5000}`, 3000},
	} {
		res, err := tools.Call(context.Background(), sdk.CallRequest{Name: tc.tool, WorkDir: ws, RunID: "r1", CallID: "c1", RecordDir: recDir, Arguments: json.RawMessage(tc.args)})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %q", tc.tool, err, res.Output)
		}
		if strings.Count(res.Output, "[WARNING: Tool output was truncated.") != 1 || strings.Contains(res.Output, "event stream") {
			t.Fatalf("%s: want one marker naming the file: %.500q", tc.tool, res.Output)
		}
		_, after, ok := strings.Cut(res.Output, ") is in ") // "(N bytes, M lines) is in FILE:"
		if !ok || !strings.Contains(res.Output, fmt.Sprintf("bytes, %d line", tc.lines)) {
			t.Fatalf("%s: marker does not give the whole size and file: %.1000q", tc.tool, res.Output)
		}
		file, _, _ := strings.Cut(after, ":")
		data, err := os.ReadFile(filepath.Join(ws, file))
		if err != nil || !strings.HasPrefix(filepath.Join(ws, file), recDir+string(filepath.Separator)) {
			t.Fatalf("%s: the file the marker names (%s): %v", tc.tool, file, err)
		}
		if tc.tool == "read_file" && !strings.Contains(string(data), strings.Repeat("x", 100000)) {
			t.Errorf("read_file: %s lacks the whole line (%d bytes)", file, len(data))
		}
		if tc.tool == "grep" && (!strings.Contains(string(data), "hits.txt:1:hit 0") || !strings.Contains(string(data), "hit 2999")) {
			t.Errorf("grep: %s lacks hits (%d bytes)", file, len(data))
		}
	}
}

// TestSubagentToolKeepsWholeOutput: a subagent's tools run in a
// subdirectory of the workspace holding its run; the marker's file is
// still kept in the call's record directory, named from the tool's
// directory.
func TestSubagentToolKeepsWholeOutput(t *testing.T) {
	ws := t.TempDir()
	recDir := recordDir(t, ws, "p.sub1")
	sub := filepath.Join(ws, "poems")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tools := &Tools{}
	res, err := tools.Call(context.Background(), sdk.CallRequest{Name: "shell", WorkDir: sub, RunID: "p.sub1", CallID: "c1", RecordDir: recDir,
		Arguments: json.RawMessage(`{"command":"seq 1 100000"}`)})
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(res.Output, ") is in ")
	if !ok {
		t.Fatalf("marker names no file: %.500q", res.Output)
	}
	file, _, _ := strings.Cut(after, ":")
	file, _, _ = strings.Cut(file, " (stdout)")
	if !strings.HasPrefix(file, filepath.Join("..", ".delta", "p.sub1", "io", "tool_executions")) {
		t.Errorf("marker names %s, want a path from poems/ to the run's tool records", file)
	}
	if data, err := os.ReadFile(filepath.Join(sub, file)); err != nil || !strings.HasSuffix(string(data), "\n100000\n") {
		t.Errorf("the file the marker names (%s): %d bytes, %v", file, len(data), err)
	}
}
