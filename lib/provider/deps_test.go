package provider_test

import (
	"os/exec"
	"strings"
	"testing"
)

// sdkModules are the module paths of the model SDKs: only the provider
// package, and the binaries that talk to models, may link them.
var sdkModules = []string{
	"github.com/openai/openai-go",
	"github.com/anthropics/anthropic-sdk-go",
}

// goneSDKs are SDKs no package of the module may link: our own clients
// speak their wire protocols.
var goneSDKs = []string{"github.com/openai/openai-go"}

// TestNoGoneSDKs keeps the replaced SDKs out of every package, tests
// included, and out of go.mod.
func TestNoGoneSDKs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-test", "github.com/deltakit/delta/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -test: %v\n%s", err, out)
	}
	mods, err := exec.Command("go", "list", "-m", "all").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, mods)
	}
	for _, dep := range strings.Fields(string(out) + " " + string(mods)) {
		for _, sdk := range goneSDKs {
			if strings.HasPrefix(dep, sdk) {
				t.Errorf("the module links %s; Delta's own clients replace it", dep)
			}
		}
	}
}

// TestOnlyModelCallersLinkSDKs keeps the SDKs (and their start-up cost and
// size) out of every package and binary that never calls a model.
func TestOnlyModelCallersLinkSDKs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{
		"github.com/deltakit/delta/lib/llm",
		"github.com/deltakit/delta/lib/journal",
		"github.com/deltakit/delta/lib/runs",
		"github.com/deltakit/delta/lib/engine",
		"github.com/deltakit/delta/contextgen",
		"github.com/deltakit/delta/hooks",
		"github.com/deltakit/delta/sessions",
		"github.com/deltakit/delta/cmd/delta",
		"github.com/deltakit/delta/cmd/delta-context",
		"github.com/deltakit/delta/cmd/delta-tool-expand",
		"github.com/deltakit/delta/cmd/delta-sessions",
		"github.com/deltakit/delta/cmd/delta-pty",
		"github.com/deltakit/delta/cmd/delta-plugin",
	}
	for _, pkg := range pkgs {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, sdk := range sdkModules {
				if strings.HasPrefix(dep, sdk) {
					t.Errorf("%s depends on %s; only lib/provider and the model-calling binaries may", pkg, dep)
					break
				}
			}
		}
	}
}
