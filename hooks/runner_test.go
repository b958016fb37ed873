package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
)

// setup returns a runner whose agent has one hook, name, running the
// shell script body, and a run in temp dirs.
func setup(t *testing.T, name agent.HookName, body string, timeoutMS int) (*Runner, engine.RunInfo, *bytes.Buffer) {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	script := filepath.Join(home, "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	a := &agent.Agent{Home: home, Hooks: agent.Hooks{name: {Command: []string{"${AGENT_HOME}/hook.sh", "${CWD}"}, TimeoutMS: timeoutMS}}}
	runDir := filepath.Join(work, ".delta", "r1")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	run := engine.RunInfo{RunID: "r1", RunDir: runDir, JournalPath: filepath.Join(runDir, "journal.jsonl"),
		AgentHome: home, WorkDir: work, Agent: a, Iteration: 4}
	var stderr bytes.Buffer
	return New(a, Options{Stderr: &stderr}), run, &stderr
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestNoHookConfigured(t *testing.T) {
	r, run, _ := setup(t, agent.OnRunEnd, "exit 0\n", 0)
	d, err := r.RunHook(context.Background(), engine.HookRequest{Name: agent.PreLLMRequest, Run: run})
	if err != nil || d.Ran || d.Action != engine.HookContinue {
		t.Errorf("RunHook(unconfigured) = %+v, %v; want continue, not ran", d, err)
	}
	if _, err := os.Stat(filepath.Join(run.RunDir, "io", "hooks")); !os.IsNotExist(err) {
		t.Errorf("io/hooks created for an unconfigured hook")
	}
}

func TestIOLayoutAndEnv(t *testing.T) {
	r, run, _ := setup(t, agent.PostToolExecution, `
cd "$DELTA_HOOK_IO_PATH"
{
  echo "arg=$1"
  echo "pwd=$OLDPWD"
  for v in DELTA_RUN_ID RUN_DIR JOURNAL_PATH ITERATION_COUNT TOOL_NAME TOOL_RESULT DELTA_AGENT_HOME DELTA_CWD HOOK_NAME; do
    eval "echo $v=\$$v"
  done
  echo "stdin=$(cat)"
  echo "secret=${DEMO_API_KEY:-filtered}"
} > output/env.txt
echo to-stdout
echo to-stderr >&2
`, 0)
	t.Setenv("DEMO_API_KEY", "sk-secret")
	req := engine.HookRequest{Name: agent.PostToolExecution, Run: run, ToolName: "ls", ToolResult: "a.txt",
		Payload: json.RawMessage(`{"tool_name":"ls"}`)}
	d, err := r.RunHook(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := engine.HookDecision{Action: engine.HookContinue, Ran: true, Ref: "io/hooks/001_post_tool_execution"}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
	dir := filepath.Join(run.RunDir, d.Ref)
	var files []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	wantFiles := []string{"execution_meta/command.txt", "execution_meta/exit_code.txt", "execution_meta/stderr.log",
		"execution_meta/stdout.log", "input/context.json", "input/payload.json", "output/env.txt"}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("io layout (-want +got):\n%s", diff)
	}
	env := read(t, filepath.Join(dir, "output", "env.txt"))
	for _, line := range []string{"arg=" + run.WorkDir, "pwd=" + run.WorkDir, "DELTA_RUN_ID=r1", "RUN_DIR=" + run.RunDir,
		"JOURNAL_PATH=" + run.JournalPath, "ITERATION_COUNT=4", "TOOL_NAME=ls", "TOOL_RESULT=a.txt",
		"DELTA_AGENT_HOME=" + run.AgentHome, "DELTA_CWD=" + run.WorkDir, "HOOK_NAME=post_tool_execution",
		`stdin={"tool_name":"ls"}`, "secret=filtered"} {
		if !strings.Contains(env, line+"\n") {
			t.Errorf("hook environment lacks %q:\n%s", line, env)
		}
	}
	meta := map[string]string{"exit_code.txt": "0\n", "stdout.log": "to-stdout\n", "stderr.log": "to-stderr\n",
		"command.txt": run.AgentHome + "/hook.sh " + run.WorkDir + "\n"}
	for name, want := range meta {
		if got := read(t, filepath.Join(dir, "execution_meta", name)); got != want {
			t.Errorf("execution_meta/%s = %q, want %q", name, got, want)
		}
	}
	if got := read(t, filepath.Join(dir, "input", "payload.json")); got != `{"tool_name":"ls"}` {
		t.Errorf("input/payload.json = %q", got)
	}
	var hc hookContext
	if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "input", "context.json"))), &hc); err != nil {
		t.Fatal(err)
	}
	if hc.HookName != agent.PostToolExecution || hc.RunID != "r1" || hc.Iteration != 4 || hc.ToolResult != "a.txt" {
		t.Errorf("input/context.json = %+v", hc)
	}
}

