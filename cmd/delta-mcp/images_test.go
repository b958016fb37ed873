package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeImage: delta mcp serve of an agent with the coding plugin
// answers read_file of a PNG with the image as MCP image content after the
// text line.
func TestServeImage(t *testing.T) {
	bin := clitest.BinDir(t)
	pluginDir, ws, agentDir := t.TempDir(), t.TempDir(), t.TempDir()
	env := append(os.Environ(), "DELTA_PLUGIN_DIR="+pluginDir)
	install := exec.Command(filepath.Join(bin, "delta-plugin"), "install", filepath.Join(bin, "delta-plugin-coding"))
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("delta plugin install: %v\n%s", err, out)
	}
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	for path, content := range map[string][]byte{
		filepath.Join(agentDir, "agent.yaml"):       []byte("name: images\nplugins:\n  - name: coding\n"),
		filepath.Join(agentDir, "system_prompt.md"): []byte("p\n"),
		filepath.Join(agentDir, "context.yaml"):     []byte("sources: [{type: journal}]\n"),
		filepath.Join(ws, "shot.png"):               img.Bytes(),
	} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "delta-mcp"), "serve", "--agent", agentDir, "-w", ws)
	cmd.Env, cmd.Stderr = env, os.Stderr
	ctx := context.Background()
	session, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"file_path": "shot.png"}})
	if err != nil {
		t.Fatalf("CallTool read_file: %v", err)
	}
	if len(res.Content) != 2 || res.IsError {
		t.Fatalf("read_file served %d contents (error %v): %q; want the line and the image", len(res.Content), res.IsError, text(t, res))
	}
	if c, ok := res.Content[1].(*sdk.ImageContent); !ok || c.MIMEType != "image/png" || !bytes.Equal(c.Data, img.Bytes()) {
		t.Errorf("read_file served %+v, want the PNG as image content", res.Content[1])
	}
}
