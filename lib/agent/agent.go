// Package agent loads and validates an agent directory (seeds/000 §2.7):
// agent.yaml (or legacy config.yaml), imports, hooks.yaml, context.yaml and
// the plugins list, into one Agent value the engine and the other commands
// share.
package agent

import (
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/lib/tool"
)

// Agent is a loaded, merged and validated agent definition. All paths are
// absolute.
type Agent struct {
	Home        string // agent directory (symlinks resolved)
	ConfigPath  string // agent.yaml, or config.yaml when falling back
	Name        string
	Version     string
	Description string
	// WorkspaceSync is how the agent's run goes on when the cluster
	// worker running it dies (none, git or shared; delta-cluster reads
	// it: the engine does nothing with it).
	WorkspaceSync string

	LLM              LLMConfig
	SystemPromptPath string
	// MaxIterations from agent.yaml; 0 when not set (the engine's default
	// of 30 applies).
	MaxIterations int
	// ToolTimeoutMS is the agent-wide default tool timeout; 0 when not set.
	ToolTimeoutMS int
	// ExecWrapper is an argv prefix for every command tool (docker exec,
	// ssh, bwrap …); nil runs tools directly.
	ExecWrapper []string
	// Output is the agent-wide output limits of command tools (nil: the
	// defaults); a tool's own output: overrides it.
	Output *tool.OutputLimits
	// MaxTurns caps the model turns of a whole run, over all its
	// invocations; 0 when not set (no cap). Reaching it stops the run
	// with what it has (COMPLETED, a TURN_LIMIT event).
	MaxTurns int
	// MaxToolRoundsPerInput caps the tool rounds (model turns that call
	// tools) after one user input; 0 when not set (no cap). Reaching it
	// stops the run with what it has (COMPLETED, a TURN_LIMIT event).
	MaxToolRoundsPerInput int
	// ParallelTools is how many tool calls of one turn may run at once:
	// 1 when parallel_tool_calls is false, else max_parallel_tools, else
	// DefaultParallelTools.
	ParallelTools int
	// Env configures the environment tools and hooks see.
	Env EnvConfig
	// Approval is the approval policy: the first matching rule decides
	// whether a tool call runs, is denied, or waits for a human.
	Approval []ApprovalRule
	// LoopWindow is loop_detection.window: how many of the last tool
	// calls are checked for a repeating pattern; 0 when not set (the
	// engine's default of 10), -1 when loop_detection.enabled is false.
	LoopWindow int

	// Sandbox is agent.yaml's sandbox: what the tools may write and
	// connect to; nil when the agent does not say (the run's default).
	Sandbox *sandbox.Policy

	// Subagents is the subagents block: the spawn_agent tools.
	Subagents Subagents

	Tools   []tool.Tool // imports merged in order, local tools last
	Plugins []PluginRef
	Hooks   Hooks
	Context ContextConfig

	// MCPServers are the MCP servers whose tools the model may call
	// (imports' entries first; a later entry of a name replaces one).
	MCPServers []MCPServer

	// Warnings are non-fatal findings (deprecations, both config files
	// present); commands print them to stderr.
	Warnings []string
}

// LLMConfig is agent.yaml's llm block.
type LLMConfig struct {
	Provider string // "openai" (default), "openai-compatible", "anthropic", "gemini", "scripted"
	// DefaultProvider says llm.provider was not set: Provider is the
	// default, and a model string naming its provider (DELTA_MODEL=sonnet)
	// may still choose another.
	DefaultProvider  bool
	Model            string
	BaseURL          string
	Script           string // scripted provider: the turns file (absolute)
	Temperature      *float64
	MaxTokens        *int64
	TopP             *float64
	FrequencyPenalty *float64
	PresencePenalty  *float64
	Stop             []string
	Seed             *int64
	Extra            map[string]any // other OpenAI-style parameters, passed through
	// Price overrides the built-in price table (llm.Prices) for the
	// run's cost; nil uses the table.
	Price *llm.Price
	// Prices are the agent's own prices per model (llm.prices), stronger
	// than Price and the table.
	Prices map[string]llm.Price
	// Cache turns automatic prompt caching off when false (llm.cache);
	// nil means on.
	Cache *bool
	// MaxCostUSD stops the run before a model call that would take its
	// cost past it (llm.max_cost_usd); nil means no limit.
	MaxCostUSD *float64
	// Images says whether the model takes images (llm.images); nil uses
	// the known inputs of the model (llm.InputsOf): a model the table
	// does not know gets a line of text for each image.
	Images *bool
	// TimeoutMS bounds one model request (each retry gets its own); nil
	// uses the provider default.
	TimeoutMS *int64
	// FirstByteTimeoutMS bounds the wait for the first byte of a streamed
	// answer, IdleTimeoutMS any later gap in it; nil uses the provider
	// defaults (two minutes each).
	FirstByteTimeoutMS *int64
	IdleTimeoutMS      *int64
	// API chooses the wire protocol of the openai provider: "responses"
	// (OpenAI's Responses API) or "chat" (Chat Completions); "" picks
	// responses for OpenAI's own endpoint and chat for any other base URL.
	API string
	// ContextWindow is the model's context size in tokens; nil uses the
	// known size of the model, if any (llm.ContextWindowOf).
	ContextWindow *int64
	// ReasoningEffort is "", "low", "medium" or "high", mapped per
	// provider (OpenAI's reasoning_effort, Anthropic's thinking budget).
	ReasoningEffort string
}

