package agent

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/sandbox"
)

func TestSandboxKey(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       *sandbox.Policy
	}{
		{"absent", "", nil},
		{"mode alone", "sandbox: workspace-write\n", &sandbox.Policy{Mode: sandbox.WorkspaceWrite}},
		{"mapping", "sandbox:\n  mode: workspace-write\n  writable: [build, /opt/cache]\n  network: true\n",
			&sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{"build", "/opt/cache"}, Network: true}},
		{"ports", "sandbox: {mode: read-only, network: [localhost:5432]}\n",
			&sandbox.Policy{Mode: sandbox.ReadOnly, Allow: []string{"localhost:5432"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeAgent(t, map[string]string{"agent.yaml": "name: a\n" + tt.yaml})
			a, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, a.Sandbox); d != "" {
				t.Errorf("Sandbox mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestSandboxKeyProblems(t *testing.T) {
	for name, y := range map[string]string{
		"unknown mode": "sandbox: workspace\n",
		"no mode":      "sandbox: {writable: [x]}\n",
		"bad network":  "sandbox: {mode: read-only, network: [localhost]}\n",
		"unknown key":  "sandbox: {mode: read-only, netwrk: true}\n",
		"network kind": "sandbox: {mode: read-only, network: yes please}\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeAgent(t, map[string]string{"agent.yaml": "name: a\n" + y})
			_, err := Load(dir)
			if err == nil || !(errors.Is(err, ErrInvalid) || errors.Is(err, ErrUnknownKey)) {
				t.Errorf("Load(%q) = %v, want an invalid-config error", y, err)
			}
		})
	}
}
