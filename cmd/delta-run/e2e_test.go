package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/runs"
)

const testKey = "sk-test-secret-key-4242"

// writeAgent creates an agent directory with the given agent.yaml body
// (name and context added) and returns its path.
func writeAgent(t testing.TB, yaml string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agent")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	all := map[string]string{
		"agent.yaml":       "name: e2e\n" + yaml,
		"system_prompt.md": "You are a test agent.\n",
		"context.yaml": "sources:\n  - type: file\n    id: system_prompt\n    path: '${AGENT_HOME}/system_prompt.md'\n" +
			"  - type: journal\n    id: conversation_history\n",
	}
	for k, v := range files {
		all[k] = v
	}
	for name, body := range all {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// deltaRun prepares the real delta-run binary with a clean environment.
func deltaRun(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(filepath.Join(clitest.BinDir(t), "delta-run"), args...)
	base := []string{"PATH=" + clitest.BinDir(t) + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "NO_COLOR=1"}
	cmd.Env = append(base, env...)
	return cmd
}

// runDelta runs delta-run to completion and returns stdout, stderr and the
// exit code.
func runDelta(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := deltaRun(t, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

func readEvents(t *testing.T, path string) []journal.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []journal.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var ev journal.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("journal line %q: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: events lost or duplicated", i+1, ev.Seq)
		}
	}
	return evs
}

func ofType(evs []journal.Event, typ journal.Type) []journal.Event {
	var out []journal.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// waitFor polls cond (a file appearing, a line written) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileContains(path, s string) func() bool {
	return func() bool {
		data, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(data), s)
	}
}

func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	// A zombie awaiting its reaper is gone for our purposes.
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || strings.Contains(string(data), ") Z ")
}

func tc(name, args string) llm.ToolCall { return llm.ToolCall{Name: name, Arguments: args} }

