package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/runs"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }

const testKey = "sk-smoke-test-key"

func call(name string, args any) llm.ToolCall {
	data, _ := json.Marshal(args)
	return llm.ToolCall{Name: name, Arguments: string(data)}
}

// fakeServer is the fake OpenAI-compatible model, holding the steering
// task's later requests until the harness has sent its steering message
// (in the run's inbox, or already in its journal), so that the steering
// step does not depend on timing.
func fakeServer(t *testing.T, ws string) *llmtest.Server {
	srv := llmtest.NewServer(t)
	var mu sync.Mutex
	flask := 0
	inner := srv.Handler()
	runDir := filepath.Join(ws, runs.ControlDir, runID)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(promptFlask)) && !bytes.Contains(body, []byte(promptSubagent)) && !bytes.Contains(body, []byte(promptSleep)) {
			mu.Lock()
			flask++
			n := flask
			mu.Unlock()
			if n > 1 {
				deadline := time.Now().Add(2 * time.Minute)
				for time.Now().Before(deadline) {
					inbox, _ := os.ReadDir(filepath.Join(runDir, runs.InboxDir))
					j, _ := os.ReadFile(filepath.Join(runDir, runs.JournalFile))
					if len(inbox) > 0 || bytes.Contains(j, []byte(promptSteer)) {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	srv.URL = hs.URL + "/v1"
	return srv
}

// TestSmokeAgainstFakeModel drives the whole smoke test through the real
// binaries against a fake OpenAI model that does each task with the
// openai profile's tools, and checks every step's verdict and the matrix.
func TestSmokeAgainstFakeModel(t *testing.T) {
	bin := clitest.BinDir(t)
	root := t.TempDir()
	srv := fakeServer(t, filepath.Join(root, "openai", "ws"))
	// create
	srv.ReplyToolCalls(call("write_file", map[string]any{"file_path": "hello.py", "content": "print('Hello World')\n"}))
	srv.ReplyText("Created hello.py.")
	// edit: a failed read first (error recovery), then read, then patch
	srv.ReplyToolCalls(call("read_file", map[string]any{"file_path": "helo.py"}))
	srv.ReplyToolCalls(call("read_file", map[string]any{"file_path": "hello.py"}))
	srv.ReplyToolCalls(call("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: hello.py\n@@\n print('Hello World')\n+print('Goodbye')\n*** End Patch"}))
	srv.ReplyText("Added the Goodbye line.")
	// multi-file edit
	srv.ReplyToolCalls(call("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: greet.py\n+def greet(name):\n+    return 'Hello, ' + name\n" +
		"*** Update File: hello.py\n@@\n-print('Hello World')\n+from greet import greet\n+print(greet('World'))\n*** End Patch"}))
	srv.ReplyText("greet.py added and used.")
	// search, with two calls at once
	srv.ReplyToolCalls(call("grep_files", map[string]any{"pattern": "Goodbye", "include": "*.py"}), call("glob", map[string]any{"pattern": "*.py"}))
	srv.ReplyText("Only hello.py mentions Goodbye.")
	// reasoning effort
	srv.ReplyText("It prints Hello, World and Goodbye.")
	// shell
	srv.ReplyToolCalls(call("shell", map[string]any{"command": []string{"cat", "hello.py"}}))
	srv.ReplyText("It prints Hello, World and Goodbye.")
	// truncation
	srv.ReplyToolCalls(call("read_file", map[string]any{"file_path": "big.txt"}))
	srv.ReplyText("big.txt is 100,000 x characters.")
	// steering: the app with routes, then (after the steer) /health only
	srv.ReplyToolCalls(call("write_file", map[string]any{"file_path": "app.py", "content": "routes = ['/', '/about']\n"}))
	srv.ReplyToolCalls(call("write_file", map[string]any{"file_path": "app.py", "content": "@app.route('/health')\ndef health(): return 'ok'\n"}))
	srv.ReplyText("Only /health now.")
	// timeout
	srv.ReplyToolCalls(call("shell", map[string]any{"command": []string{"sleep", "30"}}))
	srv.ReplyText("The command timed out, as expected.")

	env := append(childEnv(os.Environ()), "HOME="+root)
	p := Provider{Name: "openai", Template: "coding-openai", Model: "gpt-smoke",
		Env: []string{"DELTA_API_KEY=" + testKey, "DELTA_BASE_URL=" + srv.URL}}
	var log bytes.Buffer
	cfg := Config{Bin: bin, Root: root, Env: env, ShellTimeoutMS: 1000, StepTimeout: 5 * time.Minute, Log: &log}
	res := Run(context.Background(), cfg, p)
	got := map[string]string{}
	for _, c := range res.Checks {
		got[c.Name] = c.Status
		if c.Status != Pass {
			t.Logf("%s: %s: %s", c.Name, c.Status, c.Detail)
		}
	}
	want := map[string]string{"setup": Pass, "create": Pass, "edit": Pass, "edit_format": Pass, "read_analyze_edit": Pass,
		"multi_edit": Pass, "search": Pass, "shell": Pass, "truncation": Pass, "steering": Pass, "subagent": Skipped,
		"timeout": Pass, "parallel": Pass, "error_recovery": Pass, "reasoning_effort": Pass}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks (-want +got):\n%s\nlog:\n%s", diff, log.String())
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d fake answers left unused", n)
	}
	withEffort := 0
	for _, r := range srv.Requests() {
		if r.Model != "gpt-smoke" {
			t.Errorf("request for model %q, want gpt-smoke", r.Model)
		}
		if bytes.Contains(r.Body, []byte(`"reasoning_effort":"medium"`)) {
			withEffort++
		}
	}
	if withEffort != 1 {
		t.Errorf("%d requests carried reasoning_effort, want the one of its step", withEffort)
	}

	m := NewMatrix([]*ProviderResult{res, {Provider: Provider{Name: "anthropic", Skip: "no ANTHROPIC_API_KEY set"}}})
	var table bytes.Buffer
	if err := m.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"Simple file creation task                   pass    skipped",
		"Reasoning effort change                     pass    skipped",
		"Loop detection triggers warning             -       skipped",
		"Subagent spawn and wait                     skipped skipped",
		"Provider-specific editing format works      pass    skipped",
		"anthropic: skipped: no ANTHROPIC_API_KEY set",
	} {
		if !strings.Contains(strings.Join(strings.Fields(table.String()), " "), strings.Join(strings.Fields(line), " ")) {
			t.Errorf("table lacks %q:\n%s", line, table.String())
		}
	}
}

