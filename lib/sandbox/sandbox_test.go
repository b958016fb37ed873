package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v, want %q", m, got, err, m)
		}
	}
	if _, err := ParseMode("workspace"); err == nil {
		t.Error(`ParseMode("workspace") = nil error, want one`)
	}
}

func TestRules(t *testing.T) {
	ws, run := t.TempDir(), t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	run, _ = filepath.EvalSymlinks(run)
	tmp := absClean(os.TempDir())
	tests := []struct {
		name string
		p    Policy
		want *Rules
	}{
		{"default is full access", Policy{}, nil},
		{"danger", Policy{Mode: DangerFullAccess, Writable: []string{"x"}}, nil},
		{"read-only writes only devices", Policy{Mode: ReadOnly, Writable: []string{"x"}},
			&Rules{Mode: ReadOnly, Write: append(append([]string(nil), devices...), run)}},
		{"workspace-write", Policy{Mode: WorkspaceWrite, Writable: []string{"build", "/opt/cache"}, Allow: []string{"localhost:8080", "[::1]:443"}},
			&Rules{Mode: WorkspaceWrite, Write: append(append([]string(nil), devices...), run, ws, tmp, filepath.Join(ws, "build"), "/opt/cache"), Ports: []uint16{8080, 443}}},
		{"network", Policy{Mode: WorkspaceWrite, Network: true},
			&Rules{Mode: WorkspaceWrite, Write: append(append([]string(nil), devices...), run, ws, tmp), Network: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.p.Rules(ws, run)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Rules() mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestBadAllow(t *testing.T) {
	for _, a := range []string{"localhost", "host:http", "host:0", "host:70000"} {
		if err := (Policy{Mode: WorkspaceWrite, Allow: []string{a}}).Check(); err == nil {
			t.Errorf("Check(allow %q) = nil, want an error", a)
		}
	}
}

func TestRefused(t *testing.T) {
	for out, want := range map[string]bool{
		"sh: 1: cannot create /etc/x: Permission denied": true,
		"touch: cannot touch 'x': Read-only file system": true,
		"curl: (7) Failed to connect":                    false,
		"exit status 1":                                  false,
	} {
		if got := Refused(out); got != want {
			t.Errorf("Refused(%q) = %v, want %v", out, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	agentP := &Policy{Mode: WorkspaceWrite, Network: true}
	recorded := &Policy{Mode: ReadOnly}
	tests := []struct {
		name, flag, env string
		policies        []*Policy
		want            Policy
	}{
		{"default", "", "", nil, Policy{Mode: DangerFullAccess}},
		{"agent", "", "", []*Policy{nil, agentP}, *agentP},
		{"recorded wins over agent", "", "", []*Policy{recorded, agentP}, *recorded},
		{"env replaces the mode only", "", "read-only", []*Policy{nil, agentP}, Policy{Mode: ReadOnly, Network: true}},
		{"flag wins over env", "danger-full-access", "read-only", []*Policy{agentP}, Policy{Mode: DangerFullAccess, Network: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(Env, tt.env)
			got, err := Resolve(tt.flag, tt.policies...)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Resolve(%q) mismatch (-want +got):\n%s", tt.flag, d)
			}
		})
	}
	t.Setenv(Env, "none")
	if _, err := Resolve(""); err == nil || !strings.Contains(err.Error(), "DELTA_SANDBOX") {
		t.Errorf("Resolve with DELTA_SANDBOX=none = %v, want an error naming DELTA_SANDBOX", err)
	}
}

// TestSettleFallback: where Landlock cannot filter TCP (forced by
// LandlockNetEnv), no network means a network namespace, all of it needs
// nothing, and a list of ports cannot be honoured.
func TestSettleFallback(t *testing.T) {
	if s := Probe(); !s.FS || !s.Netns {
		t.Skipf("no Landlock or no network namespaces here: %v", s.Err)
	}
	t.Setenv(LandlockNetEnv, "off")
	for _, tt := range []struct {
		name      string
		r         Rules
		netns, ok bool
	}{
		{"no network", Rules{Mode: WorkspaceWrite}, true, true},
		{"all of it", Rules{Mode: WorkspaceWrite, Network: true}, false, true},
		{"some ports", Rules{Mode: WorkspaceWrite, Ports: []uint16{5432}}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Settle(&tt.r)
			if (err == nil) != tt.ok || tt.r.Netns != tt.netns || (err != nil && !errors.Is(err, ErrUnsupported)) {
				t.Errorf("Settle() = %v, Netns %v; want ok %v, Netns %v", err, tt.r.Netns, tt.ok, tt.netns)
			}
		})
	}
	t.Setenv(LandlockNetEnv, "")
	r := Rules{Mode: WorkspaceWrite}
	if err := Settle(&r); Probe().Net && (err != nil || r.Netns) {
		t.Errorf("with Landlock's TCP rules: Settle() = %v, Netns %v; want nil, false", err, r.Netns)
	}
}
