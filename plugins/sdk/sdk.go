// Package sdk is how a Delta plugin is written: implement ToolProvider
// (tools the model may call) and/or HookProvider (answers to lifecycle
// hooks) on a small Go type and call Serve from main. The go-plugin
// handshake, gRPC and protobuf stay behind this package.
//
// A plugin's stdout belongs to the handshake: log to stderr (the host
// forwards it to the engine's stderr).
//
// Each call comes with what a command tool would get from Delta: the
// workspace (CallRequest.WorkDir), the run's variables
// (CallRequest.Env) and a directory beside the call's record
// (CallRequest.RecordDir) for the files to keep with it, so a plugin
// never needs to find the run directory or know its layout. The host
// writes the record itself: the arguments, the timing, the whole Output
// (inline, or in stdout.log in RecordDir when it is large) and Data.
package sdk

import (
	"context"
	"encoding/json"
	"time"
)

// Tool describes one tool a plugin serves, as the model sees it.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object; nil means
	// {"type":"object"}.
	Parameters json.RawMessage
}

// CallRequest is one tool call.
type CallRequest struct {
	Name      string
	Arguments json.RawMessage // the JSON object the model sent
	// WorkDir is the run's workspace; relative paths resolve against it.
	WorkDir string
	CallID  string
	RunID   string
	// Deadline is when the host gives up on the call (zero: none); ctx
	// carries the same deadline and is cancelled with the call.
	Deadline time.Time
	// RecordDir is the directory of the call's record in the run
	// (.delta/RUN/io/tool_executions/NAME/), made by the host for this
	// call; "" outside a run. A file written there is kept with the
	// record, its secrets redacted like the record's: the place for a
	// whole output of which the model is shown only part (tell the
	// model its path, relative to WorkDir). The host removes the
	// directory after the call when it is left empty.
	RecordDir string
	// Env is the run's variables and the call's, as KEY=VALUE: DELTA_RUN_ID,
	// DELTA_RUN_DIR, DELTA_WORKSPACE, DELTA_AGENT_HOME, DELTA_CALL_ID,
	// DELTA_ITERATION and the rest a command tool gets. The plugin's own
	// environment is already filtered of secrets; a plugin that runs
	// commands gives them os.Environ() with Env appended, as Delta gives
	// its command tools.
	Env []string
}

// CallResult is a tool's answer. IsError marks an error the model should
// see and may recover from (bad arguments, file not found); a Go error
// returned from Call is reported the same way, prefixed as a plugin error.
type CallResult struct {
	Output  string
	IsError bool
	// Data is optional structured output, journalled but not shown to the
	// model.
	Data json.RawMessage
	// Parts are images (or sounds) the model is shown after Output, for
	// a model that takes them; another model gets a line saying what each
	// was. The host keeps each as a file with the call's record.
	Parts []Part
}

// Kinds of a Part.
const (
	PartImage = "image"
	PartAudio = "audio"
)

// Part is an image or a sound of a tool's result.
type Part struct {
	// Type is PartImage or PartAudio.
	Type string
	// MediaType is the IANA media type of Data: image/png, image/jpeg,
	// image/gif, image/webp, audio/wav …
	MediaType string
	Data      []byte
}

// Image is an image part of mediaType.
func Image(mediaType string, data []byte) Part {
	return Part{Type: PartImage, MediaType: mediaType, Data: data}
}

// ToolProvider is a plugin that serves tools.
type ToolProvider interface {
	Tools(ctx context.Context) ([]Tool, error)
	Call(ctx context.Context, req CallRequest) (CallResult, error)
}

// Configurer is optionally implemented by a ToolProvider that takes the
// agent's per-plugin config (agent.yaml plugins[].config, as a JSON
// object). The host calls it once per process start, before anything else.
type Configurer interface {
	Configure(ctx context.Context, config json.RawMessage) error
}

// Hook actions a HookProvider may answer.
const (
	Continue = "continue"
	Modify   = "modify" // HookResponse.Payload replaces the hook's payload
	Block    = "block"  // pre_tool_execution: the tool call does not run
	Ask      = "ask"    // pre_tool_execution: a human approves the call first (Reason says why)
)

// HookRequest is one lifecycle hook invocation (seeds/000 §2.7.3).
type HookRequest struct {
	// Name is the hook: pre_llm_request, post_llm_response,
	// pre_tool_execution, post_tool_execution, on_error, on_run_end,
	// on_iteration_start or on_iteration_end.
	Name    string
	Payload json.RawMessage
	RunID   string
	RunDir  string
	WorkDir string
	// AgentHome is the agent's directory.
	AgentHome    string
	Iteration    int
	ToolName     string
	ToolResult   string
	ErrorMessage string
}

// HookResponse is a hook's decision; an empty Action means Continue.
type HookResponse struct {
	Action  string
	Payload json.RawMessage
	Reason  string
}

// HookProvider is a plugin that answers lifecycle hooks.
type HookProvider interface {
	Hook(ctx context.Context, req HookRequest) (HookResponse, error)
}

// Plugin is what Serve serves: tools, hooks or both.
type Plugin struct {
	Tools ToolProvider
	Hooks HookProvider
	// Version is reported to `delta plugin install` and `list` ("" lets the
	// installer use the module version or "local").
	Version string
}

// Text returns a successful CallResult with output s.
func Text(s string) CallResult { return CallResult{Output: s} }

// Errorf returns a CallResult the model sees as a tool error.
func Errorf(format string, args ...any) CallResult {
	return CallResult{Output: sprintf(format, args...), IsError: true}
}