// TestSmokeReportsFailures: a model that only talks fails the checks, the
// matrix says FAIL with the reason, the JSON file holds the same, and the
// exit status is 1.
func TestSmokeReportsFailures(t *testing.T) {
	bin := clitest.BinDir(t)
	srv := llmtest.NewServer(t)
	for range 12 {
		srv.ReplyText("I would rather not.")
	}
	out := filepath.Join(t.TempDir(), "smoke.json")
	environ := append(childEnv(os.Environ()), "HOME="+t.TempDir(), "DELTA_API_KEY="+testKey, "DELTA_BASE_URL="+srv.URL,
		"ANTHROPIC_API_KEY=", "GEMINI_API_KEY=")
	var stdout, stderr bytes.Buffer
	code := run([]string{"-bin", bin, "-json", out, "-providers", "openai", "-step-timeout", "2m", "-subagents=false"}, environ, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"openai: create: hello.py:", "openai: steering: the run ended before the model made a tool call to steer",
		"anthropic: skipped: no ANTHROPIC_API_KEY set"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var m Matrix
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	cells := map[string]map[string]string{}
	for _, r := range m.Rows {
		cells[r.Case] = r.Results
	}
	for c, want := range map[string]map[string]string{
		"Simple file creation task":          {"openai": Fail, "anthropic": Skipped, "gemini": Skipped},
		"Steering mid-task":                  {"openai": Fail, "anthropic": Skipped, "gemini": Skipped},
		"Subagent spawn and wait":            {"openai": Skipped, "anthropic": Skipped, "gemini": Skipped},
		"Parallel tool calls (if supported)": {"openai": NotRun, "anthropic": Skipped, "gemini": Skipped},
	} {
		if diff := cmp.Diff(want, cells[c]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c, diff)
		}
	}
	if !strings.Contains(stderr.String(), "agents, workspaces and logs kept in") {
		t.Errorf("a failed smoke test does not say where its logs are:\n%s", stderr.String())
	}
	if i := strings.Index(stderr.String(), "kept in "); i >= 0 {
		os.RemoveAll(strings.TrimSpace(stderr.String()[i+len("kept in "):]))
	}
}

