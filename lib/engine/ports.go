// Package engine is Delta's stateless think-act-observe loop (seeds/000
// §2.1): rebuild the context from the run's files, call the model, journal
// its thought, run the tools it asked for, and repeat.
//
// It is also the one home of the tool-call pipeline (step.go): every tool
// call — the model's in the loop, an MCP client's through delta mcp serve
// (Caller), a subagent's or a workflow agent's in its own run — goes
// pre_tool_execution hook → approval (lib/approval) → ACTION_REQUEST → the
// toolbox → redaction → post_tool_execution hook → ACTION_RESULT, its
// arguments validated and resolved once. Toolboxes (command tools,
// plugins, MCP servers, the subagent and workflow tools) only execute.
//
// The engine depends only on lib. The pieces that live above lib — context
// composition (contextgen), lifecycle hooks (hooks) and plugin tools
// (plugins) — reach it through the interfaces in this file, wired together
// by cmd/delta-run.
//
// The engine owns the one tool-call pipeline: every way a tool is called
// walks the same hooks, approvals, journal events, records and redaction
// here. A Toolbox only executes a call; the run's files are named by
// lib/runs and the model's vocabulary by lib/llm.
package engine

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// RunInfo identifies one run on disk; every port receives it.
type RunInfo struct {
	RunID       string
	RunDir      string // <workspace>/.delta/<run_id>
	JournalPath string // RunDir/journal.jsonl
	AgentHome   string
	WorkDir     string
	Agent       *agent.Agent
	Iteration   int // the iteration about to run (or running)
	// ParentRunID is the run that spawned this one ("" for a top-level
	// run) and Depth the run's depth in its tree (0 for a top-level
	// run), for tools that behave differently in a subagent.
	ParentRunID string
	Depth       int
	// Events, when set, returns the journal's events as the engine holds
	// them: what reading JournalPath yields, without parsing the file
	// again (the engine sets it to its Journal's Events). Nil: read
	// JournalPath. Callers must not modify the slice, and a later call
	// returns either the same events with more appended (the same backing
	// array: a context builder may then extend what it built from the
	// earlier ones) or a new slice.
	Events func() ([]journal.Event, error)
	// Records, when set (by the engine), writes the io/ records behind
	// the engine (WriteToolRecord); nil: records are written at once.
	Records *Records
}

// Env is the run's variables, the same for every command Delta runs for
// the run: tools, lifecycle hooks and computed_file generators.
//
//	DELTA_RUN_ID      the run's id
//	DELTA_RUN_DIR     the run directory, <workspace>/.delta/<run_id>
//	DELTA_WORKSPACE   the workspace (also the command's working directory)
//	DELTA_AGENT_HOME  the agent's directory
//	AGENT_HOME        the same, the name delta-engine 1.10 gave its tools
//	DELTA_CWD         the workspace, the name hooks have always had
//	JOURNAL_PATH      the run's journal.jsonl
//	RUN_DIR           the run directory, the name the hook protocol shows
//	DELTA_DEPTH       the run's depth: 0 for a top-level run, 1 for its subagents …
//	DELTA_PARENT_RUN_ID  the run that spawned this one, "" for a top-level run
//
// Callers add their own on top: DELTA_CALL_ID and DELTA_ITERATION for
// tools, the hook and generator variables for those.
func (r RunInfo) Env() []string {
	return []string{
		"DELTA_RUN_ID=" + r.RunID,
		"DELTA_RUN_DIR=" + r.RunDir,
		"DELTA_WORKSPACE=" + r.WorkDir,
		"DELTA_AGENT_HOME=" + r.AgentHome,
		"AGENT_HOME=" + r.AgentHome,
		"DELTA_CWD=" + r.WorkDir,
		"JOURNAL_PATH=" + r.JournalPath,
		"RUN_DIR=" + r.RunDir,
		"DELTA_DEPTH=" + strconv.Itoa(r.Depth),
		"DELTA_PARENT_RUN_ID=" + r.ParentRunID,
	}
}

// CallEnv is Env with the variables of one tool call on top:
// DELTA_CALL_ID (the call's id) and DELTA_ITERATION (the iteration that
// asked for it), so a tool can keep per-call state apart. Command tools
// get it, and plugins for the commands they run.
func (r RunInfo) CallEnv(callID string) []string {
	return append(r.Env(), "DELTA_CALL_ID="+callID, "DELTA_ITERATION="+strconv.Itoa(r.Iteration))
}

