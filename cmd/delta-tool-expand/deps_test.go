package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoPluginMachinery keeps gRPC, protobuf, go-plugin and the MCP SDK (their start-up
// cost and size) out of delta-tool-expand: it asks delta-plugin for plugin
// tools instead.
func TestNoPluginMachinery(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	banned := []string{"google.golang.org/grpc", "google.golang.org/protobuf", "github.com/hashicorp/go-plugin", "encoding/gob", "github.com/modelcontextprotocol/go-sdk"}
	for _, dep := range strings.Fields(string(out)) {
		for _, b := range banned {
			if dep == b || strings.HasPrefix(dep, b+"/") {
				t.Errorf("delta-tool-expand depends on %s; list plugin tools through delta-plugin and MCP tools through delta-mcp instead", dep)
			}
		}
	}
}
