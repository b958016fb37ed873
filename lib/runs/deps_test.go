package runs_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoConfigMachinery keeps lib/runs below the agent configuration:
// every binary and plugin that finds or reads a run links this package, so
// it must not bring in the agent loader and what that links (the YAML
// decoder, the shell parser of tool templates).
func TestNoConfigMachinery(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	banned := []string{"github.com/deltakit/delta/lib/agent", "github.com/deltakit/delta/lib/tool", "gopkg.in/yaml.v3", "mvdan.cc/sh"}
	for _, dep := range strings.Fields(string(out)) {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") {
				t.Errorf("lib/runs depends on %s; name what runs needs in lib/runs (or below it) instead", dep)
			}
		}
	}
}