// ContextBuilder rebuilds, from the run's files, the messages the model
// receives next (seeds/000 §2.4). contextgen implements it; the engine calls
// it once per iteration and keeps nothing between calls.
type ContextBuilder interface {
	Build(ctx context.Context, run RunInfo) ([]llm.Message, error)
}

// HookRequest is one lifecycle hook invocation.
type HookRequest struct {
	Name agent.HookName
	Run  RunInfo
	// Payload is the hook's input document: the LLM request for
	// pre_llm_request, the response for post_llm_response, the tool call
	// ({"tool_name","tool_args","call_id"}) for pre_tool_execution, the
	// call and its result for post_tool_execution, the error for on_error,
	// the final status for on_run_end.
	Payload      json.RawMessage
	ToolName     string
	ToolResult   string
	ErrorMessage string
}

// Hook decisions.
const (
	HookContinue = "continue"
	HookModify   = "modify" // Payload replaces the request's payload
	HookBlock    = "block"  // pre_tool_execution: the call does not run
	// HookAsk (pre_tool_execution): the call waits for a human's approval,
	// as an approval rule's ask does; Reason says why.
	HookAsk = "ask"
)

// HookDecision is a hook's answer. A hook that fails or times out is
// reported through the journal and answers HookContinue: apart from a
// blocking decision a hook never breaks a run.
type HookDecision struct {
	Action  string
	Payload json.RawMessage
	Reason  string
	// Ran is true when a hook was configured and invoked; the engine then
	// journals a HOOK_EXECUTION event with Action, Ref and Failure.
	Ran bool
	// Ref is the hook's io/hooks directory, relative to RunInfo.RunDir.
	Ref string
	// Failure describes a hook that failed or timed out ("" when it ran
	// cleanly); the run goes on regardless.
	Failure string
}

// HookRunner runs the configured hook for req.Name, if any; with no hook
// configured it returns HookContinue at once. Hooks run synchronously.
type HookRunner interface {
	RunHook(ctx context.Context, req HookRequest) (HookDecision, error)
}

// ToolOutcome is the result of one tool call as the engine journals it.
type ToolOutcome struct {
	// Observation is what the model sees, already truncated per seeds/001 §5.
	Observation string
	ExitCode    int
	IsError     bool
	// Data is optional structured output (plugin tools).
	Data json.RawMessage
	// Stdout and Stderr are the command's output as captured (command
	// tools), for post_tool_execution hooks; the record keeps all of it.
	Stdout, Stderr string
	// RecordPath is the io/tool_executions record (relative to RunDir), when
	// the toolbox wrote one.
	RecordPath string
	DurationMS int64
	// SandboxRefused: the call failed because the sandbox refused it
	// something (set by the toolbox); Unsandboxed: it ran outside the
	// sandbox, escalated (set by the engine). See escalate.go.
	SandboxRefused, Unsandboxed bool
	// Parts are the result's images and sounds, with their data
	// (read_file of a PNG, an MCP server's screenshot): the engine keeps
	// each as a file of the call's record and names it in ACTION_RESULT.
	Parts []llm.Part `json:",omitempty"`
}

// Toolbox is a set of tools the model may call: the agent's command tools,
// a plugin's tools, or several merged (the first toolbox that has a name
// wins, so local definitions come first).
type Toolbox interface {
	Specs() []llm.ToolSpec
	Has(name string) bool
	Call(ctx context.Context, run RunInfo, callID, name string, args json.RawMessage) (ToolOutcome, error)
	// Close releases what the toolbox started (plugin processes).
	Close() error
}

// Resolver is a Toolbox that can say which command a call would run,
// without running it: pre_tool_execution hooks get it as
// resolved_command. Toolboxes whose tools are not commands (plugins)
// need not implement it.
type Resolver interface {
	Resolve(name string, args json.RawMessage) (string, bool)
}

// InterruptedCallObservation is the tool result of a call whose run
// stopped while it ran (kill -9, crash): the resumed engine journals it and
// delta-context shows it for a call without ACTION_RESULT, so that both
// give the model the same text. Its effects are unknown, so it is reported
// rather than run again.
const InterruptedCallObservation = "error: this tool call was interrupted before it finished (the engine stopped while it ran); its effects are unknown. Check the workspace before retrying."