// TestThreeToolRunAgainstOpenAIServer drives a real run over HTTP: three
// tools, their observations back to the model, the secret filter and the
// API key absent from every file of the run.
func TestThreeToolRunAgainstOpenAIServer(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Fail(500, `{"error":{"message":"overloaded"}}`) // retried by the provider
	srv.Reply(llm.Response{Content: "making a dir", ToolCalls: []llm.ToolCall{tc("make_dir", `{"path":"out"}`)}, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}})
	srv.ReplyToolCalls(tc("write_file", `{"path":"out/a.txt","content":"alpha\n"}`), tc("show_env", `{}`))
	srv.Reply(llm.Response{Content: `{"done": true}`, Usage: llm.Usage{InputTokens: 300, OutputTokens: 5}})
	agentDir := writeAgent(t, "llm:\n  model: test-model\ntools:\n"+
		"  - name: make_dir\n    exec: \"mkdir -p ${path}\"\n"+
		"  - name: write_file\n    exec: \"tee ${path}\"\n    stdin: content\n"+
		"  - name: show_env\n    exec: \"env\"\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey, "MY_SERVICE_TOKEN=hunter2", "PLAIN_VAR=visible"}
	stdout, stderr, code := runDelta(t, env, "run", "-v", "--agent", agentDir, "-w", ws, "-m", "do it", "--run-id", "three", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The retried 500 is in the -v stream and engine.log.
	if !strings.Contains(stderr, "model request attempt 1/") || !strings.Contains(stderr, "retrying in") {
		t.Errorf("-v stream does not show the retry:\n%s", stderr)
	}
	if !fileContains(filepath.Join(ws, ".delta", "three", "engine.log"), "HTTP 500")() {
		t.Error("engine.log does not record the retried HTTP 500")
	}
	if !fileContains(filepath.Join(ws, ".delta", "three", "metadata.json"), `"model_usage": {`)() {
		t.Error("metadata.json has no model_usage")
	}
	var res runs.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not a RunResult: %v\n%s", err, stdout)
	}
	var result map[string]bool
	if err := json.Unmarshal(res.Result, &result); err != nil || !result["done"] || res.Status != "COMPLETED" || res.Metrics.Iterations != 3 {
		t.Errorf("RunResult = %+v", res)
	}
	if res.Metrics.Usage.InputTokens < 400 || res.Metrics.Usage.ModelUsage == nil {
		t.Errorf("usage = %+v", res.Metrics.Usage)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "out", "a.txt")); err != nil || string(data) != "alpha\n" {
		t.Errorf("out/a.txt = %q, %v", data, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("server saw %d requests, want 4 (one 500 retried)", len(reqs))
	}
	var names []string
	for _, s := range reqs[1].Tools {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "make_dir,write_file,show_env,ask_human" {
		t.Errorf("tools offered = %s", got)
	}
	last := reqs[3].Messages
	var envObs string
	for _, m := range last {
		if m.Role == llm.RoleTool && strings.Contains(m.Content, "PLAIN_VAR") {
			envObs = m.Content
		}
	}
	if envObs == "" || strings.Contains(envObs, "hunter2") || strings.Contains(envObs, testKey) {
		t.Errorf("env observation leaks a secret or is missing:\n%s", envObs)
	}
	// The key appears in no file of the run.
	err := filepath.Walk(filepath.Join(ws, ".delta"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(testKey)) {
			t.Errorf("%s contains the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "three", "journal.jsonl"))
	if n := len(ofType(evs, journal.ActionResult)); n != 3 {
		t.Errorf("%d ACTION_RESULT events, want 3", n)
	}
}

// slowAgent has a tool that records its pid, then sleeps (ignoring
// SIGTERM when asked), and a script whose second turn answers.
func slowAgent(t *testing.T, trapTerm bool) string {
	trap := ""
	if trapTerm {
		trap = "trap '' TERM; "
	}
	return writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n"+
		"  - name: slow\n    shell: \""+trap+"echo $$ > tool.pid; sleep 300 & echo $! > child.pid; wait\"\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: slow\n        args: {}\n  - content: recovered\n"})
}

// readPid waits for a pid file a tool writes and returns its pid. The
// shell creates the file before it writes the number, so an empty or
// partial file means "not yet", not an error.
func readPid(t *testing.T, path string) int {
	t.Helper()
	pid := 0
	waitFor(t, "a pid in "+filepath.Base(path), func() bool {
		data, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})
	return pid
}

// TestInterruptThenContinue: SIGINT, SIGTERM or SIGHUP (closed terminal)
// while a tool runs stops the tool, journals its interrupted result and
// ENGINE_END INTERRUPTED, exits 130; continue then completes the run.
func TestInterruptThenContinue(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) { interruptThenContinue(t, sig) })
	}
}

func interruptThenContinue(t *testing.T, sig os.Signal) {
	agentDir := slowAgent(t, false)
	ws := t.TempDir()
	cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "int")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the tool to start", func() bool { _, err := os.Stat(filepath.Join(ws, "child.pid")); return err == nil })
	child := readPid(t, filepath.Join(ws, "child.pid"))
	// While the run is live nobody else may drive it.
	if _, stderr, code := runDelta(t, nil, "continue", "--run-id", "int", "-w", ws, "--force"); code != 1 || !strings.Contains(stderr, "run int is currently executing (PID "+strconv.Itoa(cmd.Process.Pid)+")") ||
		!strings.Contains(stderr, "kill -INT "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("continue of a live run = %d\n%s", code, stderr)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130\n%s", err, errb.String())
	}
	waitFor(t, "the tool's child to die", func() bool { return processGone(child) })
	runDir := filepath.Join(ws, ".delta", "int")
	evs := readEvents(t, filepath.Join(runDir, "journal.jsonl"))
	results := ofType(evs, journal.ActionResult)
	if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].ObservationContent, "interrupted") {
		t.Errorf("ACTION_RESULT = %+v", results)
	}
	if end := evs[len(evs)-1]; end.Type != journal.EngineEnd || end.Status != "INTERRUPTED" {
		t.Errorf("last event = %+v", end)
	}
	if !fileContains(filepath.Join(runDir, "metadata.json"), `"status": "INTERRUPTED"`)() {
		t.Error("metadata status is not INTERRUPTED")
	}
	stdout, stderr, code := runDelta(t, nil, "continue", "--run-id", "int", "-w", ws, "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "recovered" {
		t.Fatalf("continue = %d %q\n%s", code, stdout, stderr)
	}
	readEvents(t, filepath.Join(runDir, "journal.jsonl"))
}

