package coding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/plugins/sdk"
)

func TestShell(t *testing.T) {
	ws := t.TempDir()
	tools := &Tools{}
	tests := []struct {
		name, args string
		wantErr    bool
		want       string
	}{
		{"stdout", `{"command":"echo hello"}`, false, "hello\n"},
		{"stderr and exit code", `{"command":"echo out; echo oops >&2; exit 3","description":"fail on purpose"}`, true, "out\n[stderr]\noops\n[exit code: 3]"},
		{"no output", `{"command":"true"}`, false, "(no output)"},
		{"runs in the workspace", `{"command":"pwd -P"}`, false, realDir(t, ws) + "\n"},
		{"argv array", `{"command":["printf","%s|","a b","c"]}`, false, "a b|c|"},
		{"empty command", `{"command":"  "}`, true, "error: invalid arguments: command is empty"},
		{"bad command type", `{"command":5}`, true, "error: invalid arguments: command must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tools, ws, "shell", tt.args)
			if res.IsError != tt.wantErr || res.Output != tt.want && !(tt.wantErr && strings.HasPrefix(res.Output, tt.want)) {
				t.Errorf("shell(%s) = %q (error %v), want %q (error %v)", tt.args, res.Output, res.IsError, tt.want, tt.wantErr)
			}
		})
	}
}

func realDir(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestShellEnvironment: the shell's command gets the plugin's environment
// as it is (the host already filtered it by the agent's env: policy, so a
// secret the agent passes through reaches the command) and the run's
// variables the host passes with the call.
func TestShellEnvironment(t *testing.T) {
	t.Setenv("CODING_TEST_PASSED_TOKEN", "passed-through")
	t.Setenv("CODING_TEST_PLAIN", "visible")
	ws := t.TempDir()
	res, err := (&Tools{}).Call(context.Background(), sdk.CallRequest{Name: "shell", WorkDir: ws, CallID: "c1",
		Env:       []string{"DELTA_RUN_ID=r1", "DELTA_RUN_DIR=" + filepath.Join(ws, ".delta", "r1")},
		Arguments: json.RawMessage(`{"command":"echo \"[$CODING_TEST_PASSED_TOKEN][$CODING_TEST_PLAIN][$DELTA_RUN_ID][${DELTA_RUN_DIR#$PWD/}]\""}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[passed-through][visible][r1][.delta/r1]\n"; res.Output != want {
		t.Errorf("shell saw %q, want %q", res.Output, want)
	}
}

// TestShellTimeoutKillsProcessTree: a command that sleeps past timeout_ms
// is stopped together with what it started in the background, and the
// model is told so and how to retry.
func TestShellTimeoutKillsProcessTree(t *testing.T) {
	ws := t.TempDir()
	// The command must get as far as starting its child before the
	// timeout: on a loaded machine a short timeout may stop it sooner, so
	// the timeout doubles until it does.
	var res sdk.CallResult
	timeout := 300
	for {
		res = call(t, &Tools{}, ws, "shell", `{"command":"sleep 300 & echo $! > child.pid; echo started; sleep 300","timeout_ms":`+strconv.Itoa(timeout)+`}`)
		if _, err := os.Stat(filepath.Join(ws, "child.pid")); err == nil {
			break
		}
		if timeout *= 2; timeout > 60000 {
			t.Fatalf("the command never started its child: %q", res.Output)
		}
	}
	if !res.IsError {
		t.Errorf("a timed-out command is not an error: %q", res.Output)
	}
	for _, want := range []string{"[ERROR: Command timed out after " + strconv.Itoa(timeout) + "ms; it and every process it started were stopped.",
		"setting the timeout_ms parameter (at most 600000)"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("shell timeout output %q lacks %q", res.Output, want)
		}
	}
	data, err := os.ReadFile(filepath.Join(ws, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The background sleep was killed with its group: wait for it to be
	// gone (reaped by init), with a generous deadline.
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d still runs after the timeout", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestShellTimeouts(t *testing.T) {
	tests := []struct {
		name     string
		config   int
		asked    int64
		deadline time.Duration // 0: none
		want     int64
		note     string
	}{
		{"default", 0, 0, 0, DefaultShellTimeoutMS, ""},
		{"config default", 120000, 0, 0, 120000, ""},
		{"asked", 0, 2500, 0, 2500, ""},
		{"capped", 0, 900000, 0, MaxShellTimeoutMS, "[timeout_ms 900000 is above the maximum; using 600000]"},
		{"host deadline", 0, 600000, time.Minute, 0, "lowered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := &Tools{Config: Config{ShellTimeoutMS: tt.config}}
			var dl time.Time
			if tt.deadline > 0 {
				dl = time.Now().Add(tt.deadline)
			}
			got, note := tools.shellTimeout(tt.asked, dl, "timeout_ms")
			if tt.want != 0 && got != tt.want || tt.want == 0 && (got > tt.deadline.Milliseconds()-deadlineMargin.Milliseconds() || got < 1000) {
				t.Errorf("shellTimeout(%d) = %d, want %d", tt.asked, got, tt.want)
			}
			if !strings.Contains(note, tt.note) || tt.note == "" && note != "" {
				t.Errorf("shellTimeout(%d) note = %q, want %q", tt.asked, note, tt.note)
			}
		})
	}
}

// recordDir makes the directory of a call's record as the plugin host
// does (.delta/RUN/io/tool_executions/NAME) and returns it.
func recordDir(t *testing.T, ws, runID string) string {
	t.Helper()
	dir := filepath.Join(ws, ".delta", runID, "io", "tool_executions", "T_tool_c1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestShellKeepsWholeOutput: a long output is cut to the shell's limits
// with a marker naming the file (in the call's record directory, which the
// host passes) that holds all of it; the command sees the run's variables
// the host passes.
func TestShellKeepsWholeOutput(t *testing.T) {
	ws := t.TempDir()
	recDir := recordDir(t, ws, "r1")
	tools := &Tools{}
	res, err := tools.Call(context.Background(), sdk.CallRequest{Name: "shell", WorkDir: ws, RunID: "r1", CallID: "c1",
		RecordDir: recDir, Env: []string{"DELTA_RUN_ID=r1", "DELTA_CALL_ID=c1"},
		Arguments: json.RawMessage(`{"command":"echo \"$DELTA_RUN_ID $DELTA_CALL_ID\"; head -c 100000 /dev/zero | tr '\\0' x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Output)); n > sdk.CommandLimits.MaxChars+1000 || !strings.Contains(res.Output, "[WARNING: Tool output was truncated.") {
		t.Fatalf("shell output (%d chars) is not cut with a marker: %.300q", n, res.Output)
	}
	if !strings.HasPrefix(res.Output, "r1 c1\n") {
		t.Errorf("the command did not see DELTA_RUN_ID and DELTA_CALL_ID: %.50q", res.Output)
	}
	_, after, ok := strings.Cut(res.Output, "(100006 bytes, 2 lines) is in ")
	if !ok {
		t.Fatalf("marker does not give the whole size and file: %.500q", res.Output)
	}
	file, _, _ := strings.Cut(after, ":")
	data, err := os.ReadFile(filepath.Join(ws, file))
	if err != nil {
		t.Fatalf("the file the marker names: %v", err)
	}
	if len(data) != 100006 || !strings.HasPrefix(filepath.Join(ws, file), recDir+string(filepath.Separator)) {
		t.Errorf("whole output kept in %s: %d bytes, want 100006 under the run's tool records", file, len(data))
	}
}
