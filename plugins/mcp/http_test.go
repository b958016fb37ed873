package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/plugins/mcp"
	"github.com/deltakit/delta/plugins/mcp/internal/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStreamableHTTP: a url: server is reached over streamable HTTP with
// the entry's headers, ${VAR} expanded from the engine's environment.
func TestStreamableHTTP(t *testing.T) {
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.Server() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-123" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	entry := agent.MCPServer{Name: "web", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}}
	tb, err := mcp.Start(context.Background(), []agent.MCPServer{entry}, mcp.Options{Environ: []string{"WEB_TOKEN=tok-123"}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer tb.Close()
	if out := call(t, tb, run(t), "web__echo", `{"text":"over http"}`); out.Observation != "over http" {
		t.Errorf("echo = %+v", out)
	}
	_, err = mcp.Start(context.Background(), []agent.MCPServer{entry}, mcp.Options{Environ: []string{"WEB_TOKEN=wrong"}})
	if err == nil || !strings.Contains(err.Error(), `mcp server "web"`) {
		t.Errorf("Start with a wrong token = %v, want an error naming the server", err)
	}
}