// DefaultParallelTools is how many tool calls of one turn run at once
// unless agent.yaml says otherwise.
const DefaultParallelTools = 8

// EnvConfig controls secret filtering (seeds/001 §4.2).
type EnvConfig struct {
	// Passthrough names variables kept even though they look secret.
	Passthrough []string
	// Deny adds glob patterns of variables to remove.
	Deny []string
	// InheritSecrets turns the default secret filter off.
	InheritSecrets bool
	// Inherit is which variables child processes get at all: InheritAll
	// ("" too), InheritCore or InheritNone.
	Inherit string
}

// PluginRef is one entry of agent.yaml's plugins list.
type PluginRef struct {
	Name   string
	Path   string         // optional explicit binary (absolute once loaded)
	Tools  []string       // optional subset of the plugin's tools
	Config map[string]any // passed to the plugin at start
	// AllowPath lets an unlocked delta-plugin-NAME found on PATH load.
	AllowPath bool
	Source    string // file:line:column of the entry
}

// HookName is a canonical lifecycle hook name (seeds/000 §2.7.3).
type HookName string

// The eight lifecycle hooks.
const (
	PreLLMRequest     HookName = "pre_llm_request"
	PostLLMResponse   HookName = "post_llm_response"
	PreToolExecution  HookName = "pre_tool_execution"
	PostToolExecution HookName = "post_tool_execution"
	OnError           HookName = "on_error"
	OnRunEnd          HookName = "on_run_end"
	OnIterationStart  HookName = "on_iteration_start"
	OnIterationEnd    HookName = "on_iteration_end"
)

// Hooks maps each configured hook to its definition.
type Hooks map[HookName]HookSpec

// HookSpec is one hook: a command, or the name of a hook plugin.
type HookSpec struct {
	Command   []string // ${AGENT_HOME} and ${CWD} expanded at run time
	Plugin    string
	TimeoutMS int // 0: the hooks package default
	// Description says what the hook is for; only people read it.
	Description string
	Source      string
}

// ContextConfig is context.yaml.
type ContextConfig struct {
	Path    string
	Sources []ContextSource
}

// HasJQ reports whether a source has a jq generator.
func (c ContextConfig) HasJQ() bool {
	for _, s := range c.Sources {
		if g := s.Generator; g != nil && (g.JQ != "" || g.JQFile != "") {
			return true
		}
	}
	return false
}

// Source types of context.yaml.
const (
	SourceFile         = "file"
	SourceComputedFile = "computed_file"
	SourceJournal      = "journal"
	SourceEnvironment  = "environment"  // where and when the run works
	SourceProjectDocs  = "project_docs" // AGENTS.md and the provider's own file
	SourceSkills       = "skills"       // the SKILL.md files the model may load
)

// ContextSource is one entry of context.yaml's sources, in priority order.
type ContextSource struct {
	Type          string
	ID            string
	Path          string // file: may contain ${AGENT_HOME}, ${CWD}
	OnMissing     string // "error" (default) or "skip"
	Generator     *Generator
	OutputPath    string // computed_file
	MaxIterations int    // journal: 0 means all
	MaxTokens     int    // 0 means unlimited
	Index         int    // position in sources, from 0
	Line          int    // line in context.yaml
}

// Generator produces a computed_file: an external command, or an
// in-process jq program over the journal.
type Generator struct {
	Command   []string
	TimeoutMS int // default 30000
	JQ        string
	JQFile    string
}
