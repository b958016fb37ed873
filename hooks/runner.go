package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
)

// DefaultTimeoutMS is a hook's timeout when hooks.yaml sets none.
const DefaultTimeoutMS = 30000

// PluginFunc answers a hook handled by a hook plugin; the plugins package
// provides it when the agent loads plugins.
type PluginFunc func(ctx context.Context, plugin string, req engine.HookRequest) (engine.HookDecision, error)

// Options configure a Runner.
type Options struct {
	// Stderr is not written to: a failed hook is reported in its decision
	// (Failure), which the engine journals and delta-run shows once.
	//
	// Deprecated: kept so that callers setting it still compile.
	Stderr io.Writer
	// Plugin answers hooks that name a plugin; nil when no plugins are
	// wired, and such hooks then fail (recorded, run goes on).
	Plugin PluginFunc
	// Environ returns the environment hooks inherit before the Delta
	// variables are added; nil means os.Environ filtered by the agent's env
	// settings.
	Environ func() []string
}

// Runner runs the hooks of one agent. It implements engine.HookRunner and
// keeps no state: the io/hooks sequence number comes from the directory.
type Runner struct {
	agent *agent.Agent
	opts  Options
}

var _ engine.HookRunner = (*Runner)(nil)

// New returns the hook runner of agent a.
func New(a *agent.Agent, opts Options) *Runner {
	return &Runner{agent: a, opts: opts}
}

// RunHook runs the hook configured for req.Name. With none configured it
// answers HookContinue with Ran false. Failures are reported in the
// decision (Failure), not as an error. The error is only for a cancelled
// ctx, and never for pre_tool_execution: an interrupted policy hook is a
// block decision ("policy hook interrupted"), so that an engine that goes
// on after a hook error cannot start the guarded tool.
func (r *Runner) RunHook(ctx context.Context, req engine.HookRequest) (engine.HookDecision, error) {
	if r == nil || r.agent == nil {
		return engine.HookDecision{Action: engine.HookContinue}, nil
	}
	spec, ok := r.agent.Hooks[req.Name]
	if !ok || (len(spec.Command) == 0 && spec.Plugin == "") {
		return engine.HookDecision{Action: engine.HookContinue}, nil
	}
	var d engine.HookDecision
	if spec.Plugin != "" {
		d = r.runPlugin(ctx, spec, req)
	} else {
		d = r.runCommand(ctx, spec, req)
	}
	d.Ran = true
	if err := ctx.Err(); err != nil {
		if req.Name == agent.PreToolExecution {
			d = interrupted(req.Name, d.Ref)
			d.Ran = true
			return d, nil
		}
		return d, fmt.Errorf("hook %s: %w", req.Name, err)
	}
	return d, nil
}

// runPlugin delegates to the plugin host under the hook's timeout, as for
// a command hook; a missing host, a plugin error or the timeout is a
// failure like a command hook's.
func (r *Runner) runPlugin(ctx context.Context, spec agent.HookSpec, req engine.HookRequest) engine.HookDecision {
	if r.opts.Plugin == nil {
		return failed(req.Name, "", fmt.Sprintf("hook names plugin %q but no plugins are loaded (list it under plugins: in agent.yaml)", spec.Plugin))
	}
	timeout := hookTimeout(spec)
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d, err := r.opts.Plugin(pctx, spec.Plugin, req)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded):
		return failed(req.Name, d.Ref, fmt.Sprintf("plugin %q timed out after %v (it is stopped and restarts on the next call)", spec.Plugin, timeout))
	case err != nil:
		return failed(req.Name, d.Ref, fmt.Sprintf("plugin %q: %v", spec.Plugin, err))
	}
	if d.Action == "" {
		d.Action = engine.HookContinue
	}
	if (d.Action == engine.HookBlock || d.Action == engine.HookAsk) && req.Name != agent.PreToolExecution {
		d.Action = engine.HookContinue
	}
	return d
}

// hookTimeout is the hook's timeout_ms, or DefaultTimeoutMS.
func hookTimeout(spec agent.HookSpec) time.Duration {
	if spec.TimeoutMS <= 0 {
		return DefaultTimeoutMS * time.Millisecond
	}
	return time.Duration(spec.TimeoutMS) * time.Millisecond
}

// interrupted is the decision of a hook stopped because the run was
// interrupted: for pre_tool_execution a block (the policy gave no verdict,
// so the tool must not start), for the others a failure and the run goes
// on to stop.
func interrupted(name agent.HookName, ref string) engine.HookDecision {
	d := failed(name, ref, "interrupted: the run was stopped while the hook ran")
	if name == agent.PreToolExecution {
		d.Reason = "policy hook interrupted"
	}
	return d
}

// failed is the decision of a hook that could not give a verdict: the
// engine's one fail-closed rule.
func failed(name agent.HookName, ref, failure string) engine.HookDecision {
	return engine.FailedHook(name, ref, failure)
}

func (r *Runner) environ() []string {
	if r.opts.Environ != nil {
		return r.opts.Environ()
	}
	return agent.FilterEnv(os.Environ(), r.agent.Env)
}

// modifiable lists the hooks whose final_payload.json replaces what the
// engine goes on with: the request, the response, the tool call, the tool
// result. For the others there is nothing to replace.
var modifiable = map[agent.HookName]bool{
	agent.PreLLMRequest:     true,
	agent.PostLLMResponse:   true,
	agent.PreToolExecution:  true,
	agent.PostToolExecution: true,
}

// validJSON reports whether data is one JSON value.
func validJSON(data []byte) bool { return json.Valid(data) }