// TestKill9ThenContinue: SIGKILL while a tool runs; the tool dies with the
// engine, the janitor turns the stale RUNNING into INTERRUPTED, and the
// run completes with the unfinished call recorded as interrupted.
func TestKill9ThenContinue(t *testing.T) {
	agentDir := slowAgent(t, false)
	ws := t.TempDir()
	cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "k9")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the tool to start", func() bool { _, err := os.Stat(filepath.Join(ws, "child.pid")); return err == nil })
	child := readPid(t, filepath.Join(ws, "child.pid"))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitFor(t, "the tool's child to die with the engine", func() bool { return processGone(child) })
	runDir := filepath.Join(ws, ".delta", "k9")
	if !fileContains(filepath.Join(runDir, "metadata.json"), `"status": "RUNNING"`)() {
		t.Fatal("metadata should still say RUNNING after kill -9")
	}
	// list-runs sees the dead process: the run is stale and resumable.
	if out, _, _ := runDelta(t, nil, "list-runs", "-w", ws); !strings.Contains(out, "RUNNING (stale)") {
		t.Errorf("list-runs = %q, want RUNNING (stale)", out)
	}
	if out, stderr, code := runDelta(t, nil, "list-runs", "-w", ws, "--resumable", "--first"); code != 0 || strings.TrimSpace(out) != "k9" {
		t.Errorf("list-runs --resumable --first = %d %q\n%s", code, out, stderr)
	}
	stdout, stderr, code := runDelta(t, nil, "continue", "--run-id", "k9", "-w", ws, "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "recovered" {
		t.Fatalf("continue = %d %q\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "Janitor") {
		t.Errorf("stderr does not mention the janitor:\n%s", stderr)
	}
	evs := readEvents(t, filepath.Join(runDir, "journal.jsonl"))
	reqs, results := ofType(evs, journal.ActionRequest), ofType(evs, journal.ActionResult)
	if len(reqs) != 1 || len(results) != 1 || results[0].CallID != reqs[0].CallID || !results[0].IsError {
		t.Errorf("requests %+v results %+v: want one call, resolved once as interrupted", reqs, results)
	}
}

// TestToolIgnoringSIGTERMIsKilled: a tool that traps SIGTERM and leaves a
// child behind is killed at its timeout, child included; the timeout is an
// observation, not a crash.
func TestToolIgnoringSIGTERMIsKilled(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n"+
		"  - name: stubborn\n    timeout_ms: 300\n    shell: \"trap '' TERM; sleep 300 & echo $! > child.pid; while :; do sleep 0.05; done\"\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: stubborn\n        args: {}\n  - content: ok\n"})
	ws := t.TempDir()
	_, stderr, code := runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "st")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if child := readPid(t, filepath.Join(ws, "child.pid")); !processGone(child) {
		t.Errorf("the tool's child %d survived", child)
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "st", "journal.jsonl"))
	res := ofType(evs, journal.ActionResult)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].ObservationContent, "timed out") {
		t.Errorf("ACTION_RESULT = %+v", res)
	}
}

