package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
)

// maxEnvValue caps TOOL_RESULT and ERROR_MESSAGE in the environment (Linux
// refuses a single variable over 128 KiB); the full text is in
// input/context.json.
const maxEnvValue = 64 * 1024

// hookContext is input/context.json: where the hook runs and what for.
type hookContext struct {
	HookName     agent.HookName `json:"hook_name"`
	RunID        string         `json:"run_id"`
	RunDir       string         `json:"run_dir"`
	JournalPath  string         `json:"journal_path"`
	AgentHome    string         `json:"agent_home"`
	CWD          string         `json:"cwd"`
	Iteration    int            `json:"iteration"`
	ToolName     string         `json:"tool_name,omitempty"`
	ToolResult   string         `json:"tool_result,omitempty"`
	ErrorMessage string         `json:"error_message,omitempty"`
	Timestamp    time.Time      `json:"timestamp"`
}

// runCommand runs a command hook with the io/hooks file protocol and turns
// what it left behind into a decision.
func (r *Runner) runCommand(ctx context.Context, spec agent.HookSpec, req engine.HookRequest) engine.HookDecision {
	run := req.Run
	dir, ref, err := runs.ReserveRecord(run.RunDir, runs.HooksDir, string(req.Name), "input", "output", "execution_meta")
	if err != nil {
		return failed(req.Name, "", err.Error())
	}
	if err := writeInput(dir, req); err != nil {
		return failed(req.Name, ref, err.Error())
	}
	argv := expandAll(spec.Command, run.AgentHome, run.WorkDir)
	timeout := hookTimeout(spec)
	res := execHook(ctx, argv, run.WorkDir, r.hookEnv(dir, req), req.Payload, timeout, filepath.Join(dir, "execution_meta"))
	if err := writeMeta(dir, argv, res); err != nil {
		return failed(req.Name, ref, err.Error())
	}
	return decide(req.Name, dir, ref, res, timeout)
}

