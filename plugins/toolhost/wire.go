// Package toolhost runs a run's plugins and MCP servers in a process of
// their own, delta-toolhost, and gives delta-run their tools as an
// engine.Toolbox and their hooks as a hooks.PluginFunc.
//
// Why: the plugin host (go-plugin with gRPC and protobuf) and the MCP
// client (the MCP SDK) are most of what a Delta binary links, and their
// package initialisation and pages are paid at every start, by every run
// and by every `delta-run --version`, whether the agent uses a plugin or
// not. Out of delta-run, only a run that has plugins or MCP servers (or a
// hook routed to a plugin) pays for them, once, by starting
// delta-toolhost.
//
// The protocol is ours and small: one JSON object per line on the tool
// host's stdin (requests, each with an id) and stdout (replies, with the
// id of their Request, in any order: calls run concurrently). Tool
// outcomes travel as engine.ToolOutcome encoded whole, so every field of
// it reaches the engine as the toolbox set it. The tool host's stderr is
// the plugins' and servers' stderr. When its stdin closes (delta-run
// exited, even by SIGKILL) it stops every plugin and server and exits.
package toolhost

import (
	"encoding/json"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/lib/tool"
)

// Name is the tool host's binary, installed next to delta-run.
const Name = "delta-toolhost"

// Arg is the tool host's first argument, naming the protocol's version:
// a tool host of another build refuses it instead of misreading requests.
const Arg = "--serve-v1"

// Config is what the tool host starts: the plugin host and its tools, and
// the MCP servers, with what delta-run would have given them in-process.
type Config struct {
	// Plugins are agent.yaml's plugins; PluginTools says their tools are
	// offered (false: the host serves hook plugins only).
	Plugins     []agent.PluginRef `json:"plugins,omitempty"`
	PluginTools bool              `json:"plugin_tools,omitempty"`
	// PluginEnv is the plugins' environment (agent.FilterEnv), ExecWrapper
	// the agent's exec_wrapper and ToolTimeoutMS its tool_timeout_ms.
	PluginEnv     []string `json:"plugin_env,omitempty"`
	ExecWrapper   []string `json:"exec_wrapper,omitempty"`
	ToolTimeoutMS int      `json:"tool_timeout_ms,omitempty"`
	Verbose       bool     `json:"verbose,omitempty"`
	// Sandbox confines plugin processes and stdio servers (nil: nothing).
	Sandbox *sandbox.Rules `json:"sandbox,omitempty"`
	// MCPServers are agent.yaml's mcp_servers, Started with MCPEnviron
	// (the environment their ${VAR}s expand from) and their tool records
	// kept under ToolDir; Output is the agent's output limits.
	MCPServers []agent.MCPServer  `json:"mcp_servers,omitempty"`
	MCPEnviron []string           `json:"mcp_environ,omitempty"`
	ToolDir    string             `json:"tool_dir,omitempty"`
	Output     *tool.OutputLimits `json:"output,omitempty"`
	// Local are the names of the tools that win over the MCP servers'
	// (the agent's own): an MCP tool of such a name is hidden, with a
	// warning.
	Local []string `json:"local,omitempty"`
	// ProviderEnv is what the provider read (the .env files too): their
	// secrets are redacted from the tool records as the engine's are.
	ProviderEnv []string `json:"provider_env,omitempty"`
}

// Request is one line on the tool host's stdin.
type Request struct {
	ID uint64 `json:"id"`
	// Op is start, call, hook, cancel (of the Request ID names) or close.
	Op    string       `json:"op"`
	Start *Config      `json:"start,omitempty"`
	Call  *CallRequest `json:"call,omitempty"`
	Hook  *HookRequest `json:"hook,omitempty"`
}

// Reply is one line on the tool host's stdout.
type Reply struct {
	ID       uint64               `json:"id"`
	Error    *Failure             `json:"error,omitempty"`
	Start    *Started             `json:"start,omitempty"`
	Outcome  *engine.ToolOutcome  `json:"outcome,omitempty"`
	Decision *engine.HookDecision `json:"decision,omitempty"`
}

// Started answers start: the tools served and the warnings to print.
type Started struct {
	Specs    []llm.ToolSpec `json:"specs,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
	// Streams names the tools that may run commands, whose output goes
	// to the call's io/output files while they run (engine.OutputStreamer).
	Streams []string `json:"streams,omitempty"`
	// Escalates names the tools that can run a call outside the sandbox
	// (engine.Escalator): the plugins' tools of a sandboxed run.
	Escalates []string `json:"escalates,omitempty"`
}

// Failure is an error with what delta-run reports with it: its exit
// code, hint and label (lib/cli.Error).
type Failure struct {
	Message string `json:"message"`
	Code    int    `json:"code,omitempty"`
	Hint    string `json:"hint,omitempty"`
	Label   string `json:"label,omitempty"`
}

// Run is the part of an engine.RunInfo a plugin or MCP tool uses.
type Run struct {
	RunID       string `json:"run_id"`
	RunDir      string `json:"run_dir,omitempty"`
	JournalPath string `json:"journal_path,omitempty"`
	AgentHome   string `json:"agent_home,omitempty"`
	WorkDir     string `json:"work_dir,omitempty"`
	Iteration   int    `json:"iteration,omitempty"`
	ParentRunID string `json:"parent_run_id,omitempty"`
	Depth       int    `json:"depth,omitempty"`
	// Records: the engine writes this run's records behind it
	// (RunInfo.Records); the tool host then writes them the same way,
	// redacted, before it answers.
	Records bool `json:"records,omitempty"`
}

// RunOf is what the tool host needs of r.
func RunOf(r engine.RunInfo) Run {
	return Run{RunID: r.RunID, RunDir: r.RunDir, JournalPath: r.JournalPath, AgentHome: r.AgentHome, WorkDir: r.WorkDir,
		Iteration: r.Iteration, ParentRunID: r.ParentRunID, Depth: r.Depth, Records: r.Records != nil}
}

// RunInfo is the engine.RunInfo a tool host's toolbox is given (without
// Records, which the tool host makes).
func (r Run) RunInfo() engine.RunInfo {
	return engine.RunInfo{RunID: r.RunID, RunDir: r.RunDir, JournalPath: r.JournalPath, AgentHome: r.AgentHome, WorkDir: r.WorkDir,
		Iteration: r.Iteration, ParentRunID: r.ParentRunID, Depth: r.Depth}
}

// CallRequest is a tool call (Toolbox.Call).
type CallRequest struct {
	Run    Run             `json:"run"`
	CallID string          `json:"call_id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args,omitempty"`
	// Unsandboxed runs the call outside the sandbox: an escalation a
	// human approved (engine.Escalator).
	Unsandboxed bool `json:"unsandboxed,omitempty"`
}

// HookRequest is a hook routed to a plugin (hooks.PluginFunc).
type HookRequest struct {
	Plugin       string          `json:"plugin"`
	Name         agent.HookName  `json:"name"`
	Run          Run             `json:"run"`
	Payload      json.RawMessage `json:"payload,omitempty"`
	ToolName     string          `json:"tool_name,omitempty"`
	ToolResult   string          `json:"tool_result,omitempty"`
	ErrorMessage string          `json:"error_message,omitempty"`
}
