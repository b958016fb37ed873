// Package server is the tool host's side of package toolhost's protocol:
// it runs a run's plugins (plugins/host) and MCP servers (plugins/mcp) in
// delta-toolhost and answers delta-run's requests. It is the one place
// that links them for a run, so that delta-run does not.
package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	pluginhost "github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/mcp"
	"github.com/deltakit/delta/plugins/toolhost"
)

// server is one tool host's state: what it started and the requests in
// flight.
type server struct {
	stderr io.Writer
	omu    sync.Mutex // one reply line at a time
	out    *bufio.Writer

	mu       sync.Mutex
	inflight map[uint64]context.CancelFunc
	wg       sync.WaitGroup

	// Set by start, before any call or hook is accepted.
	plugins  *pluginhost.Host
	box      engine.Toolbox
	stops    []func() error
	redactor *redact.Redactor
	records  map[string]*engine.Records // by run directory
}

// Serve answers the requests on in (one JSON object a line) with replies
// on out until a close request or the end of in, then stops every plugin
// and server it started. The plugins' and servers' stderr go to stderr.
// It returns the process's exit code.
func Serve(in io.Reader, out, stderr io.Writer) int {
	s := &server{stderr: stderr, out: bufio.NewWriter(out), inflight: map[uint64]context.CancelFunc{}, records: map[string]*engine.Records{}}
	dec := json.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	for {
		var req toolhost.Request
		if err := dec.Decode(&req); err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(stderr, "%s: error: read requests: %v\n", toolhost.Name, err)
			}
			break
		}
		switch req.Op {
		case "cancel":
			s.mu.Lock()
			cancel := s.inflight[req.ID]
			s.mu.Unlock()
			if cancel != nil {
				cancel()
			}
			continue
		case "close":
			s.shutdown(req.ID)
			return 0
		}
		s.begin(req)
	}
	s.shutdown(0)
	return 0
}

// begin answers req in a goroutine of its own, cancellable by id.
func (s *server) begin(req toolhost.Request) {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.inflight[req.ID] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		r := s.answer(ctx, req)
		r.ID = req.ID
		s.mu.Lock()
		delete(s.inflight, req.ID)
		s.mu.Unlock()
		cancel()
		s.reply(r)
	}()
}

// answer does what req asks.
func (s *server) answer(ctx context.Context, req toolhost.Request) toolhost.Reply {
	switch {
	case req.Op == "start" && req.Start != nil:
		started, err := s.start(ctx, *req.Start)
		return toolhost.Reply{Start: started, Error: failure(err)}
	case req.Op == "call" && req.Call != nil:
		out, err := s.call(ctx, *req.Call)
		return toolhost.Reply{Outcome: &out, Error: failure(err)}
	case req.Op == "hook" && req.Hook != nil:
		d, err := s.hook(ctx, *req.Hook)
		return toolhost.Reply{Decision: &d, Error: failure(err)}
	}
	return toolhost.Reply{Error: failure(fmt.Errorf("%s: request %q not understood (install every delta binary from the same build)", toolhost.Name, req.Op))}
}

// reply writes one reply line.
func (s *server) reply(r toolhost.Reply) {
	line, err := json.Marshal(r)
	if err != nil {
		line, _ = json.Marshal(toolhost.Reply{ID: r.ID, Error: failure(fmt.Errorf("encode the reply: %w", err))})
	}
	s.omu.Lock()
	defer s.omu.Unlock()
	s.out.Write(append(line, '\n'))
	s.out.Flush()
}

