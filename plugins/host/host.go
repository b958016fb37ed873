// Package host runs Delta plugins for one run: it resolves each plugin
// named in agent.yaml (or by a hook) to a locked binary, starts one process
// per plugin on first use, merges plugin tools into an engine.Toolbox,
// answers hook-plugin invocations for the hooks package, and stops every
// process group when the run ends.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/deltakit/delta/lib/sandbox"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/plugins/internal/wire"
	"github.com/deltakit/delta/plugins/lock"
	"github.com/deltakit/delta/plugins/proto"
)

// DefaultTimeoutMS bounds a plugin tool call when neither the agent nor
// Options set a timeout.
const DefaultTimeoutMS = int(engine.DefaultToolTimeout / time.Millisecond)

// Options configure a Host.
type Options struct {
	// Dir is the plugin directory; "" means lock.Dir().
	Dir string
	// Stderr receives the plugins' stderr, each line once with a
	// "[plugin NAME] " prefix, and go-plugin's warnings (nil: discarded).
	Stderr io.Writer
	// Verbose adds go-plugin's debug messages (start, exit) to Stderr.
	Verbose bool
	// TimeoutMS bounds each tool call; 0 means the agent's tool timeout or
	// DefaultTimeoutMS.
	TimeoutMS int
	// Env is the plugins' whole environment, filtered as command tools'
	// is (agent.FilterEnv); nil means the process environment without its
	// secrets (lib/secret's rule).
	Env []string
	// ExecWrapper is the agent's exec_wrapper: given to each plugin in
	// DELTA_EXEC_WRAPPER (sdk.ExecWrapper), so that a plugin running
	// commands (the coding plugin's shell) runs them through it.
	ExecWrapper []string
	// Sandbox confines every plugin process and all it starts (the coding
	// plugin's file tools and shell alike); nil: nothing.
	Sandbox *sandbox.Rules
}

// Host holds a run's plugin processes.
type Host struct {
	opts Options
	lock *lock.File
	refs map[string]agent.PluginRef
	// order is the agent.yaml order of refs.
	order []string

	// setupErr is why the plugin directory or lock file is unusable; it is
	// reported only when a plugin is actually needed.
	setupErr error

	mu      sync.Mutex
	clients map[string]*Client
}

// New resolves every ref (checksums included) without starting anything.
// An error names the plugin; Hint(err) says what to do.
// With no refs, an unusable plugin directory is not an error until a hook
// names a plugin.
func New(refs []agent.PluginRef, opts Options) (*Host, error) {
	h := &Host{opts: opts, lock: &lock.File{Plugins: map[string]lock.Entry{}}, refs: map[string]agent.PluginRef{}, clients: map[string]*Client{}}
	if h.opts.Dir == "" {
		h.opts.Dir, h.setupErr = lock.Dir()
	}
	if h.setupErr == nil {
		lk, err := lock.ReadTrusted(h.opts.Dir)
		if err == nil {
			h.lock = lk
		}
		h.setupErr = err
	}
	if h.setupErr != nil && len(refs) > 0 {
		return nil, h.setupErr
	}
	for _, ref := range refs {
		if _, dup := h.refs[ref.Name]; dup {
			return nil, fmt.Errorf("plugin %q listed twice (%s)", ref.Name, ref.Source)
		}
		h.refs[ref.Name] = ref
		h.order = append(h.order, ref.Name)
		if _, err := h.client(ref.Name); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// client returns the Client of plugin name, resolving it on first use (a
// hook plugin need not be listed in agent.yaml: it is found by name).
func (h *Host) client(name string) (*Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c, ok := h.clients[name]; ok {
		return c, nil
	}
	if h.setupErr != nil {
		return nil, h.setupErr
	}
	ref, ok := h.refs[name]
	if !ok {
		ref = agent.PluginRef{Name: name}
	}
	bin, err := Resolve(ref, h.opts.Dir, h.lock)
	if err != nil {
		return nil, err
	}
	c, err := NewClient(bin, ref.Config, h.opts.Stderr)
	if err != nil {
		return nil, err
	}
	c.verbose, c.sandbox = h.opts.Verbose, h.opts.Sandbox
	if h.opts.Env != nil {
		c.env = h.opts.Env
	}
	if len(h.opts.ExecWrapper) > 0 {
		w, err := json.Marshal(h.opts.ExecWrapper)
		if err != nil {
			return nil, err
		}
		c.env = append(slices.Clip(c.env), wire.ExecWrapperVar+"="+string(w))
	}
	h.clients[name] = c
	return c, nil
}

// Client returns the client of a plugin listed in agent.yaml or locked.
func (h *Host) Client(name string) (*Client, error) { return h.client(name) }

// Close stops every plugin process (and its process group).
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.clients {
		c.Stop()
	}
	return nil
}

// Hook answers a hook that hooks.yaml routes to plugin; its signature is
// hooks.PluginFunc. The plugin is started on first use.
func (h *Host) Hook(ctx context.Context, plugin string, req engine.HookRequest) (engine.HookDecision, error) {
	c, err := h.client(plugin)
	if err != nil {
		return engine.HookDecision{Action: engine.HookContinue}, err
	}
	resp, err := c.Hook(ctx, &proto.HookRequest{
		Name:        string(req.Name),
		PayloadJson: req.Payload,
		Context: &proto.HookContext{
			RunId:        req.Run.RunID,
			RunDir:       req.Run.RunDir,
			Workdir:      req.Run.WorkDir,
			AgentHome:    req.Run.AgentHome,
			Iteration:    int32(req.Run.Iteration),
			ToolName:     req.ToolName,
			ToolResult:   req.ToolResult,
			ErrorMessage: req.ErrorMessage,
		},
	})
	if err != nil {
		return engine.HookDecision{Action: engine.HookContinue, Ran: true}, err
	}
	d := engine.HookDecision{Action: resp.GetAction(), Payload: resp.GetPayloadJson(), Reason: resp.GetReason(), Ran: true}
	switch d.Action {
	case "escalate":
		d.Action = engine.HookAsk
	case engine.HookContinue, engine.HookModify, engine.HookBlock, engine.HookAsk:
	case "":
		d.Action = engine.HookContinue
	default:
		return engine.HookDecision{Action: engine.HookContinue, Ran: true},
			fmt.Errorf("plugin %q answered unknown hook action %q", plugin, d.Action)
	}
	return d, nil
}

// errNoSuchTool is returned by Toolbox.Call for a name it does not serve.
var errNoSuchTool = errors.New("no such plugin tool")
