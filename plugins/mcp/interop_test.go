package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/plugins/mcp"
)

// EverythingEnv names the reference "everything" MCP server's entry point
// (node_modules/@modelcontextprotocol/server-everything/dist/index.js) for
// TestInteropEverything; without it the test looks in the CI cache that
// .ci/run fills (EverythingCache).
const EverythingEnv = "DELTA_MCP_EVERYTHING"

// everythingServer finds the everything server, or says why not.
func everythingServer() (node, script, why string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", "", "node is not installed"
	}
	script = os.Getenv(EverythingEnv)
	if script == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		script = filepath.Join(cache, "delta-ci", "mcp-everything", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	}
	if _, err := os.Stat(script); err != nil {
		return "", "", "the npm package @modelcontextprotocol/server-everything is not installed at " + script +
			" (install it with: npm install --prefix ~/.cache/delta-ci/mcp-everything @modelcontextprotocol/server-everything, or set " + EverythingEnv + " to its dist/index.js; .ci/run tries)"
	}
	return node, script, ""
}

// TestInteropEverything runs Delta's MCP client against the reference
// "everything" server of the MCP project (TypeScript SDK): tool listing
// with its schemas, text, structured and image results, and the
// environment the server gets.
func TestInteropEverything(t *testing.T) {
	node, script, why := everythingServer()
	if why != "" {
		t.Skip("skipped: " + why)
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "ANTHROPIC_API_KEY=sk-engine", "GIVEN_KEY=k-given"}
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{{Name: "every", Command: node, Args: []string{script, "stdio"},
		Env: map[string]string{"SERVER_KEY": "${GIVEN_KEY}"}, Exclude: []string{"trigger-long-running-operation"}}},
		mcp.Options{Environ: environ, Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer tb.Close()
	found := false
	for _, s := range tb.Specs() {
		if s.Name == "every__echo" {
			found = strings.Contains(string(s.Parameters), `"message"`)
		}
	}
	if !found || tb.Has("every__trigger-long-running-operation") {
		t.Fatalf("tools = %v, want every__echo with its schema and not the excluded tool", tb.Specs())
	}
	r := run(t)
	if out := call(t, tb, r, "every__echo", `{"message":"hi there"}`); out.IsError || out.Observation != "Echo: hi there" {
		t.Errorf("echo = %+v", out)
	}
	if out := call(t, tb, r, "every__get-sum", `{"a":2,"b":3}`); !strings.Contains(out.Observation, "5") {
		t.Errorf("get-sum = %+v", out)
	}
	// The image comes through as a part with its bytes (the engine keeps
	// it as a file of the call's record), beside the server's text.
	if out := call(t, tb, r, "every__get-tiny-image", `{}`); len(out.Parts) != 1 || out.Parts[0].MediaType != "image/png" ||
		len(out.Parts[0].Data) == 0 || !strings.Contains(out.Observation, "image") {
		t.Errorf("get-tiny-image = %q with parts %+v, want its text and one image/png part with data", out.Observation, out.Parts)
	}
	out := call(t, tb, r, "every__get-env", `{}`)
	if !strings.Contains(out.Observation, "k-given") || strings.Contains(out.Observation, "sk-engine") {
		t.Errorf("get-env = %q, want SERVER_KEY and not the engine's key", out.Observation)
	}
	if out := call(t, tb, r, "every__echo", `{}`); !out.IsError {
		t.Errorf("echo without its required argument = %+v, want an error observation", out)
	}
}
