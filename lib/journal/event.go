// Package journal reads and writes journal.jsonl, the append-only event log
// that is the single source of truth of a run (seeds/000 §2.1.2).
//
// Events are flat JSON objects so that shell tools such as
// `jq -r .tool_name` work on them directly. Every event has type, seq and
// timestamp; the other fields depend on the type (see man 5 delta-journal).
package journal

import (
	"encoding/json"
	"time"

	"github.com/deltakit/delta/lib/llm"
)

// Type names an event kind.
type Type string

// The event types of seeds/000 §2.1.2, plus USER_MESSAGE, SYSTEM_MESSAGE and
// HOOK_EXECUTION (DESIGN.md).
const (
	EngineStart        Type = "ENGINE_START"
	UserMessage        Type = "USER_MESSAGE"
	Thought            Type = "THOUGHT"
	ActionRequest      Type = "ACTION_REQUEST"
	ActionResult       Type = "ACTION_RESULT"
	HumanInputRequest  Type = "HUMAN_INPUT_REQUEST"
	HumanInputReceived Type = "HUMAN_INPUT_RECEIVED"
	Error              Type = "ERROR"
	EngineEnd          Type = "ENGINE_END"
	SystemMessage      Type = "SYSTEM_MESSAGE"
	HookExecution      Type = "HOOK_EXECUTION"
	// TurnLimit: a limit of seeds/001 stopped the loop, and the run
	// completed with what it had; Kind says which limit.
	TurnLimit Type = "TURN_LIMIT"
)

// Kinds of TURN_LIMIT: the agent.yaml setting that was reached.
const (
	// KindMaxToolRounds: max_tool_rounds_per_input, the tool rounds after
	// one user input.
	KindMaxToolRounds = "max_tool_rounds_per_input"
	// KindMaxTurns: max_turns, the model turns of the whole run.
	KindMaxTurns = "max_turns"
)

// Kinds of SYSTEM_MESSAGE.
const (
	// KindLoopDetection: the last tool calls repeat a pattern.
	KindLoopDetection = "loop_detection"
	// KindContextWindow: the context passed 80% of the model's window.
	KindContextWindow = "context_window"
)

// Event is one journal line. Fields that do not apply to a type are omitted
// from its JSON.
type Event struct {
	// Envelope, on every event.
	Type      Type      `json:"type"`
	Seq       int64     `json:"seq"`
	Timestamp time.Time `json:"timestamp"`
	Iteration int       `json:"iteration,omitempty"`

	// ENGINE_START, ENGINE_END.
	RunID     string          `json:"run_id,omitempty"`
	AgentHome string          `json:"agent_home,omitempty"`
	WorkDir   string          `json:"work_dir,omitempty"`
	Config    json.RawMessage `json:"config,omitempty"`
	// ENGINE_START of a run spawned by another (spawn_agent): that run.
	ParentRunID string `json:"parent_run_id,omitempty"`
	// ENGINE_END: final status; FinalIteration the last iteration reached.
	Status         string `json:"status,omitempty"`
	FinalIteration int    `json:"final_iteration,omitempty"`

	// USER_MESSAGE, THOUGHT, SYSTEM_MESSAGE: the text.
	Content string `json:"content,omitempty"`
	// SYSTEM_MESSAGE: what it is about (KindLoopDetection,
	// KindContextWindow).
	Kind string `json:"kind,omitempty"`
	// USER_MESSAGE sent to a running run (delta send): its source
	// ("steer" or "follow_up") and the id of the inbox message, by which
	// a message is never journaled twice.
	Source    string `json:"source,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	// THOUGHT: the tool calls the model asked for, its token usage and the
	// model name; InvocationRef points to the io/invocations record.
	ToolCalls     []llm.ToolCall `json:"tool_calls,omitempty"`
	Usage         *llm.Usage     `json:"usage,omitempty"`
	Model         string         `json:"model,omitempty"`
	InvocationRef string         `json:"invocation_ref,omitempty"`
	// THOUGHT: the provider's response id, and its reasoning blocks, kept
	// whole to be sent back with this turn (see llm.Reasoning).
	ResponseID string          `json:"response_id,omitempty"`
	Reasoning  []llm.Reasoning `json:"reasoning,omitempty"`

	// ACTION_REQUEST, ACTION_RESULT: CallID ties both to the THOUGHT's tool
	// call so the conversation can be rebuilt exactly.
	CallID   string          `json:"call_id,omitempty"`
	ToolName string          `json:"tool_name,omitempty"`
	ToolArgs json.RawMessage `json:"tool_args,omitempty"`
	// ACTION_REQUEST: the files the call's output is written to while it
	// runs (its stdout, its stderr), relative to the run directory, for
	// tools that run a command; and the file (Path) or files (Paths) the
	// call's arguments name, for file tools.
	OutputFile string   `json:"output_file,omitempty"`
	StderrFile string   `json:"stderr_file,omitempty"`
	Path       string   `json:"path,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	// ACTION_RESULT: what the model sees (possibly truncated), the exit code
	// and the io/tool_executions record with the full output.
	ObservationContent string `json:"observation_content,omitempty"`
	ExitCode           *int   `json:"exit_code,omitempty"`
	IsError            bool   `json:"is_error,omitempty"`
	DurationMS         int64  `json:"duration_ms,omitempty"`
	ExecutionRef       string `json:"execution_ref,omitempty"`
	// ACTION_RESULT: the sandbox refused what the call tried (a write, a
	// connect), which may be escalated (input_type "escalation").
	// ACTION_REQUEST, ACTION_RESULT: the escalated call, run once outside
	// the sandbox after a human approved it; its result is the one the
	// model sees.
	SandboxRefused bool `json:"sandbox_refused,omitempty"`
	Unsandboxed    bool `json:"unsandboxed,omitempty"`
	// ACTION_RESULT: the images (and sounds) of the result, each a file
	// of the call's io/ record (type, media_type, path relative to the
	// run directory, bytes); the context shows them to the model after
	// the observation.
	Parts []llm.Part `json:"parts,omitempty"`

	// HUMAN_INPUT_REQUEST, HUMAN_INPUT_RECEIVED.
	Prompt    string `json:"prompt,omitempty"`
	InputType string `json:"input_type,omitempty"`
	Sensitive bool   `json:"sensitive,omitempty"`
	Response  string `json:"response,omitempty"`
	// An approval (input_type "approval"): the rule that asked, on the
	// request; who answered, on HUMAN_INPUT_RECEIVED (with Decision
	// "approved" or "denied").
	Rule string `json:"rule,omitempty"`
	By   string `json:"by,omitempty"`

	// ERROR.
	ErrorMessage string          `json:"error_message,omitempty"`
	ErrorDetails json.RawMessage `json:"error_details,omitempty"`

	// HOOK_EXECUTION: which hook ran, its decision and its io/hooks record.
	HookName string `json:"hook_name,omitempty"`
	Decision string `json:"decision,omitempty"`
	HookRef  string `json:"hook_ref,omitempty"`
}
