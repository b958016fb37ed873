package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/workflow"
)

// TestReviewExample follows examples/review-workflow/README.md: the
// workflow validates, runs offline to completion, and leaves the channel,
// the findings and one run per agent behind.
func TestReviewExample(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/review-workflow")); err != nil {
		t.Fatal(err)
	}
	bin := clitest.BinDir(t)
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "delta-workflow"), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("delta-workflow %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		return out.String(), errb.String()
	}
	if out, _ := run("validate", "workflow.yaml"); !strings.Contains(out, "ok: workflow review, 3 agents (reviewer, coder, scribe)") {
		t.Errorf("validate: %s", out)
	}
	out, _ := run("run", "workflow.yaml", "--json")
	var s workflow.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	if s.Status != workflow.SummaryCompleted || s.Entries != 4 {
		t.Errorf("status %s with %d channel entries, want completed with 4", s.Status, s.Entries)
	}
	if !strings.Contains(s.Documents["notes.md"], "1. Line 2: `$1` is unquoted") {
		t.Errorf("the findings are not in the document: %q", s.Documents["notes.md"])
	}
	for _, a := range s.Agents {
		if a.Status != workflow.StatusIdle || a.Unread != 0 || a.Runs == 0 || a.InputTokens == 0 {
			t.Errorf("agent %+v: want idle, something run and nothing unread", a)
		}
		if _, err := os.Stat(filepath.Join(dir, ".delta", a.RunID, "journal.jsonl")); err != nil {
			t.Errorf("agent %s: its run: %v", a.Name, err)
		}
	}
	channel, err := os.ReadFile(filepath.Join(dir, ".workflow", "default", "channel.md"))
	if err != nil || !strings.Contains(string(channel), "[RESOLVED] LGTM") {
		t.Errorf("channel.md (%v):\n%s", err, channel)
	}
	if out, _ := run("list"); !strings.Contains(out, "scribe@default") {
		t.Errorf("list:\n%s", out)
	}
}
