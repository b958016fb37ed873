package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/plugins/lock"
)

// TestWebFetchEndToEnd: a model (a fake OpenAI server) calls the web
// plugin's web_fetch through the real delta-run against a local web
// server and reads the page as Markdown. The tool is a plugin tool like
// any other: under workspace-write without network the sandbox refuses
// the connect (the server never sees it) and the model is told so (a
// run that can ask offers to run it outside the sandbox instead); with
// network: true or the server's port allowed it works; a deny rule of
// the approval policy stops the call before it runs.
func TestWebFetchEndToEnd(t *testing.T) {
	var hits atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Widget docs</title></head><body><h1>Widgets</h1><p>Call <code>widget.New</code>.</p></body></html>`)
	}))
	defer web.Close()
	u, _ := url.Parse(web.URL)
	// As make build does: the first-party plugins beside delta-run are trusted.
	if err := lock.WriteManifest(clitest.BinDir(t), lock.FirstPartyBinaries...); err != nil {
		t.Fatal(err)
	}
	agentDir := writeAgent(t, "llm:\n  model: test-model\nplugins:\n  - name: web\n", nil)
	page := "URL: " + web.URL + "/docs\nTitle: Widget docs\nContent-Type: text/html, converted to Markdown\n\n# Widgets\n\nCall `widget.New`."
	refused := "connect: permission denied\n(the sandbox refused this: workspace-write mode;"
	sandboxed := sandbox.Probe()
	for _, c := range []struct {
		name    string
		args    []string
		sandbox bool // needs a kernel that sandboxes TCP
		want    string
		isError bool
		fetched bool
	}{
		{name: "no sandbox", want: page, fetched: true},
		// With nobody to answer, the refusal is not offered to run outside
		// (escalate_plugin.txtar tries that) and is what the model reads.
		{name: "workspace-write without network", args: []string{"--sandbox", "workspace-write", "--approvals", "deny"}, sandbox: true,
			want: refused, isError: true},
		{name: "network true", args: []string{"-c", "sandbox={mode: workspace-write, network: true}"}, sandbox: true,
			want: page, fetched: true},
		{name: "port allowed", args: []string{"-c", "sandbox={mode: workspace-write, network: [" + u.Host + "]}"}, sandbox: true,
			want: page, fetched: true},
		{name: "approval deny", args: []string{"-c", "approval=[{tool: web_fetch, decision: deny, reason: no web}]"},
			want: "error: the call to web_fetch was denied by the approval policy", isError: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.sandbox && (!sandboxed.FS || !sandboxed.Net) {
				t.Skipf("this kernel cannot sandbox TCP (Landlock ABI %d): %v", sandboxed.ABI, sandboxed.Err)
			}
			srv := llmtest.NewServer(t)
			srv.ReplyToolCalls(tc("web_fetch", `{"url":"`+web.URL+`/docs"}`))
			srv.Reply(llm.Response{Content: "read it"})
			ws := t.TempDir()
			before := hits.Load()
			args := append([]string{"run", "--agent", agentDir, "-w", ws, "-m", "read the docs", "-y", "--run-id", "w1"}, c.args...)
			_, stderr, code := runDelta(t, []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if got := hits.Load() > before; got != c.fetched {
				t.Errorf("the web server was reached: %v, want %v", got, c.fetched)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2", len(reqs))
			}
			offered := false
			for _, s := range reqs[0].Tools {
				offered = offered || s.Name == "web_fetch"
			}
			var seen string
			for _, m := range reqs[1].Messages {
				if m.Role == llm.RoleTool {
					seen = m.Content
				}
			}
			if !offered || !strings.Contains(seen, c.want) {
				t.Errorf("web_fetch offered: %v; the model read:\n%s\nwant it to contain:\n%s", offered, seen, c.want)
			}
			res := ofType(readEvents(t, filepath.Join(ws, ".delta", "w1", "journal.jsonl")), journal.ActionResult)
			if len(res) != 1 || res[0].ToolName != "web_fetch" || res[0].IsError != c.isError {
				t.Errorf("ACTION_RESULT events %+v, want one of web_fetch with is_error %v", res, c.isError)
			}
		})
	}
}
