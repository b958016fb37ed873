package execute

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLiveFiles: StdoutFile holds the first line while the command
// still runs (it waits for a marker this test writes only once it has read
// that line), the file of a stream that stays empty is never made, and
// with LogsWhenCut a stream that fits the capture loses its file at the end
// while a longer one keeps it.
func TestRunLiveFiles(t *testing.T) {
	dir := t.TempDir()
	out, errOut, marker := filepath.Join(dir, "out", "c.stdout"), filepath.Join(dir, "out", "c.stderr"), filepath.Join(dir, "go")
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), Spec{
			Argv:       []string{"sh", "-c", `echo first; i=0; while [ ! -f "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; echo second`, "sh", marker},
			StdoutFile: out, StderrFile: errOut, LogsWhenCut: false,
		})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	if !waitFor(func() bool { b, _ := os.ReadFile(out); return string(b) == "first\n" }) {
		t.Fatal("the first line never reached the live file")
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if b, _ := os.ReadFile(out); string(b) != "first\nsecond\n" || res.Stdout != "first\nsecond\n" || res.StdoutLog != out {
		t.Errorf("live file %q, capture %q, log %q; want the whole output in both, log %s", b, res.Stdout, res.StdoutLog, out)
	}
	if _, err := os.Stat(errOut); !os.IsNotExist(err) || res.StderrLog != "" {
		t.Errorf("stderr printed nothing, yet its file: %v, log %q", err, res.StderrLog)
	}

	short := run(t, Spec{Argv: []string{"sh", "-c", "echo short; echo long >&2"}, StdoutFile: out + "2", StderrFile: errOut + "2",
		LogsWhenCut: true, MaxCapture: 64})
	if _, err := os.Stat(out + "2"); !os.IsNotExist(err) || short.StdoutLog != "" || short.Stdout != "short\n" {
		t.Errorf("a stream that fits keeps its file (%v, log %q, capture %q)", err, short.StdoutLog, short.Stdout)
	}
	long := run(t, Spec{Argv: []string{"sh", "-c", "seq 1 1000"}, StdoutFile: out + "3", LogsWhenCut: true, MaxCapture: 64})
	if b, _ := os.ReadFile(out + "3"); long.StdoutLog != out+"3" || strings.Count(string(b), "\n") != 1000 {
		t.Errorf("a stream that does not fit: log %q with %d lines, want %s with 1000", long.StdoutLog, strings.Count(string(b), "\n"), out+"3")
	}
}
