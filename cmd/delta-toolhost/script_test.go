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

// TestDeltaRunLinksNoPluginHost keeps the plugin host (go-plugin, gRPC,
// protobuf) and the MCP SDK out of delta-run: they are the tool host's,
// so that a run without plugins or MCP servers does not pay their start.
func TestDeltaRunLinksNoPluginHost(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../delta-run").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/hashicorp/go-plugin", "google.golang.org/grpc", "google.golang.org/protobuf",
			"github.com/modelcontextprotocol/go-sdk", "github.com/deltakit/delta/plugins/host", "github.com/deltakit/delta/plugins/mcp"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("delta-run links %s; the plugin host and the MCP client belong to delta-toolhost", dep)
			}
		}
	}
}
