package web

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPluginImportsOnlySDK: the web plugin is written as any plugin
// author would write one: of Delta's packages it uses only the plugin
// SDK, so it links neither the engine nor the agent config.
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
			t.Errorf("plugins/web imports %s; of Delta's packages a plugin uses only the plugin SDK", imp)
		}
	}
}
