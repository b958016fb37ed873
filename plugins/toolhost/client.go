package toolhost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sync"
	"syscall"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sys"
)

// Host is a running tool host: its plugins' and MCP servers' tools as an
// engine.Toolbox (Specs, Has, Call, Close) and its hook plugins (Hook).
type Host struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	wmu   sync.Mutex // one request line at a time

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan Reply
	gone    error         // why the tool host's stdout ended; set once
	exited  chan struct{} // closed when it has

	specs     []llm.ToolSpec
	has       map[string]bool
	streams   map[string]bool
	escalates map[string]bool

	closeOnce sync.Once
	closeErr  error
}

// ErrGone is the error of a request the tool host can no longer answer:
// it exited.
var ErrGone = errors.New("the tool host (" + Name + ") exited")

// Start starts the tool host (delta-toolhost, found next to the running
// executable, then on PATH) with cfg, its stderr going to stderr, and
// returns it with the warnings it noticed (MCP servers' unset variables,
// hidden tools). A plugin or server that does not start fails Start with
// the exit code and hint delta-run reports; what had started is stopped.
func Start(ctx context.Context, cfg Config, stderr io.Writer) (*Host, []string, error) {
	path, err := cli.FindCommand(Name)
	if err != nil {
		return nil, nil, cli.WithCode(runs.ExitConfig, "install every delta binary together (make install, or the release archive): "+Name+" runs plugins and MCP servers",
			fmt.Errorf("find %s next to this program or on PATH: %w", Name, err))
	}
	cmd := exec.Command(path, Arg)
	cmd.Stderr = stderr
	// The tool host ends with us: its stdin closes when we exit (even by
	// SIGKILL), and the parent-death signal covers a hung pipe. In a
	// process group of its own, as plugins are, a Ctrl-C at the terminal
	// reaches only us: the run's cancellation stops its calls.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sys.SetParentDeathSignal(cmd.SysProcAttr, syscall.SIGTERM)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", path, err)
	}
	h := &Host{cmd: cmd, stdin: stdin, pending: map[uint64]chan Reply{}, exited: make(chan struct{}), has: map[string]bool{}}
	go h.read(stdout)
	r, err := h.do(ctx, Request{Op: "start", Start: &cfg})
	if err == nil && r.Start == nil {
		err = fmt.Errorf("%s answered start without its tools", Name)
	}
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	h.specs = r.Start.Specs
	for _, s := range h.specs {
		h.has[s.Name] = true
	}
	h.streams = map[string]bool{}
	for _, name := range r.Start.Streams {
		h.streams[name] = true
	}
	h.escalates = map[string]bool{}
	for _, name := range r.Start.Escalates {
		h.escalates[name] = true
	}
	return h, r.Start.Warnings, nil
}

// read hands every reply line to the request waiting for it, until the
// tool host's stdout ends; then every waiting request fails with ErrGone.
func (h *Host) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	for sc.Scan() {
		var r Reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue // not ours: a reply is never lost, only garbage
		}
		h.mu.Lock()
		ch := h.pending[r.ID]
		delete(h.pending, r.ID)
		h.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	h.mu.Lock()
	h.gone = ErrGone
	if err := sc.Err(); err != nil {
		h.gone = fmt.Errorf("%w: read its replies: %v", ErrGone, err)
	}
	for id, ch := range h.pending {
		delete(h.pending, id)
		close(ch)
	}
	h.mu.Unlock()
	close(h.exited)
}

// send writes one request line.
func (h *Host) send(req Request) error {
	line, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", req.Op, err)
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_, err = h.stdin.Write(append(line, '\n'))
	return err
}

// do sends req and waits for its reply. When ctx ends first the request
// is cancelled and its reply still awaited: the tool host answers a
// cancelled call as the toolbox does (an error observation).
func (h *Host) do(ctx context.Context, req Request) (Reply, error) {
	ch := make(chan Reply, 1)
	h.mu.Lock()
	if h.gone != nil {
		h.mu.Unlock()
		return Reply{}, h.gone
	}
	h.next++
	req.ID = h.next
	h.pending[req.ID] = ch
	h.mu.Unlock()
	if err := h.send(req); err != nil {
		h.mu.Lock()
		delete(h.pending, req.ID)
		h.mu.Unlock()
		return Reply{}, fmt.Errorf("%w: %v", ErrGone, err)
	}
	var r Reply
	var ok bool
	select {
	case r, ok = <-ch:
	case <-ctx.Done():
		_ = h.send(Request{ID: req.ID, Op: "cancel"})
		r, ok = <-ch
	}
	if !ok {
		h.mu.Lock()
		defer h.mu.Unlock()
		return Reply{}, h.gone
	}
	if r.Error != nil {
		return r, r.Error.err()
	}
	return r, nil
}