// TestSmokeSkipsWithoutKeys: with no key at all, nothing runs, the reason
// is clear and the exit status is 0.
func TestSmokeSkipsWithoutKeys(t *testing.T) {
	bin := clitest.BinDir(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"-bin", bin}, childEnv(os.Environ()), &stdout, &stderr)
	if code != 0 || !strings.Contains(stderr.String(), "smoke: skipped: no provider key is set") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"openai": "skipped"`) || !strings.Contains(stdout.String(), "gemini: skipped: no GEMINI_API_KEY set") {
		t.Errorf("stdout lacks the skipped matrix:\n%s", stdout.String())
	}
}

// TestSmokeUnknownProvider: a misspelt -providers is an error, not a
// matrix of skipped cells that looks like a run.
func TestSmokeUnknownProvider(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-bin", "bin", "-providers", "openai,antropic"}, childEnv(os.Environ()), &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `unknown provider "antropic"`) || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming antropic", code, stdout.String(), stderr.String())
	}
}

func TestDetect(t *testing.T) {
	got := Detect(map[string]string{"DELTA_API_KEY": "k1", "DELTA_BASE_URL": "http://x", "GEMINI_API_KEY": "k3", "ANTHROPIC_API_KEY": " "},
		map[string]string{"gemini": "gemini-2.5-pro"})
	want := []Provider{
		{Name: "openai", Template: "coding-openai", Model: DefaultModels["openai"], Env: []string{"DELTA_API_KEY=k1", "DELTA_BASE_URL=http://x"}},
		{Name: "anthropic", Template: "coding-anthropic", Model: DefaultModels["anthropic"], Skip: "no ANTHROPIC_API_KEY set"},
		{Name: "gemini", Template: "coding-gemini", Model: "gemini-2.5-pro", Env: []string{"GEMINI_API_KEY=k3"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Detect (-want +got):\n%s", diff)
	}
	env := childEnv([]string{"A=1", "OPENAI_API_KEY=x", "DELTA_BASE_URL=y", "PATH=/bin", "GEMINI_BASE_URL=z"})
	if diff := cmp.Diff([]string{"A=1"}, env); diff != "" {
		t.Errorf("childEnv (-want +got):\n%s", diff)
	}
}

// TestSmokeSkipsStepsWithoutRun: when the step that starts the run fails
// before the run exists (here delta run is refused: the provider has no
// key), the later steps, which continue that run, are skipped, naming the
// step that failed, in the log, the table and the JSON matrix; none of
// them fails with "no existing run".
func TestSmokeSkipsStepsWithoutRun(t *testing.T) {
	bin := clitest.BinDir(t)
	root := t.TempDir()
	srv := llmtest.NewServer(t)
	env := append(childEnv(os.Environ()), "HOME="+root)
	p := Provider{Name: "openai", Template: "coding-openai", Model: "gpt-smoke"} // no key: delta run is refused
	var log bytes.Buffer
	cfg := Config{Bin: bin, Root: root, Env: env, ShellTimeoutMS: 1000, StepTimeout: 2 * time.Minute, Subagents: true, Log: &log}
	res := Run(context.Background(), cfg, p)
	logs, _ := filepath.Glob(filepath.Join(root, "openai", "logs", "*.log"))
	for _, f := range logs {
		if data, _ := os.ReadFile(f); bytes.Contains(data, []byte("no existing run")) {
			t.Errorf("a step tried to continue a run that does not exist: %s:\n%s", f, data)
		}
	}
	const why = "the create step failed before the run existed: there is no run to continue"
	got := map[string]Check{}
	for _, c := range res.Checks {
		got[c.Name] = c
	}
	if c := got["create"]; c.Status != Fail {
		t.Errorf("create = %+v, want FAIL", c)
	}
	want := map[string]Check{}
	for _, r := range Rows {
		for _, name := range r.Checks {
			if name != "create" {
				want[name] = Check{Name: name, Status: Skipped, Detail: why}
			}
		}
	}
	delete(got, "create")
	delete(got, "setup")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks after the failed create (-want +got):\n%s\nlog:\n%s", diff, log.String())
	}
	if !strings.Contains(log.String(), "smoke: openai: edit: skipped: "+why) {
		t.Errorf("the log does not say why edit was skipped:\n%s", log.String())
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}

	m := NewMatrix([]*ProviderResult{res})
	var table bytes.Buffer
	if err := m.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(table.String()), " ")
	for _, line := range []string{
		"Simple file creation task FAIL",
		"Read file, then edit it skipped",
		"Steering mid-task skipped",
		"Error recovery (tool fails, model retries) skipped",
		"openai: skipped edit, multi_edit, search, reasoning_effort, shell, truncation, steering, subagent, timeout, read_analyze_edit, parallel, error_recovery, edit_format: " + why,
	} {
		if !strings.Contains(flat, line) {
			t.Errorf("table lacks %q:\n%s", line, table.String())
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Matrix
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, r := range back.Rows {
		if r.Case != "Read file, then edit it" {
			continue
		}
		if diff := cmp.Diff(MatrixRow{Case: r.Case, Results: map[string]string{"openai": Skipped}, Reasons: map[string]string{"openai": why}}, r); diff != "" {
			t.Errorf("JSON row (-want +got):\n%s", diff)
		}
	}
}
