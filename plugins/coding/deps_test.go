package coding

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPluginLinksNoEngine: the coding plugin is a plugin like any other:
// it gets what it needs of the run (the record directory, the run's
// variables, running a command, cutting an output) through the plugin
// SDK, so its binary links neither the engine nor the agent config, nor
// what they bring along (the agent config's YAML, the shell parser).
func TestPluginLinksNoEngine(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goBin, "list", "-deps", "./delta-plugin-coding").Output()
	if err != nil {
		t.Fatalf("go list -deps ./delta-plugin-coding: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/deltakit/delta/plugins/coding/delta-plugin-coding" {
		t.Fatalf("go list -deps gave no dependencies of the binary: %q", out)
	}
	forbidden := []string{
		"github.com/deltakit/delta/lib/engine",
		"github.com/deltakit/delta/lib/agent",
		"gopkg.in/yaml.v3",
		"mvdan.cc/sh/",
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasSuffix(f, "/") && strings.HasPrefix(d, f) {
				t.Errorf("delta-plugin-coding links %s; a plugin gets the run from the SDK", d)
			}
		}
	}
}

// TestPluginImportsOnlySDK: the coding plugin's package is written as any
// plugin author would write one, with the plugin SDK and the standard
// library (and the text packages it needs), never Delta's own libraries,
// which the SDK wraps in an API of its own.
func TestPluginImportsOnlySDK(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goBin, "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -f {{.Imports}} .: %v", err)
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 {
		t.Fatalf("go list gave no imports: %q", out)
	}
	for _, imp := range imports {
		if strings.HasPrefix(imp, "github.com/deltakit/delta/") && imp != "github.com/deltakit/delta/plugins/sdk" {
			t.Errorf("plugins/coding imports %s; of Delta's packages a plugin uses only the plugin SDK", imp)
		}
	}
}
