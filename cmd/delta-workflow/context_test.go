package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/workflow/board"
)

// An agent that is another program reaches the workflow tools through
// `delta-workflow mcp`: a real MCP client over the real binary's stdio
// lists the tools and calls them, every call made as the --as agent.
func TestMCPServer(t *testing.T) {
	dir := t.TempDir()
	p, err := board.OpenFile(dir, board.Config{Agents: []string{"reviewer", "coder"}, DocumentOwner: "reviewer"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The binaries are built first: on a loaded machine that alone can
	// take longer than the session is given.
	bin := filepath.Join(clitest.BinDir(t), "delta-workflow")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp", "--dir", dir, "--as", "coder")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	want := slices.Sorted(slices.Values(board.ToolNames)) // the SDK lists them by name
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}

	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return strings.Join(text, ""), res.IsError
	}
	if out, isErr := call("channel_send", map[string]any{"message": "@reviewer fixed"}); isErr || out != "sent (seq 1)" {
		t.Errorf("channel_send = %q, error %v", out, isErr)
	}
	entries, err := p.Read(ctx, board.ReadOptions{})
	if err != nil || len(entries) != 1 || entries[0].From != "coder" || !slices.Equal(entries[0].Mentions, []string{"reviewer"}) {
		t.Fatalf("channel = %+v, %v; want one entry from coder mentioning reviewer", entries, err)
	}
	// The client cannot choose its identity; the rules hold.
	if out, isErr := call("channel_send", map[string]any{"message": "x", "from": "reviewer"}); !isErr || !strings.Contains(out, `unknown field "from"`) {
		t.Errorf("channel_send with from = %q, error %v; want refused", out, isErr)
	}
	if out, isErr := call("document_write", map[string]any{"content": "mine"}); !isErr || out != "Error: Only @reviewer can write to documents. Use document_suggest instead." {
		t.Errorf("document_write by a non-owner = %q, error %v", out, isErr)
	}
	if out, isErr := call("document_suggest", map[string]any{"suggestion": "note the fix"}); isErr || out != "Suggestion sent to @reviewer" {
		t.Errorf("document_suggest = %q, error %v", out, isErr)
	}
	if in, _ := p.Inbox(ctx, "reviewer"); len(in) != 2 {
		t.Errorf("reviewer's inbox = %d messages, want 2", len(in))
	}
}