// decide reads output/ and the exit status into the hook's decision. A
// control.json action outside the vocabulary (see actions) is a failure,
// so a pre_tool_execution policy with a typo blocks instead of allowing.
func decide(name agent.HookName, dir, ref string, res result, timeout time.Duration) engine.HookDecision {
	switch {
	case res.startErr != nil:
		return failed(name, ref, fmt.Sprintf("start %v", res.startErr))
	case res.timedOut:
		return failed(name, ref, fmt.Sprintf("timed out after %v and was killed", timeout))
	case res.canceled:
		return interrupted(name, ref)
	}
	ctl, _, err := readControl(dir)
	if err != nil {
		return failed(name, ref, err.Error())
	}
	v, err := verdictOf(ctl)
	if err != nil {
		return failed(name, ref, err.Error())
	}
	if name == agent.PreToolExecution && (res.exitCode == 2 || v == blockIt) {
		return engine.HookDecision{Action: engine.HookBlock, Ref: ref, Reason: blockReason(ctl, res)}
	}
	if name == agent.PreToolExecution && res.exitCode == 0 && v == askIt {
		return engine.HookDecision{Action: engine.HookAsk, Ref: ref, Reason: ctlReason(ctl)}
	}
	if res.exitCode != 0 {
		return failed(name, ref, fmt.Sprintf("exited with code %d%s", res.exitCode, tail(res.stderr)))
	}
	if v == blockIt || v == askIt {
		word := "block"
		if v == askIt {
			word = "ask for an approval"
		}
		return failed(name, ref, fmt.Sprintf("output/control.json asks to %s, but only pre_tool_execution can %s; %s went on", word, word, name))
	}
	payload, err := os.ReadFile(filepath.Join(dir, "output", "final_payload.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist) && v == modify:
		return failed(name, ref, "output/control.json says modify but the hook wrote no output/final_payload.json")
	case errors.Is(err, fs.ErrNotExist):
		return engine.HookDecision{Action: engine.HookContinue, Ref: ref, Reason: ctlReason(ctl)}
	case err != nil:
		return failed(name, ref, fmt.Sprintf("read output/final_payload.json: %v", err))
	case !validJSON(payload):
		return failed(name, ref, "output/final_payload.json is not valid JSON")
	case !modifiable[name]:
		return engine.HookDecision{Action: engine.HookContinue, Ref: ref, Reason: "output/final_payload.json ignored: " + string(name) + " has nothing to replace"}
	}
	return engine.HookDecision{Action: engine.HookModify, Ref: ref, Payload: payload, Reason: ctlReason(ctl)}
}

// blockReason says why a call was blocked: the hook's own words when it
// gave some, else the end of its stderr. The engine prefixes it with "the
// call to X was blocked by the pre_tool_execution hook: ", so it does not
// say "blocked" again.
func blockReason(c control, res result) string {
	if r := ctlReason(c); r != "" {
		return r
	}
	if s := strings.TrimPrefix(tail(res.stderr), ": "); s != "" {
		return s
	}
	if res.exitCode == 2 {
		return "the hook exited with code 2 without a reason"
	}
	return "output/control.json gave no reason"
}

// writeInput writes input/context.json and input/payload.json.
func writeInput(dir string, req engine.HookRequest) error {
	hc := hookContext{
		HookName: req.Name, RunID: req.Run.RunID, RunDir: req.Run.RunDir, JournalPath: req.Run.JournalPath,
		AgentHome: req.Run.AgentHome, CWD: req.Run.WorkDir, Iteration: req.Run.Iteration,
		ToolName: req.ToolName, ToolResult: req.ToolResult, ErrorMessage: req.ErrorMessage,
		Timestamp: time.Now().UTC(),
	}
	data, err := json.MarshalIndent(hc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode hook context: %w", err)
	}
	payload := []byte(req.Payload)
	if len(payload) == 0 {
		payload = []byte("null")
	}
	if err := os.WriteFile(filepath.Join(dir, "input", "context.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write hook input: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "input", "payload.json"), payload, 0o644); err != nil {
		return fmt.Errorf("write hook input: %w", err)
	}
	if req.Name == agent.PreLLMRequest {
		// delta-engine's pre_llm_request hooks read the request here.
		if err := os.WriteFile(filepath.Join(dir, "input", "proposed_payload.json"), payload, 0o644); err != nil {
			return fmt.Errorf("write hook input: %w", err)
		}
	}
	return nil
}

// writeMeta completes execution_meta/ (execute.Run wrote stdout.log and
// stderr.log): the command line and the exit code.
func writeMeta(dir string, argv []string, res result) error {
	code := strconv.Itoa(res.exitCode)
	switch {
	case res.startErr != nil:
		code = "not started: " + res.startErr.Error()
	case res.timedOut:
		code = "timeout"
	case res.canceled:
		code = "interrupted"
	}
	if err := runs.WriteExecMeta(filepath.Join(dir, "execution_meta"), argv, code, res.startErr == nil); err != nil {
		return fmt.Errorf("write hook record: %w", err)
	}
	return nil
}

// hookEnv is the inherited environment, the run's variables
// (engine.RunInfo.Env) and the hook's own.
func (r *Runner) hookEnv(dir string, req engine.HookRequest) []string {
	run := req.Run
	env := append(append([]string(nil), r.environ()...), run.Env()...)
	env = append(env,
		"DELTA_HOOK_IO_PATH="+dir,
		"ITERATION_COUNT="+strconv.Itoa(run.Iteration),
		"HOOK_NAME="+string(req.Name),
	)
	if req.ToolName != "" {
		env = append(env, "TOOL_NAME="+req.ToolName)
	}
	if req.Name == agent.PostToolExecution {
		env = append(env, "TOOL_RESULT="+capEnv(req.ToolResult))
	}
	if req.ErrorMessage != "" {
		env = append(env, "ERROR_MESSAGE="+capEnv(req.ErrorMessage))
	}
	return env
}

func capEnv(s string) string {
	if len(s) <= maxEnvValue {
		return s
	}
	return s[:maxEnvValue] + "\n[truncated: full text in $DELTA_HOOK_IO_PATH/input/context.json]"
}

func expandAll(argv []string, home, cwd string) []string {
	rep := strings.NewReplacer("${AGENT_HOME}", home, "${CWD}", cwd)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = rep.Replace(a)
	}
	return out
}