// err is the error delta-run reports: with its exit code, hint and label.
func (f *Failure) err() error {
	err := errors.New(f.Message)
	if f.Code == 0 && f.Hint == "" && f.Label == "" {
		return err
	}
	return &cli.Error{Code: f.Code, Hint: f.Hint, Label: f.Label, Err: err}
}

// Specs lists the tools the tool host serves: its plugins', then its MCP
// servers'.
func (h *Host) Specs() []llm.ToolSpec { return slices.Clone(h.specs) }

// Has reports whether the tool host serves name.
func (h *Host) Has(name string) bool { return h.has[name] }

// StreamsOutput: name may run commands whose output the engine follows
// live (engine.OutputStreamer), as the tool host said at start.
func (h *Host) StreamsOutput(name string) bool { return h.streams[name] }

// Call runs one tool call in the tool host. A tool host that exited makes
// an error observation, as a plugin that crashed does.
func (h *Host) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	return h.call(ctx, CallRequest{Run: RunOf(run), CallID: callID, Name: name, Args: args})
}

// Unsandboxed is the toolbox that runs name outside the sandbox, for the
// on-failure escalation (engine.Escalator): false for a tool the tool
// host cannot run unconfined (an MCP server's, or any in a run without
// a sandbox).
func (h *Host) Unsandboxed(name string) (engine.Toolbox, bool) {
	if !h.escalates[name] {
		return nil, false
	}
	return outside{h}, true
}

// outside is the tool host's toolbox of calls run outside the sandbox.
type outside struct{ *Host }

// Call runs one call outside the sandbox, in the tool host.
func (o outside) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	return o.call(ctx, CallRequest{Run: RunOf(run), CallID: callID, Name: name, Args: args, Unsandboxed: true})
}

// Close leaves the tool host to the Host outside was made from.
func (outside) Close() error { return nil }

// call runs one call request in the tool host.
func (h *Host) call(ctx context.Context, c CallRequest) (engine.ToolOutcome, error) {
	name := c.Name
	r, err := h.do(ctx, Request{Op: "call", Call: &c})
	switch {
	case errors.Is(err, ErrGone):
		return engine.ToolOutcome{Observation: "error: " + err.Error(), IsError: true, ExitCode: 1}, nil
	case err != nil:
		return engine.ToolOutcome{}, err
	case r.Outcome == nil:
		return engine.ToolOutcome{}, fmt.Errorf("%s answered the call of %q without its outcome", Name, name)
	}
	return *r.Outcome, nil
}

// Hook runs a hook in the plugin hooks.yaml routes it to; its signature is
// hooks.PluginFunc.
func (h *Host) Hook(ctx context.Context, plugin string, req engine.HookRequest) (engine.HookDecision, error) {
	r, err := h.do(ctx, Request{Op: "hook", Hook: &HookRequest{Plugin: plugin, Name: req.Name, Run: RunOf(req.Run), Payload: req.Payload,
		ToolName: req.ToolName, ToolResult: req.ToolResult, ErrorMessage: req.ErrorMessage}})
	d := engine.HookDecision{Action: engine.HookContinue}
	if r.Decision != nil {
		d = *r.Decision
	}
	return d, err
}

// Close stops every plugin and MCP server and the tool host, and returns
// what stopping them reported. Later calls return the same.
func (h *Host) Close() error {
	h.closeOnce.Do(func() { h.closeErr = h.close() })
	return h.closeErr
}

func (h *Host) close() error {
	_, err := h.do(context.Background(), Request{Op: "close"})
	if errors.Is(err, ErrGone) {
		err = nil
	}
	h.stdin.Close()
	<-h.exited
	if werr := h.cmd.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("%s: %w", Name, werr)
	}
	return err
}
