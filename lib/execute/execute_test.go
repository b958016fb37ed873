package execute

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func run(t *testing.T, s Spec) Result {
	t.Helper()
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run(%q) error: %v", s.Argv, err)
	}
	return res
}

func TestRunExitCodesAndOutput(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		tests := []struct {
			name string
			spec Spec
			want Result
		}{
			{"true", Spec{Argv: []string{"true"}}, Result{}},
			{"exit 3", Spec{Argv: []string{"sh", "-c", "exit 3"}}, Result{ExitCode: 3}},
			{"stdout and stderr", Spec{Argv: []string{"sh", "-c", "printf out; printf err >&2"}},
				Result{Stdout: "out", Stderr: "err", StdoutBytes: 3, StderrBytes: 3, StdoutLines: 1, StderrLines: 1}},
			{"stdin", Spec{Argv: []string{"cat"}, Stdin: []byte("hello\n")},
				Result{Stdout: "hello\n", StdoutBytes: 6, StdoutLines: 1}},
			{"no stdin is /dev/null", Spec{Argv: []string{"sh", "-c", "cat; echo done"}},
				Result{Stdout: "done\n", StdoutBytes: 5, StdoutLines: 1}},
			{"env is the whole environment", Spec{Argv: []string{"env"}, Env: []string{"ONLY=1"}},
				Result{Stdout: "ONLY=1\n", StdoutBytes: 7, StdoutLines: 1}},
			{"killed by signal", Spec{Argv: []string{"sh", "-c", "kill -9 $$"}},
				Result{ExitCode: 137, Signal: "SIGKILL"}},
			{"lines counted", Spec{Argv: []string{"sh", "-c", "printf 'a\\nb\\n\\nc'; printf 'e\\n' >&2"}},
				Result{Stdout: "a\nb\n\nc", Stderr: "e\n", StdoutBytes: 6, StderrBytes: 2, StdoutLines: 4, StderrLines: 1}},
			{"argv0 preserved", Spec{Argv: []string{"sh", "-c", `printf %s "$0"`, "zero"}},
				Result{Stdout: "zero", StdoutBytes: 4, StdoutLines: 1}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := run(t, tt.spec)
				got.Duration = 0
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Run(%q) mismatch (-want +got):\n%s", tt.spec.Argv, diff)
				}
			})
		}
	})
}

func TestRunDir(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		dir := t.TempDir()
		got := run(t, Spec{Argv: []string{"pwd"}, Dir: dir})
		if want := dir + "\n"; got.Stdout != want {
			t.Errorf("pwd in %s = %q, want %q", dir, got.Stdout, want)
		}
	})
}

func TestRunRelativeCommandInDir(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "tool.sh"), []byte("#!/bin/sh\necho tool\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		got := run(t, Spec{Argv: []string{"./tool.sh"}, Dir: dir})
		if got.Stdout != "tool\n" {
			t.Errorf("./tool.sh stdout = %q, want %q", got.Stdout, "tool\n")
		}
	})
}

func TestRunNotFound(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		for _, name := range []string{"delta-no-such-command", "/nonexistent/cmd"} {
			_, err := Run(context.Background(), Spec{Argv: []string{name}})
			if !errors.Is(err, exec.ErrNotFound) {
				t.Errorf("Run(%q) error = %v, want exec.ErrNotFound", name, err)
			}
		}
	})
}

func TestRunCannotExec(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "noshebang")
		if err := os.WriteFile(p, []byte("\x7fELFgarbage"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), Spec{Argv: []string{p}}); err == nil {
			t.Errorf("Run(%q) error = nil, want exec format error", p)
		}
	})
}

func TestRunPathFromEnv(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "only-here"), []byte("#!/bin/sh\necho found\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		got := run(t, Spec{Argv: []string{"only-here"}, Env: []string{"PATH=" + dir + ":/usr/bin:/bin"}})
		if got.Stdout != "found\n" {
			t.Errorf("stdout = %q, want %q", got.Stdout, "found\n")
		}
	})
}

func TestRunOutputDir(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "exec")
		got := run(t, Spec{Argv: []string{"sh", "-c", "echo out; echo err >&2"}, OutputDir: dir})
		for name, want := range map[string]string{"stdout.log": "out\n", "stderr.log": "err\n"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != want {
				t.Errorf("%s = %q, want %q", name, data, want)
			}
		}
		if got.OutputError != "" {
			t.Errorf("OutputError = %q, want none", got.OutputError)
		}
	})
}

