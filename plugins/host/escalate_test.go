package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/install"
)

// A plugin call the sandbox refused is marked so, and the toolbox it
// offers for the escalation runs it again in an unconfined process of the
// plugin, once, leaving the confined process as it was.
func TestUnsandboxedPluginCall(t *testing.T) {
	if s := sandbox.Probe(); !s.FS {
		t.Skipf("this kernel cannot sandbox (Landlock ABI %d): %v", s.ABI, s.Err)
	}
	dir := t.TempDir()
	if _, err := install.Install(context.Background(), filepath.Join(binDir, "delta-plugin-coding"), install.Options{Dir: dir, Name: "coding"}); err != nil {
		t.Fatalf("Install() error = %v", err)
	}
	ws, outside := t.TempDir(), t.TempDir()
	rules := &sandbox.Rules{Mode: sandbox.WorkspaceWrite, Write: []string{ws, "/dev/null"}}
	h := newHost(t, dir, host.Options{Sandbox: rules}, agent.PluginRef{Name: "coding"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"command":"echo out >> ` + outside + `/x && echo wrote"}`)
	run := engine.RunInfo{WorkDir: ws, RunID: "r1"}
	out, err := tb.Call(context.Background(), run, "c1", "shell", args)
	if err != nil {
		t.Fatal(err)
	}
	if !out.SandboxRefused || !out.IsError || !strings.Contains(out.Observation, "(the sandbox refused this") {
		t.Fatalf("confined call = %+v, want a refusal marked SandboxRefused", out)
	}
	free, ok := tb.Unsandboxed("shell")
	if !ok {
		t.Fatal("Unsandboxed(shell) = false, want the unconfined toolbox")
	}
	if _, ok := tb.Unsandboxed("no_such_tool"); ok {
		t.Error("Unsandboxed(no_such_tool) = true")
	}
	out, err = free.Call(context.Background(), run, "c1", "shell", args)
	if err != nil {
		t.Fatal(err)
	}
	if out.IsError || out.SandboxRefused || !strings.Contains(out.Observation, "wrote") {
		t.Errorf("unconfined call = %+v, want it to succeed", out)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "x")); err != nil || string(b) != "out\n" {
		t.Errorf("outside/x = %q, %v, want one line written by the unconfined call", b, err)
	}
	// The confined process still refuses.
	if out, err := tb.Call(context.Background(), run, "c2", "shell", args); err != nil || !out.SandboxRefused {
		t.Errorf("confined call after the escalation = %+v, %v, want refused again", out, err)
	}
}

// Without a sandbox, nothing is offered to run outside it.
func TestUnsandboxedNeedsASandbox(t *testing.T) {
	h := newHost(t, installed(t), host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tb.Unsandboxed("echo"); ok {
		t.Error("Unsandboxed(echo) = true in a run without a sandbox")
	}
}
