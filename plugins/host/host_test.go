package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/install"
	"github.com/deltakit/delta/plugins/lock"
)

// binDir holds the plugin binaries TestMain builds.
var binDir string

func TestMain(m *testing.M) {
	if os.Getenv("HOST_TEST_ENGINE") == "1" {
		os.Exit(fakeEngine())
	}
	dir, err := os.MkdirTemp("", "host-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	cmd := exec.Command("go", "build", "-o", dir+"/", "./testdata/testplugin", "../coding/delta-plugin-coding")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build test plugins:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// installed installs the test plugin (as "test") into a fresh plugin
// directory and returns it.
func installed(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := install.Install(context.Background(), filepath.Join(binDir, "testplugin"), install.Options{Dir: dir, Name: "test"}); err != nil {
		t.Fatalf("Install() error = %v", err)
	}
	return dir
}

func newHost(t testing.TB, dir string, opts host.Options, refs ...agent.PluginRef) *host.Host {
	t.Helper()
	opts.Dir = dir
	h, err := host.New(refs, opts)
	if err != nil {
		t.Fatalf("host.New() error = %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func call(t testing.TB, tb engine.Toolbox, name, args string) engine.ToolOutcome {
	t.Helper()
	out, err := tb.Call(context.Background(), engine.RunInfo{WorkDir: "/ws", RunID: "r1"}, "c1", name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s) error = %v", name, err)
	}
	return out
}

func TestToolbox(t *testing.T) {
	dir := installed(t)
	h := newHost(t, dir, host.Options{}, agent.PluginRef{Name: "test", Tools: []string{"echo", "fail", "config"}, Config: map[string]any{"k": "v"}})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatalf("Toolbox() error = %v", err)
	}
	var names []string
	for _, s := range tb.Specs() {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"echo", "fail", "config"}, names); diff != "" {
		t.Errorf("Specs() names (-want +got):\n%s", diff)
	}
	if !tb.Has("echo") || tb.Has("crash") || tb.Plugin("echo") != "test" {
		t.Errorf("Has/Plugin do not follow the tools subset")
	}
	out := call(t, tb, "echo", `{"a":1}`)
	if out.Observation != `{"a":1} in /ws` || out.IsError || string(out.Data) != `{"echo":true}` {
		t.Errorf("Call(echo) = %+v", out)
	}
	if out := call(t, tb, "fail", `{}`); !out.IsError || out.Observation != "it failed" || out.ExitCode != 1 {
		t.Errorf("Call(fail) = %+v", out)
	}
	if out := call(t, tb, "config", `{}`); out.Observation != `{"k":"v"}` {
		t.Errorf("Call(config) = %q, want the agent.yaml config", out.Observation)
	}
	if _, err := tb.Call(context.Background(), engine.RunInfo{}, "c", "crash", nil); err == nil {
		t.Errorf("Call(crash) outside the subset succeeded")
	}
}

func TestOutputCap(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := call(t, tb, "big", `{}`)
	if n := len(out.Observation); n > observe.PluginMaxChars+400 || !strings.Contains(out.Observation, "10000 characters were removed from the middle") {
		t.Errorf("Call(big) = %d chars, want it capped with a warning", n)
	}
}

func TestToolboxUnknownSubsetTool(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test", Tools: []string{"nope"}})
	if _, err := h.Toolbox(context.Background()); err == nil || !strings.Contains(err.Error(), `no tool "nope"`) {
		t.Errorf("Toolbox() error = %v, want no tool \"nope\"", err)
	}
}

func TestCrashAndRestart(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	first := call(t, tb, "pid", `{}`).Observation
	out := call(t, tb, "crash", `{}`)
	if !out.IsError || !strings.Contains(out.Observation, "restarts on the next call") {
		t.Errorf("Call(crash) = %+v, want an error observation", out)
	}
	second := call(t, tb, "pid", `{}`)
	if second.IsError || second.Observation == first {
		t.Errorf("Call(pid) after crash = %+v, want a new process (first pid %s)", second, first)
	}
	c, _ := h.Client("test")
	if c.Starts() != 2 {
		t.Errorf("Starts() = %d, want 2", c.Starts())
	}
}

func TestHangTimesOut(t *testing.T) {
	// The timeout bounds each call, the restart of the plugin included, so
	// it must leave room for a process start on a loaded machine (300 ms
	// did not, on 2 busy cores); the hang itself never ends.
	h := newHost(t, installed(t), host.Options{TimeoutMS: 5000}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(call(t, tb, "pid", `{}`).Observation)
	out := call(t, tb, "hang", `{}`)
	if !out.IsError || !strings.Contains(out.Observation, "timed out") {
		t.Errorf("Call(hang) = %+v, want a timeout observation", out)
	}
	if alive(pid) {
		t.Errorf("hung plugin process %d still runs", pid)
	}
	if out := call(t, tb, "echo", `{}`); out.IsError {
		t.Errorf("Call(echo) after a hang = %+v", out)
	}
}

func TestChecksumRefusal(t *testing.T) {
	dir := installed(t)
	mark := filepath.Join(t.TempDir(), "started")
	t.Setenv("TESTPLUGIN_MARK", mark)
	bin := filepath.Join(dir, "delta-plugin-test")
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	f.Close()
	_, err = host.New([]agent.PluginRef{{Name: "test"}}, host.Options{Dir: dir})
	if !errors.Is(err, host.ErrChecksum) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("host.New() error = %v, want a checksum refusal", err)
	}
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the tampered plugin ran (marker file: %v)", err)
	}
}