// shutdown cancels what is in flight, waits for it, stops every plugin
// and server (the last started first) and, for a close request (id > 0),
// answers with what stopping them reported.
func (s *server) shutdown(id uint64) {
	s.mu.Lock()
	for _, cancel := range s.inflight {
		cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
	var errs []error
	for i := len(s.stops) - 1; i >= 0; i-- {
		errs = append(errs, s.stops[i]())
	}
	if id > 0 {
		s.reply(toolhost.Reply{ID: id, Error: failure(errors.Join(errs...))})
	}
}

// failure is err on the wire, with its exit code, hint and label.
func failure(err error) *toolhost.Failure {
	if err == nil {
		return nil
	}
	f := &toolhost.Failure{Message: err.Error()}
	var ce *cli.Error
	if errors.As(err, &ce) {
		f.Code, f.Hint, f.Label = ce.Code, ce.Hint, ce.Label
	}
	return f
}

// start starts the plugin host (its tools when asked) and the MCP servers
// as delta-run did in-process, and returns their tools and warnings.
func (s *server) start(ctx context.Context, cfg toolhost.Config) (*toolhost.Started, error) {
	if s.plugins != nil {
		return nil, fmt.Errorf("%s: started twice", toolhost.Name)
	}
	s.redactor = redact.FromEnv(os.Environ(), cfg.ProviderEnv)
	plugins, err := pluginhost.New(cfg.Plugins, pluginhost.Options{Stderr: s.stderr, Verbose: cfg.Verbose, Env: cfg.PluginEnv,
		ExecWrapper: cfg.ExecWrapper, Sandbox: cfg.Sandbox, TimeoutMS: cfg.ToolTimeoutMS})
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, pluginhost.Hint(err), err)
	}
	s.plugins = plugins
	s.stops = append(s.stops, plugins.Close)
	var boxes []engine.Toolbox
	local := map[string]bool{}
	for _, name := range cfg.Local {
		local[name] = true
	}
	if cfg.PluginTools {
		ptools, err := plugins.Toolbox(ctx)
		if err != nil {
			return nil, cli.WithCode(runs.ExitConfig, pluginhost.Hint(err), err)
		}
		boxes = append(boxes, ptools)
		for _, spec := range ptools.Specs() {
			local[spec.Name] = true
		}
	}
	var warnings []string
	if len(cfg.MCPServers) > 0 {
		mtools, err := mcp.Start(ctx, cfg.MCPServers, mcp.Options{Environ: cfg.MCPEnviron, Dir: cfg.ToolDir, Stderr: s.stderr,
			Verbose: cfg.Verbose, ToolTimeout: time.Duration(cfg.ToolTimeoutMS) * time.Millisecond, Output: cfg.Output, Sandbox: cfg.Sandbox})
		if err != nil {
			return nil, mcp.StartFailed(err)
		}
		s.stops = append(s.stops, mtools.Close)
		warnings = append(mtools.Warnings(), mtools.Shadow(names(local))...)
		boxes = append(boxes, mtools)
	}
	s.box = engine.Merge(boxes...)
	return &toolhost.Started{Specs: s.box.Specs(), Warnings: warnings, Streams: streams(s.box), Escalates: escalates(s.box)}, nil
}

// escalates lists the tools of box that can run a call outside the
// sandbox.
func escalates(box engine.Toolbox) []string {
	x, ok := box.(engine.Escalator)
	if !ok {
		return nil
	}
	var out []string
	for _, spec := range box.Specs() {
		if _, ok := x.Unsandboxed(spec.Name); ok {
			out = append(out, spec.Name)
		}
	}
	return out
}

// streams lists the tools of box whose output is followed live.
func streams(box engine.Toolbox) []string {
	st, ok := box.(engine.OutputStreamer)
	if !ok {
		return nil
	}
	var out []string
	for _, spec := range box.Specs() {
		if st.StreamsOutput(spec.Name) {
			out = append(out, spec.Name)
		}
	}
	return out
}

// names is a set of tool names as mcp.Toolbox.Shadow asks for it.
type names map[string]bool

func (n names) Has(name string) bool { return n[name] }

// call runs one tool call with the run's records written as the engine's
// are (redacted), before the call is answered.
func (s *server) call(ctx context.Context, c toolhost.CallRequest) (engine.ToolOutcome, error) {
	if s.box == nil {
		return engine.ToolOutcome{}, fmt.Errorf("%s: a call before start", toolhost.Name)
	}
	run := c.Run.RunInfo()
	if c.Run.Records && run.RunDir != "" {
		run.Records = s.recordsOf(run.RunDir)
		defer run.Records.Wait()
	}
	box := s.box
	if c.Unsandboxed {
		x, ok := s.box.(engine.Escalator)
		if ok {
			box, ok = x.Unsandboxed(c.Name)
		}
		if !ok {
			return engine.ToolOutcome{}, fmt.Errorf("%s: %s cannot run outside the sandbox", toolhost.Name, c.Name)
		}
	}
	return box.Call(ctx, run, c.CallID, c.Name, c.Args)
}

// recordsOf is the Records of the run in runDir.
func (s *server) recordsOf(runDir string) *engine.Records {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[runDir]
	if !ok {
		r = engine.NewRecords(runDir, s.redactor, log.New(s.stderr, toolhost.Name+": ", 0))
		s.records[runDir] = r
	}
	return r
}

// hook runs a hook in its plugin.
func (s *server) hook(ctx context.Context, h toolhost.HookRequest) (engine.HookDecision, error) {
	if s.plugins == nil {
		return engine.HookDecision{Action: engine.HookContinue}, fmt.Errorf("%s: a hook before start", toolhost.Name)
	}
	return s.plugins.Hook(ctx, h.Plugin, engine.HookRequest{Name: h.Name, Run: h.Run.RunInfo(), Payload: h.Payload,
		ToolName: h.ToolName, ToolResult: h.ToolResult, ErrorMessage: h.ErrorMessage})
}