// TestHugeOutputStaysBounded: a tool printing 50 MB; the observation is
// truncated, the full output is on disk and delta-run's peak memory stays
// far below the output size.
func TestHugeOutputStaysBounded(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n"+
		"  - name: flood\n    exec: \"head -c ${n} /dev/zero\"\n",
		map[string]string{"small.yaml": "turns:\n  - tool_calls:\n      - name: flood\n        args: {n: '10'}\n  - content: ok\n",
			"script.yaml": "turns:\n  - tool_calls:\n      - name: flood\n        args: {n: '52428800'}\n  - content: ok\n"})
	ws := t.TempDir()
	peak := func(script, id string) int64 {
		cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", id, "--llm", "scripted:"+filepath.Join(agentDir, script))
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s", err, errb.String())
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB
	}
	base := peak("small.yaml", "small")
	if grown := peak("script.yaml", "big") - base; grown > 16*1024 {
		t.Errorf("delta-run peak RSS grew by %d KiB for 50 MB of tool output (baseline %d KiB)", grown, base)
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "big", "journal.jsonl"))
	res := ofType(evs, journal.ActionResult)
	if len(res) != 1 || len(res[0].ObservationContent) > 40000 || !strings.Contains(res[0].ObservationContent, "truncated") {
		t.Fatalf("observation of %d bytes", len(res[0].ObservationContent))
	}
	// The marker gives the whole output's size, not the in-memory
	// capture's, and the log holding it (the output file ACTION_REQUEST
	// named), as a path from the workspace.
	if want := "The whole output (52428800 bytes, 1 line) is in .delta/big/io/output/1_call_0_0.stdout"; !strings.Contains(res[0].ObservationContent, want) ||
		strings.Count(res[0].ObservationContent, "[WARNING") != 1 {
		t.Errorf("observation does not say %q once", want)
	}
	var rec struct {
		StdoutFile  string `json:"stdout_file"`
		StdoutBytes int64  `json:"stdout_bytes"`
	}
	data, err := os.ReadFile(filepath.Join(ws, ".delta", "big", res[0].ExecutionRef))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(ws, ".delta", "big", rec.StdoutFile))
	if err != nil || st.Size() != 52428800 || rec.StdoutBytes != 52428800 {
		t.Errorf("full output on disk: %v, %v, record says %d", st, err, rec.StdoutBytes)
	}
}

// TestConcurrentRunsOneWorkspace: 20 runs at once in one workspace all
// complete, each in its own run directory.
func TestConcurrentRunsOneWorkspace(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n  - name: say\n    exec: \"echo ${w}\"\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: say\n        args: {w: hi}\n  - content: ok\n"})
	ws := t.TempDir()
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, codes[i] = runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", fmt.Sprint("task ", i), "--run-id", fmt.Sprint("c", i))
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("run %d exited %d", i, c)
		}
	}
	stdout, _, _ := runDelta(t, nil, "list-runs", "-w", ws, "--status", "COMPLETED", "--format", "json")
	var list []runSummary
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list) != 20 {
		t.Fatalf("list-runs: %d runs, %v", len(list), err)
	}
	for i := range codes {
		evs := readEvents(t, filepath.Join(ws, ".delta", fmt.Sprint("c", i), "journal.jsonl"))
		if msg := ofType(evs, journal.UserMessage); len(msg) != 1 || msg[0].Content != fmt.Sprint("task ", i) {
			t.Errorf("run c%d has the wrong task: %+v", i, msg)
		}
	}
}

// TestConcurrentClaimsOfOneRunID: 10 runs asking for one run ID; exactly
// one wins, the others fail with 126 at once.
func TestConcurrentClaimsOfOneRunID(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\n",
		map[string]string{"script.yaml": "turns:\n  - content: ok\n"})
	ws := t.TempDir()
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, codes[i] = runDelta(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", fmt.Sprint("claim ", i), "--run-id", "shared")
		}()
	}
	wg.Wait()
	wins := 0
	for _, c := range codes {
		switch c {
		case 0:
			wins++
		case 126:
		default:
			t.Errorf("unexpected exit %d", c)
		}
	}
	if wins != 1 {
		t.Fatalf("%d runs won the ID, want 1 (codes %v)", wins, codes)
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "shared", "journal.jsonl"))
	if n := len(ofType(evs, journal.EngineStart)); n != 1 {
		t.Errorf("%d ENGINE_START events in the shared run, want 1", n)
	}
}