func TestChecksumRefusalAtStart(t *testing.T) {
	// Tampering after resolution is caught by go-plugin's SecureConfig.
	dir := installed(t)
	mark := filepath.Join(t.TempDir(), "started")
	t.Setenv("TESTPLUGIN_MARK", mark)
	h := newHost(t, dir, host.Options{}, agent.PluginRef{Name: "test"})
	bin := filepath.Join(dir, "delta-plugin-test")
	data, _ := os.ReadFile(bin)
	data[len(data)-1] ^= 1
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Toolbox(context.Background()); !errors.Is(err, host.ErrChecksum) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("Toolbox() error = %v, want a checksum refusal", err)
	}
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the tampered plugin ran (marker file: %v)", err)
	}
}

func TestDiscovery(t *testing.T) {
	dir := installed(t)
	other := t.TempDir()
	// An unlocked delta-plugin-extra on PATH.
	extra := filepath.Join(other, "delta-plugin-extra")
	data, _ := os.ReadFile(filepath.Join(binDir, "testplugin"))
	os.WriteFile(extra, data, 0o755)
	t.Setenv("PATH", other+string(os.PathListSeparator)+os.Getenv("PATH"))
	lk, _ := lock.Read(dir)

	if _, err := host.Resolve(agent.PluginRef{Name: "extra"}, dir, lk); !errors.Is(err, host.ErrNotLocked) {
		t.Errorf("Resolve(unlocked on PATH) error = %v, want ErrNotLocked", err)
	}
	if b, err := host.Resolve(agent.PluginRef{Name: "extra", AllowPath: true}, dir, lk); err != nil || b.Locked || b.Path != extra {
		t.Errorf("Resolve(allow_path) = %+v, %v", b, err)
	}
	if _, err := host.Resolve(agent.PluginRef{Name: "absent"}, dir, lk); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("Resolve(absent) error = %v, want ErrNotFound", err)
	}
	// An explicit path must have the locked checksum.
	if b, err := host.Resolve(agent.PluginRef{Name: "test", Path: extra}, dir, lk); err != nil || !b.Locked {
		t.Errorf("Resolve(explicit path, same binary) = %+v, %v", b, err)
	}
	if _, err := host.Resolve(agent.PluginRef{Name: "test", Path: filepath.Join(binDir, "delta-plugin-coding")}, dir, lk); !errors.Is(err, host.ErrChecksum) {
		t.Errorf("Resolve(explicit path, other binary) error = %v, want ErrChecksum", err)
	}
	if _, err := host.Resolve(agent.PluginRef{Name: "extra", Path: extra}, dir, lk); !errors.Is(err, host.ErrNotLocked) {
		t.Errorf("Resolve(explicit unlocked path) error = %v, want ErrNotLocked", err)
	}
}

func TestHookPlugin(t *testing.T) {
	// A hook plugin need not be listed in agent.yaml: it is found by name.
	h := newHost(t, installed(t), host.Options{})
	d, err := h.Hook(context.Background(), "test", engine.HookRequest{Name: agent.PreLLMRequest, Payload: json.RawMessage(`{}`)})
	if err != nil || d.Action != engine.HookModify || string(d.Payload) != `{"hooked":"pre_llm_request"}` || !d.Ran {
		t.Errorf("Hook(pre_llm_request) = %+v, %v", d, err)
	}
	d, err = h.Hook(context.Background(), "test", engine.HookRequest{Name: agent.PreToolExecution, ToolName: "rm"})
	if err != nil || d.Action != engine.HookBlock || d.Reason != "no rm" {
		t.Errorf("Hook(pre_tool_execution rm) = %+v, %v", d, err)
	}
	// ask (or its alias escalate) has a human approve the call first.
	for tool, reason := range map[string]string{"deploy": "deploys need a human", "release": "releases too"} {
		d, err = h.Hook(context.Background(), "test", engine.HookRequest{Name: agent.PreToolExecution, ToolName: tool})
		if err != nil || d.Action != engine.HookAsk || d.Reason != reason {
			t.Errorf("Hook(pre_tool_execution %s) = %+v, %v; want ask", tool, d, err)
		}
	}
	if _, err := h.Hook(context.Background(), "absent", engine.HookRequest{Name: agent.OnRunEnd}); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("Hook(absent plugin) error = %v, want ErrNotFound", err)
	}
}

func TestCloseStopsProcess(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(call(t, tb, "pid", `{}`).Observation)
	if !alive(pid) {
		t.Fatalf("plugin %d not running", pid)
	}
	h.Close()
	if alive(pid) {
		t.Errorf("plugin %d still runs after Close", pid)
	}
}

// TestEngineSIGKILL runs a fake engine (this test binary) that starts the
// plugin, prints its pid and waits; after SIGKILL of the engine the plugin
// must go too.
func TestEngineSIGKILL(t *testing.T) {
	dir := installed(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HOST_TEST_ENGINE=1", "HOST_TEST_DIR="+dir)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid, child int
	if _, err := fmt.Fscan(stdout, &pid, &child); err != nil || !alive(pid) || !alive(child) {
		cmd.Process.Kill()
		t.Fatalf("fake engine did not report a live plugin and child: %d, %d, %v", pid, child, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The kernel delivers Pdeathsig asynchronously; the plugin then ends
	// its whole process group.
	for i := 0; i < 3000 && (alive(pid) || alive(child)); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("plugin %d outlived the SIGKILLed engine", pid)
	}
	if alive(child) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("the plugin's child %d outlived the SIGKILLed engine", child)
	}
}

func fakeEngine() int {
	h, err := host.New([]agent.PluginRef{{Name: "test"}}, host.Options{Dir: os.Getenv("HOST_TEST_DIR")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out, _ := tb.Call(context.Background(), engine.RunInfo{}, "c", "pid", nil)
	child, _ := tb.Call(context.Background(), engine.RunInfo{}, "c", "spawn", nil)
	fmt.Println(out.Observation, child.Observation)
	time.Sleep(time.Hour)
	return 0
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}