// TestRunLogsWhenCut: with LogsWhenCut, an output that fits in the
// capture gets no log (nor a directory); one that does not gets a log
// holding all of it, from its first byte, even though the capture
// overflowed mid-write.
func TestRunLogsWhenCut(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "exec")
		small := run(t, Spec{Argv: []string{"sh", "-c", "echo out; echo err >&2"}, OutputDir: dir, LogsWhenCut: true, MaxCapture: 64})
		if small.Stdout != "out\n" || small.StdoutLog != "" || small.StderrLog != "" {
			t.Errorf("small output: Stdout %q, logs %q %q; want the capture and no logs", small.Stdout, small.StdoutLog, small.StderrLog)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("OutputDir exists after a small output (%v): nothing should be created", err)
		}
		// 100 lines of 10 bytes: the 64-byte capture overflows on the 7th.
		big := run(t, Spec{Argv: []string{"sh", "-c", "i=0; while [ $i -lt 100 ]; do printf 'line %03d\\n' $i; i=$((i+1)); done; echo err >&2"},
			OutputDir: dir, LogsWhenCut: true, MaxCapture: 64})
		if big.StdoutLog != filepath.Join(dir, "stdout.log") || big.StderrLog != "" {
			t.Fatalf("big output: logs %q %q, want stdout.log only", big.StdoutLog, big.StderrLog)
		}
		data, err := os.ReadFile(big.StdoutLog)
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for i := range 100 {
			fmt.Fprintf(&want, "line %03d\n", i)
		}
		if string(data) != want.String() {
			t.Errorf("stdout.log has %d bytes, want all %d of the output:\n%.200s", len(data), want.Len(), data)
		}
		if big.StdoutBytes != int64(want.Len()) || big.OutputError != "" {
			t.Errorf("StdoutBytes %d, OutputError %q", big.StdoutBytes, big.OutputError)
		}
		if _, err := os.Stat(filepath.Join(dir, "stderr.log")); !os.IsNotExist(err) {
			t.Errorf("stderr.log written for a 4-byte stderr (%v)", err)
		}
	})
}

// TestRunTimeoutKillsStubbornGroup runs a shell that ignores SIGTERM and
// leaves a background child ignoring it too: after the grace period both
// must be gone.
func TestRunTimeoutKillsStubbornGroup(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		marker := uniqueSleep()
		script := `trap "" TERM; sleep ` + marker + ` & echo started; sleep ` + marker
		got := run(t, Spec{
			Argv:      []string{"sh", "-c", script},
			Timeout:   300 * time.Millisecond,
			KillGrace: 200 * time.Millisecond,
		})
		if !got.TimedOut || got.Signal != "SIGKILL" || got.ExitCode != 137 {
			t.Errorf("Run = TimedOut %v, Signal %q, ExitCode %d; want true, SIGKILL, 137", got.TimedOut, got.Signal, got.ExitCode)
		}
		if got.Stdout != "started\n" {
			t.Errorf("partial stdout = %q, want %q", got.Stdout, "started\n")
		}
		if pids := sleepers(marker); len(pids) != 0 {
			t.Errorf("processes left after timeout: %v", pids)
		}
	})
}

func TestRunTimeoutPoliteCommand(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		got := run(t, Spec{Argv: []string{"sleep", "30"}, Timeout: 100 * time.Millisecond})
		if !got.TimedOut || got.Signal != "SIGTERM" || got.ExitCode != 143 {
			t.Errorf("Run = TimedOut %v, Signal %q, ExitCode %d; want true, SIGTERM, 143", got.TimedOut, got.Signal, got.ExitCode)
		}
	})
}

func TestRunContextCancel(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(100 * time.Millisecond); cancel() }()
		got, err := Run(ctx, Spec{Argv: []string{"sleep", "30"}})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Canceled || got.TimedOut || got.Signal != "SIGTERM" {
			t.Errorf("Run = Canceled %v TimedOut %v Signal %q; want true false SIGTERM", got.Canceled, got.TimedOut, got.Signal)
		}
	})
}

// TestRunKillsLeftoversOnExit: background processes that did not detach end
// with the command; a daemon started the documented way (setsid -w sh -c
// 'server &') survives even when the command exits right after starting it.
func TestRunKillsLeftoversOnExit(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		stay, detached := uniqueSleep(), uniqueSleep()
		script := `sleep ` + stay + ` & setsid -w sh -c 'sleep ` + detached + ` </dev/null >/dev/null 2>&1 &'; echo bye`
		got := run(t, Spec{Argv: []string{"sh", "-c", script}})
		if got.Stdout != "bye\n" || got.ExitCode != 0 {
			t.Errorf("Run = %q, exit %d; want %q, 0", got.Stdout, got.ExitCode, "bye\n")
		}
		if pids := sleepers(stay); len(pids) != 0 {
			t.Errorf("background child survived its command: %v", pids)
		}
		pids := sleepers(detached)
		if len(pids) != 1 {
			t.Fatalf("detached daemon: %d processes, want 1", len(pids))
		}
		killAndWait(t, pids)
	})
}

