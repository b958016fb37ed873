package mcp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/plugins/mcp"
	"github.com/deltakit/delta/plugins/mcp/internal/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMediaResults: an MCP server's image and audio content come out of
// the toolbox as parts with their bytes, the text saying what came when
// there is no other.
func TestMediaResults(t *testing.T) {
	tb := stdio(t, agent.MCPServer{Args: []string{"media"}}, nil)
	r := run(t)
	pic := call(t, tb, r, "ts__picture", `{}`)
	if pic.Observation != "a red dot" || len(pic.Parts) != 1 || pic.Parts[0].Type != llm.PartImage ||
		pic.Parts[0].MediaType != "image/png" || !bytes.Equal(pic.Parts[0].Data, mcptest.PNG) {
		t.Errorf("ts__picture = %q, parts %+v; want the caption and the PNG", pic.Observation, pic.Parts)
	}
	chime := call(t, tb, r, "ts__chime", `{}`)
	if chime.Observation != "[audio: audio/wav, 16 bytes]" || len(chime.Parts) != 1 || chime.Parts[0].Type != llm.PartAudio ||
		!bytes.Equal(chime.Parts[0].Data, mcptest.WAV) {
		t.Errorf("ts__chime = %q, parts %+v; want the line and the WAV", chime.Observation, chime.Parts)
	}
}

// TestServeReservesImages: delta mcp serve's session re-serving an MCP
// server's tools gives its client the image and the sound as MCP image
// and audio content, and journals them as files of the call's record.
func TestServeReservesImages(t *testing.T) {
	tb := stdio(t, agent.MCPServer{Args: []string{"media"}}, nil)
	ws := t.TempDir()
	sess := mcp.NewSession(&agent.Agent{Name: "media", Home: t.TempDir()}, ws, tb, mcp.SessionOptions{})
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := sess.Server("test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ts__picture", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("ts__picture served %d contents, want the text and the image", len(res.Content))
	}
	img, ok := res.Content[1].(*sdk.ImageContent)
	if txt, _ := res.Content[0].(*sdk.TextContent); txt == nil || txt.Text != "a red dot" || !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, mcptest.PNG) {
		t.Errorf("ts__picture served %+v, want the caption then the PNG as image content", res.Content)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "ts__chime", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("ts__chime served %d contents, want the line and the sound", len(res.Content))
	}
	if a, ok := res.Content[1].(*sdk.AudioContent); !ok || a.MIMEType != "audio/wav" || !bytes.Equal(a.Data, mcptest.WAV) {
		t.Errorf("ts__chime served %+v, want the WAV as audio content", res.Content[1])
	}
	if err := sess.Close(nil); err != nil {
		t.Fatal(err)
	}
	evs, err := journal.ReadFile(filepath.Join(sess.RunDir(), "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept int
	for _, ev := range evs {
		for _, p := range ev.Parts {
			data, err := os.ReadFile(filepath.Join(sess.RunDir(), p.Path))
			if err == nil && (bytes.Equal(data, mcptest.PNG) || bytes.Equal(data, mcptest.WAV)) {
				kept++
			}
		}
	}
	if kept != 2 {
		t.Errorf("%d parts kept in the session's records, want the image and the sound", kept)
	}
}

// TestRunSeesMCPImage: a real delta-run whose model calls an MCP server's
// picture and chime tools: the fake model (Chat Completions, gpt-4o) is
// shown the image as an image part, and the sound, which it cannot take,
// as a line saying what it was and where it is kept.
func TestRunSeesMCPImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	bin := clitest.BinDir(t)
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(llm.ToolCall{ID: "c1", Name: "ts__picture", Arguments: `{}`}, llm.ToolCall{ID: "c2", Name: "ts__chime", Arguments: `{}`})
	srv.ReplyText("a red dot and a chime")
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	os.MkdirAll(agentDir, 0o755)
	for name, content := range map[string]string{
		"agent.yaml":       "name: media\nllm: {provider: openai-compatible, model: gpt-4o}\nmcp_servers:\n  - name: ts\n    command: " + testServer + "\n    args: [media]\n",
		"system_prompt.md": "p\n",
		"context.yaml":     "sources: [{type: journal}]\n",
	} {
		if err := os.WriteFile(filepath.Join(agentDir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "delta-run"), "run", "--agent", agentDir, "-w", filepath.Join(dir, "ws"), "-m", "go", "-y", "--format", "raw")
	cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir, "DELTA_BASE_URL=" + srv.URL}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("delta-run: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	var image, chimeLine bool
	for _, m := range reqs[1].Messages {
		for _, p := range m.Parts {
			image = image || m.Role == llm.RoleUser && bytes.Equal(p.Data, mcptest.PNG)
		}
		chimeLine = chimeLine || m.ToolCallID == "c2" && strings.Contains(m.Content, "[audio: audio/wav, 16 bytes, io/tool_executions/") &&
			strings.Contains(m.Content, "(not shown: this model does not take audio input)")
	}
	if !image || !chimeLine {
		t.Errorf("second request: image part %v, audio line %v; messages %+v", image, chimeLine, reqs[1].Messages)
	}
	if strings.Contains(string(reqs[1].Body), base64.StdEncoding.EncodeToString(mcptest.WAV)) {
		t.Errorf("the sound was sent to a model that takes none")
	}
}
