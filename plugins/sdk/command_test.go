package sdk

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunCommand: a command's output, exit status and the run's
// variables reach the tool; a failing command is Failed.
func TestRunCommand(t *testing.T) {
	ws := t.TempDir()
	req := CallRequest{WorkDir: ws, Env: []string{"DELTA_CALL_ID=c1"}}
	res, err := RunCommand(context.Background(), req, Command{Argv: []string{"sh", "-c", `pwd; echo "$DELTA_CALL_ID"; echo oops >&2; exit 3`}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{ws + "\n", "c1\n", "oops", "3"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("RunCommand().Text = %q, want it to contain %q", res.Text, want)
		}
	}
	if res.ExitCode != 3 || !res.Failed() {
		t.Errorf("RunCommand() = exit %d, failed %t; want exit 3, failed", res.ExitCode, res.Failed())
	}
}

// TestRunCommandTimeout: the timeout stops the command and the note
// names the call's parameter to raise.
func TestRunCommandTimeout(t *testing.T) {
	res, err := RunCommand(context.Background(), CallRequest{WorkDir: t.TempDir()},
		Command{Argv: []string{"sleep", "30"}, Timeout: 100 * time.Millisecond, TimeoutParam: "timeout_ms", MaxTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || !res.Failed() || !strings.Contains(res.Text, "timeout_ms") {
		t.Errorf("RunCommand(sleep past timeout) = %+v, want timed out with a note naming timeout_ms", res)
	}
}

// TestCutKeepsWhole: an output past the limits is cut with a marker
// naming the file in the call's record that keeps all of it.
func TestCutKeepsWhole(t *testing.T) {
	ws := t.TempDir()
	rec := filepath.Join(ws, ".delta", "run", "io", "tool_executions", "x")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	req := CallRequest{WorkDir: ws, RecordDir: rec}
	long := strings.Repeat("line\n", 1000)
	got, err := req.Cut(long, Limits{MaxLines: 10})
	if err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(".delta", "run", "io", "tool_executions", "x", "output.txt")
	if !strings.Contains(got, full) || len(got) >= len(long) {
		t.Errorf("Cut(1000 lines, 10) = %q, want it cut, naming %s", got, full)
	}
	if data, err := os.ReadFile(filepath.Join(ws, full)); err != nil || string(data) != long {
		t.Errorf("the kept output = %d bytes, %v; want the whole output", len(data), err)
	}
	if got, _ := req.Cut("short", Limits{MaxLines: 10}); got != "short" {
		t.Errorf("Cut(short) = %q, want it unchanged", got)
	}
	if got, _ := (CallRequest{}).Cut(long, Limits{MaxLines: 10}); !strings.Contains(got, "lines omitted") {
		t.Errorf("Cut outside a run = %q, want the line marker", got)
	}
}