func TestSequenceNumbers(t *testing.T) {
	r, run, _ := setup(t, agent.OnIterationStart, "exit 0\n", 0)
	if err := os.MkdirAll(filepath.Join(run.RunDir, "io", "hooks", "041_on_error"), 0o755); err != nil {
		t.Fatal(err)
	}
	var refs []string
	for range 2 {
		d, err := r.RunHook(context.Background(), engine.HookRequest{Name: agent.OnIterationStart, Run: run})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, d.Ref)
	}
	want := []string{"io/hooks/042_on_iteration_start", "io/hooks/043_on_iteration_start"}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}

func TestDecisions(t *testing.T) {
	tests := []struct {
		name    string
		hook    agent.HookName
		body    string
		timeout int
		want    engine.HookDecision // Ref and Ran are checked apart
		failure string              // substring of Failure ("" : none)
		reason  string              // substring of Reason
	}{
		{
			name: "pre_llm_request replaces the request",
			hook: agent.PreLLMRequest,
			body: `echo '{"messages":[]}' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"`,
			want: engine.HookDecision{Action: engine.HookModify, Payload: json.RawMessage("{\"messages\":[]}\n")},
		},
		{
			name: "post_llm_response replaces the response",
			hook: agent.PostLLMResponse,
			body: `echo '{"content":"filtered"}' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"`,
			want: engine.HookDecision{Action: engine.HookModify, Payload: json.RawMessage("{\"content\":\"filtered\"}\n")},
		},
		{
			name:   "on_iteration_end payload ignored",
			hook:   agent.OnIterationEnd,
			body:   `echo '{}' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"`,
			want:   engine.HookDecision{Action: engine.HookContinue},
			reason: "has nothing to replace",
		},
		{
			name:   "control.json ABORT blocks",
			hook:   agent.PreToolExecution,
			body:   `echo '{"action":"ABORT","reason":"writes outside the workspace"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:   engine.HookDecision{Action: engine.HookBlock},
			reason: "writes outside the workspace",
		},
		{
			name:   "control.json skip blocks",
			hook:   agent.PreToolExecution,
			body:   `echo '{"skip":true,"message":"not today"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:   engine.HookDecision{Action: engine.HookBlock},
			reason: "not today",
		},
		{
			name: "exit 2 blocks with the stderr tail",
			hook: agent.PreToolExecution,
			body: "echo 'rm is not allowed' >&2\nexit 2\n",
			want: engine.HookDecision{Action: engine.HookBlock, Reason: "rm is not allowed"},
		},
		{
			name: "pre_tool_execution allows",
			hook: agent.PreToolExecution,
			body: `echo '{"action":"CONTINUE"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want: engine.HookDecision{Action: engine.HookContinue},
		},
		{
			name:    "failing hook: run goes on",
			hook:    agent.PostToolExecution,
			body:    "echo oops >&2\nexit 1\n",
			want:    engine.HookDecision{Action: engine.HookContinue},
			failure: "exited with code 1: oops",
		},
		{
			name:    "exit 2 elsewhere is a failure",
			hook:    agent.OnError,
			body:    "exit 2\n",
			want:    engine.HookDecision{Action: engine.HookContinue},
			failure: "exited with code 2",
		},
		{
			name:    "timed-out hook: run goes on",
			hook:    agent.OnIterationStart,
			body:    "sleep 30\n",
			timeout: 200,
			want:    engine.HookDecision{Action: engine.HookContinue},
			failure: "timed out after 200ms",
		},
		{
			name:    "failing policy hook fails closed",
			hook:    agent.PreToolExecution,
			body:    "exit 1\n",
			want:    engine.HookDecision{Action: engine.HookBlock},
			failure: "exited with code 1",
			reason:  "fail-closed",
		},
		{
			name:    "timed-out policy hook fails closed",
			hook:    agent.PreToolExecution,
			body:    "sleep 30\n",
			timeout: 200,
			want:    engine.HookDecision{Action: engine.HookBlock},
			failure: "timed out",
			reason:  "fail-closed",
		},
		{
			name:   "control.json block blocks",
			hook:   agent.PreToolExecution,
			body:   `echo '{"action":"block","reason":"b"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:   engine.HookDecision{Action: engine.HookBlock},
			reason: "b",
		},
		{
			name:   "control.json BLOCK blocks",
			hook:   agent.PreToolExecution,
			body:   `echo '{"action":"BLOCK"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:   engine.HookDecision{Action: engine.HookBlock},
			reason: "output/control.json gave no reason",
		},
		{
			name:   "control.json Deny blocks",
			hook:   agent.PreToolExecution,
			body:   `echo '{"action":"Deny","message":"m"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:   engine.HookDecision{Action: engine.HookBlock},
			reason: "m",
		},
		{
			name: "control.json reject blocks",
			hook: agent.PreToolExecution,
			body: `echo '{"action":"reject"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want: engine.HookDecision{Action: engine.HookBlock},
		},
		{
			name: "control.json allow allows",
			hook: agent.PreToolExecution,
			body: `echo '{"action":"allow"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want: engine.HookDecision{Action: engine.HookContinue},
		},
		{
			name:    "unknown action fails closed",
			hook:    agent.PreToolExecution,
			body:    `echo '{"action":"frobnicate"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:    engine.HookDecision{Action: engine.HookBlock},
			failure: `unknown action "frobnicate" (accepted: continue, allow, modify, block, abort, deny, reject, ask, escalate (any case))`,
			reason:  "policy hook failed (fail-closed)",
		},
		{
			name:    "unknown action elsewhere is a failure",
			hook:    agent.PostToolExecution,
			body:    `echo '{"action":"stop"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:    engine.HookDecision{Action: engine.HookContinue},
			failure: `unknown action "stop"`,
		},
		{
			name:    "block elsewhere is a failure",
			hook:    agent.PostToolExecution,
			body:    `echo '{"action":"block"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:    engine.HookDecision{Action: engine.HookContinue},
			failure: "only pre_tool_execution can block",
		},
		{
			name:    "modify without final_payload.json is a failure",
			hook:    agent.PreToolExecution,
			body:    `echo '{"action":"modify"}' > "$DELTA_HOOK_IO_PATH/output/control.json"`,
			want:    engine.HookDecision{Action: engine.HookBlock},
			failure: "wrote no output/final_payload.json",
		},
		{
			name: "modify with final_payload.json modifies",
			hook: agent.PreToolExecution,
			body: `echo '{"action":"Modify"}' > "$DELTA_HOOK_IO_PATH/output/control.json"
echo '{"tool_args":{}}' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"`,
			want: engine.HookDecision{Action: engine.HookModify, Payload: json.RawMessage("{\"tool_args\":{}}\n")},
		},
		{
			name:    "invalid final_payload.json",
			hook:    agent.PreLLMRequest,
			body:    `echo '{nope' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"`,
			want:    engine.HookDecision{Action: engine.HookContinue},
			failure: "not valid JSON",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, run, stderr := setup(t, tt.hook, tt.body, tt.timeout)
			d, err := r.RunHook(context.Background(), engine.HookRequest{Name: tt.hook, Run: run})
			if err != nil {
				t.Fatal(err)
			}
			if !d.Ran || !strings.HasPrefix(d.Ref, "io/hooks/001_"+string(tt.hook)) {
				t.Errorf("Ran, Ref = %v, %q", d.Ran, d.Ref)
			}
			if !strings.Contains(d.Failure, tt.failure) || (tt.failure == "") != (d.Failure == "") {
				t.Errorf("Failure = %q, want it to contain %q", d.Failure, tt.failure)
			}
			if stderr.Len() != 0 {
				// The engine journals the failure and delta-run shows it:
				// a second line here would say it twice.
				t.Errorf("the runner wrote to stderr: %q", stderr)
			}
			if !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", d.Reason, tt.reason)
			}
			got := engine.HookDecision{Action: d.Action, Payload: d.Payload}
			if tt.want.Reason != "" {
				got.Reason = d.Reason
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandNotFound(t *testing.T) {
	for _, tt := range []struct {
		hook agent.HookName
		want string
	}{{agent.PreToolExecution, engine.HookBlock}, {agent.PostLLMResponse, engine.HookContinue}} {
		r, run, _ := setup(t, tt.hook, "", 0)
		r.agent.Hooks[tt.hook] = agent.HookSpec{Command: []string{"${AGENT_HOME}/missing-hook"}}
		d, err := r.RunHook(context.Background(), engine.HookRequest{Name: tt.hook, Run: run})
		if err != nil {
			t.Fatal(err)
		}
		if d.Action != tt.want || !d.Ran || !strings.Contains(d.Failure, "missing-hook") {
			t.Errorf("%s with a missing command = %+v, want %s with a failure", tt.hook, d, tt.want)
		}
		code := read(t, filepath.Join(run.RunDir, d.Ref, "execution_meta", "exit_code.txt"))
		if !strings.HasPrefix(code, "not started") {
			t.Errorf("exit_code.txt = %q, want not started", code)
		}
	}
}

func TestPluginHooks(t *testing.T) {
	a := &agent.Agent{Hooks: agent.Hooks{agent.PreToolExecution: {Plugin: "policy"}, agent.OnRunEnd: {Plugin: "audit"}}}
	run := engine.RunInfo{RunDir: t.TempDir(), Agent: a}
	d, _ := New(a, Options{}).RunHook(context.Background(), engine.HookRequest{Name: agent.OnRunEnd, Run: run})
	if d.Action != engine.HookContinue || !d.Ran || !strings.Contains(d.Failure, `"audit"`) {
		t.Errorf("plugin hook without plugins = %+v, want continue with a failure naming the plugin", d)
	}
	d, _ = New(a, Options{}).RunHook(context.Background(), engine.HookRequest{Name: agent.PreToolExecution, Run: run})
	if d.Action != engine.HookBlock || d.Failure == "" {
		t.Errorf("policy plugin hook without plugins = %+v, want block (fail-closed)", d)
	}
	var got string
	plugin := func(ctx context.Context, name string, req engine.HookRequest) (engine.HookDecision, error) {
		got = name + ":" + string(req.Name)
		return engine.HookDecision{Action: engine.HookBlock, Reason: "no"}, nil
	}
	d, _ = New(a, Options{Plugin: plugin}).RunHook(context.Background(), engine.HookRequest{Name: agent.PreToolExecution, Run: run})
	if got != "policy:pre_tool_execution" || d.Action != engine.HookBlock || d.Reason != "no" || !d.Ran {
		t.Errorf("plugin hook = %+v (called %q), want the plugin's block", d, got)
	}
}

func TestInterrupted(t *testing.T) {
	r, run, _ := setup(t, agent.PreToolExecution, "touch \"$DELTA_HOOK_IO_PATH/output/started\"\nsleep 30\n", 0)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the hook is running.
		for {
			if m, _ := filepath.Glob(filepath.Join(run.RunDir, "io", "hooks", "*", "output", "started")); len(m) > 0 {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	d, err := r.RunHook(ctx, engine.HookRequest{Name: agent.PreToolExecution, Run: run})
	// No error: an engine going on after a hook error must not read the
	// decision as continue and start the guarded tool.
	if err != nil {
		t.Errorf("RunHook(cancelled) error = %v, want none for pre_tool_execution", err)
	}
	if d.Action != engine.HookBlock || d.Reason != "policy hook interrupted" || !strings.Contains(d.Failure, "interrupted") || !d.Ran {
		t.Errorf("RunHook(cancelled) = %+v, want block, reason \"policy hook interrupted\"", d)
	}
	if got := read(t, filepath.Join(run.RunDir, d.Ref, "execution_meta", "exit_code.txt")); got != "interrupted\n" {
		t.Errorf("exit_code.txt = %q, want interrupted", got)
	}
}

// hangingPlugin answers a hook only when its context ends.
func hangingPlugin(ctx context.Context, name string, req engine.HookRequest) (engine.HookDecision, error) {
	<-ctx.Done()
	return engine.HookDecision{Action: engine.HookContinue}, ctx.Err()
}

func TestPluginHookTimeout(t *testing.T) {
	for _, tt := range []struct {
		hook agent.HookName
		want string
	}{{agent.PreToolExecution, engine.HookBlock}, {agent.OnIterationEnd, engine.HookContinue}} {
		a := &agent.Agent{Hooks: agent.Hooks{tt.hook: {Plugin: "slow", TimeoutMS: 50}}}
		run := engine.RunInfo{RunDir: t.TempDir(), Agent: a}
		d, err := New(a, Options{Plugin: hangingPlugin}).RunHook(context.Background(), engine.HookRequest{Name: tt.hook, Run: run})
		if err != nil {
			t.Fatal(err)
		}
		if d.Action != tt.want || !strings.Contains(d.Failure, `plugin "slow" timed out after 50ms`) {
			t.Errorf("%s: hanging plugin = %+v, want %s with a timeout failure", tt.hook, d, tt.want)
		}
	}
}

func TestPluginHookDefaultTimeout(t *testing.T) {
	a := &agent.Agent{Hooks: agent.Hooks{agent.OnRunEnd: {Plugin: "p"}}}
	var deadline time.Time
	plugin := func(ctx context.Context, name string, req engine.HookRequest) (engine.HookDecision, error) {
		deadline, _ = ctx.Deadline()
		return engine.HookDecision{}, nil
	}
	before := time.Now()
	if _, err := New(a, Options{Plugin: plugin}).RunHook(context.Background(), engine.HookRequest{Name: agent.OnRunEnd, Run: engine.RunInfo{Agent: a}}); err != nil {
		t.Fatal(err)
	}
	if d := deadline.Sub(before); d < DefaultTimeoutMS*time.Millisecond || d > 2*DefaultTimeoutMS*time.Millisecond {
		t.Errorf("plugin hook deadline %v after the call, want the %d ms default", d, DefaultTimeoutMS)
	}
}

func TestPluginHookInterrupted(t *testing.T) {
	a := &agent.Agent{Hooks: agent.Hooks{agent.PreToolExecution: {Plugin: "slow"}}}
	run := engine.RunInfo{RunDir: t.TempDir(), Agent: a}
	ctx, cancel := context.WithCancel(context.Background())
	plugin := func(pctx context.Context, name string, req engine.HookRequest) (engine.HookDecision, error) {
		cancel() // the run is interrupted while the plugin decides
		return hangingPlugin(pctx, name, req)
	}
	d, err := New(a, Options{Plugin: plugin}).RunHook(ctx, engine.HookRequest{Name: agent.PreToolExecution, Run: run})
	if err != nil || d.Action != engine.HookBlock || d.Reason != "policy hook interrupted" || !d.Ran {
		t.Errorf("interrupted policy plugin = %+v, %v; want block \"policy hook interrupted\", no error", d, err)
	}
}