func TestCaptureBounded(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		const size = 50 << 20
		dir := t.TempDir()
		got := run(t, Spec{
			Argv:       []string{"sh", "-c", "head -c 52428800 /dev/zero | tr '\\0' a; printf END"},
			OutputDir:  dir,
			MaxCapture: 1024,
		})
		if got.StdoutBytes != size+3 {
			t.Errorf("StdoutBytes = %d, want %d", got.StdoutBytes, size+3)
		}
		want := strings.Repeat("a", 512) + "\n[... " + fmt.Sprint(size+3-1024) + " bytes omitted ...]\n" + strings.Repeat("a", 509) + "END"
		if got.Stdout != want {
			t.Errorf("Stdout capture (len %d) = %.80q…, want len %d", len(got.Stdout), got.Stdout, len(want))
		}
		fi, err := os.Stat(filepath.Join(dir, "stdout.log"))
		if err != nil || fi.Size() != size+3 {
			t.Errorf("stdout.log size = %v (%v), want %d", fi, err, size+3)
		}
	})
}

// TestRunUnreadStdin: a large stdin the command never reads must not block.
func TestRunUnreadStdin(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		got := run(t, Spec{Argv: []string{"sh", "-c", "echo ignored"}, Stdin: make([]byte, 4<<20)})
		if got.Stdout != "ignored\n" || got.ExitCode != 0 {
			t.Errorf("Run = %q, exit %d", got.Stdout, got.ExitCode)
		}
	})
}

// TestRunSingleTerm: on timeout the command receives SIGTERM once, even
// though it is both in the group and a child of the guard.
func TestRunSingleTerm(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		script := `n=0; trap 'n=$((n+1)); echo "term $n"' TERM; echo ready; while :; do sleep 0.05; done`
		got := run(t, Spec{Argv: []string{"sh", "-c", script}, Timeout: 300 * time.Millisecond, KillGrace: 500 * time.Millisecond})
		if got.Stdout != "ready\nterm 1\n" {
			t.Errorf("stdout = %q, want one SIGTERM", got.Stdout)
		}
	})
}

// TestRunLargeCommand: an argv larger than a packet to the guard still
// reaches the command whole.
func TestRunLargeCommand(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		// Each argument stays under the kernel's 128 KiB limit for one.
		big := strings.Repeat("x", 100<<10)
		res, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", `printf %s "$1$2" | wc -c`, "sh", big, big}})
		if err != nil {
			t.Fatalf("Run with a 200 KiB argv: %.200v", err)
		}
		if got := strings.TrimSpace(res.Stdout); got != fmt.Sprint(2*len(big)) {
			t.Errorf("the command saw %q bytes of its arguments, want %d", got, 2*len(big))
		}
	})
}

// TestRunConcurrent: commands run side by side under one guard, each with
// its own output and status, and each waits for no other.
func TestRunConcurrent(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		dir := t.TempDir()
		flag := filepath.Join(dir, "flag")
		var wg sync.WaitGroup
		results := make([]Result, 8)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				script := fmt.Sprintf("echo out%d; echo err%d >&2; exit %d", i, i, i)
				if i == 0 {
					// Waits for a file the last command writes: with the
					// commands run one after the other it would never
					// appear.
					script = fmt.Sprintf("while [ ! -e %s ]; do sleep 0.01; done; %s", flag, script)
				}
				if i == len(results)-1 {
					script = fmt.Sprintf("touch %s; %s", flag, script)
				}
				res, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Timeout: time.Minute})
				if err != nil {
					t.Error(err)
				}
				results[i] = res
			}()
		}
		wg.Wait()
		for i, res := range results {
			if res.Stdout != fmt.Sprintf("out%d\n", i) || res.Stderr != fmt.Sprintf("err%d\n", i) || res.ExitCode != i {
				t.Errorf("command %d: stdout %q, stderr %q, exit %d", i, res.Stdout, res.Stderr, res.ExitCode)
			}
		}
	})
}

// TestRunEnvLastWins: of two entries for one variable the later counts,
// as with os/exec (callers append their settings to what they inherit).
func TestRunEnvLastWins(t *testing.T) {
	got := run(t, Spec{Argv: []string{"sh", "-c", `echo "$X"`}, Env: []string{"PATH=/usr/bin:/bin", "X=", "X=second"}})
	if got.Stdout != "second\n" {
		t.Errorf("$X = %q, want %q", got.Stdout, "second\n")
	}
}
