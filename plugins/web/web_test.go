package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/plugins/sdk"
)

// site is a fake web site for the fetches.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>The  Guide</title><style>body{color:red}</style>
<script>var secret = "in a script";</script></head><body>
<h1>Install</h1><p>Run <code>make build</code>, then read <a href="/docs/next">the next page</a>.</p>
<table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>-y</td><td>yes</td></tr></table>
</body></html>`)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name": "delta", "tools": ["web_fetch"]}`)
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n0000"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("0123456789", 500))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><body><p>No such page here.</p></body></html>")
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers only when the client gives up
	})
	mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/loop/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/data.json", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// fetch calls web_fetch with args on a plugin configured with config.
func fetch(t *testing.T, config, args string, recordDir string) (string, bool) {
	t.Helper()
	tools := &Tools{}
	if err := tools.Configure(context.Background(), json.RawMessage(config)); err != nil {
		t.Fatalf("Configure(%s) = %v", config, err)
	}
	res, err := tools.Call(context.Background(), sdkRequest(args, recordDir))
	if err != nil {
		t.Fatalf("Call(%s) error = %v", args, err)
	}
	return res.Output, res.IsError
}

func TestFetch(t *testing.T) {
	srv := site(t)
	tests := []struct {
		name, config, args string
		wantErr            bool
		want, notWant      []string
	}{
		{name: "html as markdown", args: `{"url":"` + srv.URL + `/page"}`,
			want: []string{"URL: " + srv.URL + "/page\n", "Title: The Guide\n", "Content-Type: text/html, converted to Markdown",
				"# Install", "Run `make build`, then read [the next page](" + srv.URL + "/docs/next).", "| Flag | Meaning |", "| -y   | yes     |"},
			notWant: []string{"<h1>", "secret", "color:red"}},
		{name: "html raw", args: `{"url":"` + srv.URL + `/page","raw":true}`,
			want: []string{"Content-Type: text/html\n", "<h1>Install</h1>"}},
		{name: "json as it is", args: `{"url":"` + srv.URL + `/data.json"}`,
			want: []string{"Content-Type: application/json\n\n" + `{"name": "delta", "tools": ["web_fetch"]}`}},
		{name: "charset decoded", args: `{"url":"` + srv.URL + `/latin1"}`, want: []string{"\n\ncafé"}},
		{name: "redirect followed", args: `{"url":"` + srv.URL + `/moved"}`,
			want: []string{"URL: " + srv.URL + "/data.json\n(redirected from " + srv.URL + "/moved)\n", `"tools"`}},
		{name: "image refused", args: `{"url":"` + srv.URL + `/logo.png"}`, wantErr: true,
			want: []string{"is image/png (12 bytes)", "web_fetch returns HTML pages as Markdown"}},
		{name: "http error", args: `{"url":"` + srv.URL + `/missing"}`, wantErr: true,
			want: []string{"answered HTTP 404 Not Found; the page it sent:", "No such page here."}},
		{name: "size cap", config: `{"max_bytes":1000}`, args: `{"url":"` + srv.URL + `/big"}`,
			want:    []string{"longer than the web plugin's max_bytes (1000 bytes)", "\n\n" + strings.Repeat("0123456789", 100)},
			notWant: []string{strings.Repeat("0123456789", 101)}},
		{name: "timeout", config: `{"timeout_ms":200}`, args: `{"url":"` + srv.URL + `/hang"}`, wantErr: true,
			want: []string{"timed out after 200ms"}},
		{name: "redirect limit", config: `{"max_redirects":3}`, args: `{"url":"` + srv.URL + `/loop/0"}`, wantErr: true,
			want: []string{"too many redirects: stopped after 3 (the web plugin's max_redirects); the last one pointed to " + srv.URL + "/loop/4"}},
		{name: "no redirects", config: `{"max_redirects":0}`, args: `{"url":"` + srv.URL + `/moved"}`, wantErr: true,
			want: []string{"stopped after 0"}},
		{name: "redirect to file refused", args: `{"url":"` + srv.URL + `/to-file"}`, wantErr: true,
			want: []string{"redirected to file:///etc/passwd: only http and https URLs can be fetched"}},
		{name: "file scheme", args: `{"url":"file:///etc/passwd"}`, wantErr: true,
			want: []string{`url "file:///etc/passwd" is file: only http and https URLs can be fetched`}},
		{name: "ftp scheme", args: `{"url":"ftp://example.com/x"}`, wantErr: true, want: []string{"is ftp: only http and https"}},
		{name: "no scheme", args: `{"url":"example.com/docs"}`, wantErr: true, want: []string{"has no scheme", "write https://example.com/docs"}},
		{name: "unknown argument", args: `{"url":"` + srv.URL + `/page","prompt":"summarise"}`, wantErr: true,
			want: []string{`unknown field "prompt"`, "takes url, max_length, start_index and raw"}},
		{name: "max_length too big", args: `{"url":"` + srv.URL + `/page","max_length":50001}`, wantErr: true,
			want: []string{"max_length must be between 1 and 50000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			config := tc.config
			if config == "" {
				config = "{}"
			}
			out, isErr := fetch(t, config, tc.args, "")
			if isErr != tc.wantErr {
				t.Errorf("IsError = %v, want %v; output:\n%s", isErr, tc.wantErr, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestWindow: a page longer than max_length is cut by the SDK's Cut,
// which keeps the rest in the call's record and names it, and the note
// gives the start_index to read on from; that call returns the rest.
func TestWindow(t *testing.T) {
	srv := site(t)
	rec := t.TempDir()
	out, isErr := fetch(t, "{}", `{"url":"`+srv.URL+`/big","max_length":30}`, rec)
	if isErr {
		t.Fatalf("IsError; output:\n%s", out)
	}
	for _, w := range []string{"\n\n012345678901234567890123456789\n\n[WARNING: Tool output was truncated.",
		"The whole output (5000 bytes, 1 line) is in " + filepath.Join(rec, "output.txt"),
		"[web_fetch: characters 0 to 30 of the page's 5000 are shown; call web_fetch again with start_index: 30 to read on.]"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if kept, err := os.ReadFile(filepath.Join(rec, "output.txt")); err != nil || string(kept) != strings.Repeat("0123456789", 500) {
		t.Errorf("the record keeps %d bytes (%v), want the whole page", len(kept), err)
	}
	out, _ = fetch(t, "{}", `{"url":"`+srv.URL+`/big","start_index":4990}`, t.TempDir())
	if !strings.HasSuffix(out, "\n\n0123456789") {
		t.Errorf("start_index 4990 gave:\n%s", out)
	}
	out, _ = fetch(t, "{}", `{"url":"`+srv.URL+`/big","start_index":6000}`, "")
	if !strings.Contains(out, "start_index 6000 is past the end: the page's text has 5000 characters") {
		t.Errorf("start_index past the end gave:\n%s", out)
	}
}

func TestConfigure(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{"timeout":5}`, "web plugin config: unknown key \"timeout\" (known keys: timeout_ms, max_bytes, max_redirects, user_agent)"},
		{`{"timeout_ms":-1}`, "timeout_ms must be between 1 and 300000"},
		{`{"max_bytes":-5}`, "max_bytes must be positive"},
		{`{"max_redirects":-1}`, "max_redirects must be 0 or more"},
	}
	for _, tc := range tests {
		err := (&Tools{}).Configure(context.Background(), json.RawMessage(tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Configure(%s) = %v, want %q", tc.config, err, tc.want)
		}
	}
}

// TestUserAgent: the request names the tool, or the configured agent.
func TestUserAgent(t *testing.T) {
	got := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("User-Agent")
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	fetch(t, "{}", `{"url":"`+srv.URL+`"}`, "")
	fetch(t, `{"user_agent":"my-bot/1"}`, `{"url":"`+srv.URL+`"}`, "")
	if a, b := <-got, <-got; a != DefaultUserAgent || b != "my-bot/1" {
		t.Errorf("User-Agent = %q then %q, want %q then my-bot/1", a, b, DefaultUserAgent)
	}
}

func TestParseURLErrors(t *testing.T) {
	for _, u := range []string{"file:///x", "gopher://h/", "mailto:a@b", "example.com"} {
		if _, err := parseURL(u); !errors.Is(err, ErrScheme) {
			t.Errorf("parseURL(%q) = %v, want ErrScheme", u, err)
		}
	}
	if _, err := parseURL("http://"); err == nil || errors.Is(err, ErrScheme) {
		t.Errorf("parseURL(http://) = %v, want a missing host", err)
	}
}

// sdkRequest is a web_fetch call; recordDir is the call's record
// directory ("" outside a run).
func sdkRequest(args, recordDir string) sdk.CallRequest {
	return sdk.CallRequest{Name: "web_fetch", Arguments: json.RawMessage(args), RecordDir: recordDir}
}
