package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
)

// env is the environment of the real binaries in a test: them first on
// PATH, a private HOME, no Delta variables of the developer's.
func env(t testing.TB, url string) []string {
	bin := clitest.BinDir(t)
	home := t.TempDir()
	out := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "NO_COLOR=1", cluster.EnvURL + "=" + url}
	return out
}

// proc is a delta-cluster subprocess whose stderr the test can read.
type proc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.Write(b)
}

// Stderr is what the process wrote on stderr so far.
func (p *proc) Stderr() string { p.mu.Lock(); defer p.mu.Unlock(); return p.stderr.String() }

// start starts delta-cluster ARGS in the background; the test's end kills it.
func start(t testing.TB, environ []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(filepath.Join(clitest.BinDir(t), "delta-cluster"), args...), done: make(chan struct{})}
	p.cmd.Env = environ
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("delta-cluster %s stderr:\n%s", strings.Join(args, " "), p.Stderr())
		}
	})
	return p
}

// wait waits for p to exit and returns its exit code.
func (p *proc) wait(t testing.TB) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("delta-cluster %s did not exit; stderr:\n%s", strings.Join(p.cmd.Args[1:], " "), p.Stderr())
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *proc) signal(t testing.TB, sig syscall.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// run runs delta-cluster ARGS to its end and returns stdout and the exit code.
func run(t testing.TB, environ []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(clitest.BinDir(t), "delta-cluster"), args...)
	cmd.Env = environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("delta-cluster %s: %v", strings.Join(args, " "), err)
	}
	if code != 0 {
		t.Logf("delta-cluster %s exited %d; stderr:\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String(), code
}

// poll calls cond until it holds, failing the test after a generous bound.
func poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeAgent writes an agent directory of the scripted provider: files
// maps names to contents (agent.yaml and script.yaml at least); a file
// whose name ends in .sh is made executable.
func writeAgent(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	base := map[string]string{"system_prompt.md": "x\n", "context.yaml": "sources:\n  - type: journal\n    id: conversation_history\n"}
	for name, body := range files {
		base[name] = body
	}
	for name, body := range base {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeTasks writes one task line per element of tasks.
func writeTasks(t testing.TB, tasks []map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	for _, task := range tasks {
		line, _ := json.Marshal(task)
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// results parses the JSONL of delta batch results.
func results(t testing.TB, out string) map[string]cluster.Result {
	t.Helper()
	got := map[string]cluster.Result{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r cluster.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a results line is not JSON: %v: %s", err, sc.Text())
		}
		if _, dup := got[r.Task]; dup {
			t.Fatalf("task %s has two result lines", r.Task)
		}
		got[r.Task] = r
	}
	return got
}

// lines reads a marker file's lines (none when it does not exist).
func lines(t testing.TB, path string) []string {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

func taskIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("t%02d", i+1)
	}
	return ids
}

// ctxT bounds a test's cluster calls.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
