package host_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/plugins/host"
)

// TestPluginEnvironmentFiltered: a plugin, and what it starts, see the
// environment a command tool sees: no secrets (DELTA_API_KEY included),
// ordinary variables kept, env.passthrough honoured.
func TestPluginEnvironmentFiltered(t *testing.T) {
	const canary = "sk-canary-plugin-0123456789"
	t.Setenv("DELTA_API_KEY", canary)
	t.Setenv("GITHUB_TOKEN", canary+"-gh")
	t.Setenv("PLAIN_SETTING", "visible")
	for _, tc := range []struct {
		name string
		env  []string // nil: the host's default
		pass bool     // GITHUB_TOKEN passed through
	}{
		{"default", nil, false},
		{"agent env", agent.FilterEnv(append(osEnviron(), "EXTRA=1"), agent.EnvConfig{Passthrough: []string{"GITHUB_TOKEN"}}), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, installed(t), host.Options{Env: tc.env}, agent.PluginRef{Name: "test"})
			tb, err := h.Toolbox(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			out := call(t, tb, "env", `{}`)
			if out.IsError {
				t.Fatalf("env tool: %+v", out)
			}
			got := out.Observation + string(out.Data)
			if strings.Contains(got, canary+"\n") || strings.Contains(got, "DELTA_API_KEY") {
				t.Errorf("the plugin saw DELTA_API_KEY:\n%s", got)
			}
			if strings.Count(got, "PLAIN_SETTING=visible") != 2 {
				t.Errorf("plugin or its child lost PLAIN_SETTING:\n%s", got)
			}
			if tc.pass != strings.Contains(got, "GITHUB_TOKEN="+canary+"-gh") {
				t.Errorf("GITHUB_TOKEN passed through = %v, want %v:\n%s", !tc.pass, tc.pass, got)
			}
		})
	}
}

func osEnviron() []string { return os.Environ() }
