package execute

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/sandbox"
)

// requireLandlock skips a test only on a kernel without Landlock.
func requireLandlock(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(); !s.FS || !s.Net {
		t.Skipf("this kernel cannot sandbox (Landlock ABI %d): %v", s.ABI, s.Err)
	}
}

func TestRunSandboxedWrites(t *testing.T) {
	requireLandlock(t)
	forEachGuard(t, func(t *testing.T) {
		ws, outside := t.TempDir(), t.TempDir()
		r := &sandbox.Rules{Mode: sandbox.WorkspaceWrite, Write: []string{ws, "/dev/null"}}
		res, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo in > in.txt && echo out > " + outside + "/x"}, Dir: ws, Sandbox: r})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, "Permission denied") {
			t.Errorf("write outside: exit %d, stderr %q, want a failure saying Permission denied", res.ExitCode, res.Stderr)
		}
		if b, err := os.ReadFile(filepath.Join(ws, "in.txt")); err != nil || string(b) != "in\n" {
			t.Errorf("write inside: %q, %v, want \"in\\n\"", b, err)
		}
		if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
			t.Error("the write outside the workspace happened")
		}
		// The same command unsandboxed writes both.
		if res, err := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo out > " + outside + "/x"}, Dir: ws}); err != nil || res.ExitCode != 0 {
			t.Errorf("unsandboxed: %v, exit %d, stderr %q", err, res.ExitCode, res.Stderr)
		}
	})
}

func TestRunSandboxedNetwork(t *testing.T) {
	requireLandlock(t)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	connect := []string{"bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)}
	for _, tt := range []struct {
		name  string
		rules sandbox.Rules
		ok    bool
	}{
		{"off", sandbox.Rules{Mode: sandbox.WorkspaceWrite}, false},
		{"another port", sandbox.Rules{Mode: sandbox.WorkspaceWrite, Ports: []uint16{uint16(port + 1)}}, false},
		{"this port", sandbox.Rules{Mode: sandbox.WorkspaceWrite, Ports: []uint16{uint16(port)}}, true},
		{"on", sandbox.Rules{Mode: sandbox.WorkspaceWrite, Network: true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), Spec{Argv: connect, Sandbox: &tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.ExitCode == 0; got != tt.ok {
				t.Errorf("connect: exit %d, stderr %q, want success %v", res.ExitCode, res.Stderr, tt.ok)
			}
		})
	}
}

// BenchmarkRunTrueSandboxed is BenchmarkRunTrue confined to a
// workspace: the difference is the sandbox's cost per call (one more exec
// of the guard binary and the Landlock rules).
func BenchmarkRunTrueSandboxed(b *testing.B) {
	if s := sandbox.Probe(); !s.FS || !s.Net {
		b.Skipf("this kernel cannot sandbox (Landlock ABI %d): %v", s.ABI, s.Err)
	}
	r := &sandbox.Rules{Mode: sandbox.WorkspaceWrite, Write: []string{b.TempDir(), "/dev/null"}}
	forEachGuardB(b, func(b *testing.B) {
		for b.Loop() {
			if res, err := Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Sandbox: r}); err != nil || res.ExitCode != 0 {
				b.Fatal(err, res.Stderr)
			}
		}
	})
}
