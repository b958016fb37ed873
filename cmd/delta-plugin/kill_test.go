package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
)

// TestEngineSIGKILLLeavesNoPlugin kills delta-run with SIGKILL while its
// plugin process runs, and checks the plugin does not outlive it.
func TestEngineSIGKILLLeavesNoPlugin(t *testing.T) {
	bin := clitest.BinDir(t)
	work := t.TempDir()
	pluginDir := filepath.Join(work, "plugins")
	env := append(os.Environ(), "DELTA_PLUGIN_DIR="+pluginDir, "HOME="+work)
	install := exec.Command(filepath.Join(bin, "delta-plugin"), "install", filepath.Join(bin, "delta-plugin-coding"))
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	agentDir := filepath.Join(work, "agent")
	files := map[string]string{
		"agent.yaml":       "name: k\nllm: {provider: scripted, model: scripted, script: script.yaml}\nplugins: [{name: coding}]\ntools:\n  - name: wait\n    exec: \"sleep 60\"\n",
		"script.yaml":      "turns:\n  - content: wait\n    tool_calls: [{name: wait, args: {}}]\n  - content: done\n",
		"context.yaml":     "sources:\n  - type: journal\n    id: h\n",
		"system_prompt.md": "test\n",
	}
	os.MkdirAll(agentDir, 0o755)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(agentDir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := exec.Command(filepath.Join(bin, "delta-run"), "run", "--agent", agentDir, "-w", filepath.Join(work, "ws"), "-m", "go", "-y")
	run.Env = env
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	plugin := filepath.Join(pluginDir, "delta-plugin-coding")
	var pid int
	for i := 0; i < 1000 && pid == 0; i++ { // wait for delta-run to start the plugin
		pid = descendantRunning(run.Process.Pid, plugin)
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatalf("delta-run did not start %s", plugin)
	}
	run.Process.Signal(syscall.SIGKILL)
	run.Wait()
	for i := 0; i < 500 && alive(pid); i++ { // Pdeathsig is delivered asynchronously
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("plugin process %d outlived the SIGKILLed delta-run", pid)
	}
}

// descendantRunning returns the pid of a live descendant of parent (the
// plugin runs under delta-run's tool host) running exe, or 0.
func descendantRunning(parent int, exe string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); target != exe {
			continue
		}
		if descends(pid, parent) && alive(pid) {
			return pid
		}
	}
	return 0
}

// stat returns the fields of /proc/pid/stat after the command name.
func stat(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// descends reports whether pid is a descendant of ancestor.
func descends(pid, ancestor int) bool {
	for p := ppid(pid); p > 1; p = ppid(p) {
		if p == ancestor {
			return true
		}
	}
	return false
}

func ppid(pid int) int {
	f := stat(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	f := stat(pid)
	return len(f) > 0 && f[0] != "Z"
}
