package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

func TestScripts(t *testing.T) { clitest.Run(t, "testdata/script") }

// TestOnlyLightDependencies keeps the guard cheap to start: the binary may
// link the standard library, golang.org/x/sys, the guard package and the
// sandbox (lib/sandbox with go-landlock and its psx: small packages with no
// init work; the guard binary is what confines sandboxed commands), and
// nothing else (no kong, no SDK with a heavy init).
func TestOnlyLightDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowed := map[string]bool{
		"github.com/deltakit/delta/cmd/delta-exec-guard": true,
		"github.com/deltakit/delta/lib/execute/guard":    true,
		"github.com/deltakit/delta/lib/sys":              true,
		"github.com/deltakit/delta/lib/sandbox":          true,
		"kernel.org/pub/linux/libs/security/libcap/psx":  true,
	}
	for _, pkg := range strings.Fields(string(out)) {
		if !allowed[pkg] && !strings.HasPrefix(pkg, "golang.org/x/sys/") && !strings.HasPrefix(pkg, "github.com/landlock-lsm/go-landlock/") {
			t.Errorf("delta-exec-guard depends on %s; want only the standard library, golang.org/x/sys, lib/sys (the OS layer), lib/execute/guard and lib/sandbox with go-landlock", pkg)
		}
	}
}