// TestInterruptDuringModelCall: SIGINT while the model is thinking ends
// the run INTERRUPTED with a consistent journal; continue finishes it.
func TestInterruptDuringModelCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Delay(time.Minute)
	srv.ReplyText("too late")
	agentDir := writeAgent(t, "llm:\n  model: m\n", nil)
	ws := t.TempDir()
	env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
	cmd := deltaRun(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "slowmodel", "--format", "json")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the model request", func() bool { return len(srv.Requests()) > 0 })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130", err)
	}
	var res runs.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Status != "INTERRUPTED" || res.Error == nil || res.Error.Type != "interrupted" {
		t.Fatalf("RunResult = %+v (%v)", res, err)
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "slowmodel", "journal.jsonl"))
	if end := evs[len(evs)-1]; end.Type != journal.EngineEnd || end.Status != "INTERRUPTED" || len(ofType(evs, journal.Thought)) != 0 {
		t.Fatalf("journal ends with %+v", end)
	}
	srv.Delay(0)
	srv.ReplyText("finished")
	stdout, stderr, code := runDelta(t, env, "continue", "--run-id", "slowmodel", "-w", ws, "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "finished" {
		t.Fatalf("continue = %d %q\n%s", code, stdout, stderr)
	}
}

// TestClosedStderrPipe: a reader of the live stream that goes away
// (`delta run … 2>&1 | head -1`) neither kills the run nor leaves it
// RUNNING: the stream is dropped and the run completes.
func TestClosedStderrPipe(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n  - name: touch\n    exec: \"touch ${name}\"\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: touch\n        args: {name: one}\n" +
			"  - tool_calls:\n      - name: touch\n        args: {name: two}\n  - content: done\n"})
	ws := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the first line
	cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "pipe", "--format", "raw")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, w
	err = cmd.Run()
	w.Close()
	if err != nil || strings.TrimSpace(out.String()) != "done" {
		t.Fatalf("run = %v, stdout %q", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "two")); err != nil {
		t.Errorf("second tool call did not run: %v", err)
	}
	evs := readEvents(t, filepath.Join(ws, ".delta", "pipe", "journal.jsonl"))
	if end := evs[len(evs)-1]; end.Type != journal.EngineEnd || end.Status != "COMPLETED" {
		t.Errorf("last event = %+v", end)
	}
	if !fileContains(filepath.Join(ws, ".delta", "pipe", "metadata.json"), `"status": "COMPLETED"`)() {
		t.Error("metadata status is not COMPLETED")
	}
}

// TestInterruptedAskHumanContinueAnswers: Ctrl-C while -i waits for the
// answer leaves the question open; continue -m MSG answers it with MSG
// (seeds/000 §2.5: a pending ask_human gets its result before the model
// turns again) instead of asking again and dropping MSG.
func TestInterruptedAskHumanContinueAnswers(t *testing.T) {
	agentDir := writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\n",
		map[string]string{"script.yaml": "turns:\n  - tool_calls:\n      - name: ask_human\n        args: {prompt: \"What is your name?\"}\n  - content: done\n"})
	ws := t.TempDir()
	r, w, err := os.Pipe() // stdin that stays open and silent
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	cmd := deltaRun(t, nil, "run", "-i", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "ask")
	cmd.Stdin = r
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	journalPath := filepath.Join(ws, ".delta", "ask", "journal.jsonl")
	waitFor(t, "the question", fileContains(journalPath, "HUMAN_INPUT_REQUEST"))
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130\n%s", err, errb.String())
	}
	stdout, stderr, code := runDelta(t, nil, "continue", "--run-id", "ask", "-w", ws, "-m", "Alice", "--format", "raw")
	if code != 0 || strings.TrimSpace(stdout) != "done" {
		t.Fatalf("continue = %d %q\n%s", code, stdout, stderr)
	}
	evs := readEvents(t, journalPath)
	got := ofType(evs, journal.HumanInputReceived)
	if len(got) != 1 || got[0].Response != "Alice" {
		t.Errorf("HUMAN_INPUT_RECEIVED = %+v", got)
	}
	if n := len(ofType(evs, journal.UserMessage)); n != 1 {
		t.Errorf("%d USER_MESSAGE events, want only the task", n)
	}
	if n := len(ofType(evs, journal.HumanInputRequest)); n != 1 {
		t.Errorf("%d HUMAN_INPUT_REQUEST events, want 1", n)
	}
}
