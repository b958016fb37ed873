package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/deltakit/delta/hooks"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sandbox"
	pluginhost "github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeCmd is `delta-mcp serve`.
type ServeCmd struct {
	Agent       string `name:"agent" default:"." placeholder:"DIR" help:"Agent directory, or its agent.yaml (default: the current directory)."`
	Workspace   string `short:"w" name:"work-dir" placeholder:"DIR" help:"Workspace the tools run in and where calls are recorded (default: the current directory; created if missing)."`
	HTTP        string `name:"http" placeholder:"ADDR" help:"Serve streamable HTTP at http://ADDR/mcp instead of stdio (a loopback address such as 127.0.0.1:8765; port 0 picks one)."`
	AllowRemote bool   `name:"allow-remote" help:"Let --http listen on an address other hosts can reach (anyone who reaches it runs the agent's tools)."`
	Verbose     bool   `short:"v" help:"Show the agent's MCP servers' stderr, prefixed [mcp NAME]."`
}

// Run loads the agent, starts its plugins and MCP servers, and serves its
// tools until the client leaves or a signal stops it.
func (c *ServeCmd) Run(std cli.Stdio) error {
	if c.HTTP != "" && !c.AllowRemote {
		if err := checkLoopback(c.HTTP); err != nil {
			return err
		}
	}
	a, err := loadAgent(c.Agent, std)
	if err != nil {
		return err
	}
	ws := c.Workspace
	if ws == "" {
		ws = "."
	}
	if ws, err = filepath.Abs(ws); err != nil {
		return err
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return cli.WithCode(runs.ExitConfig, "", fmt.Errorf("workspace: %w", err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	tools, host, closeTools, err := agentTools(ctx, a, ws, std, c.Verbose)
	if err != nil {
		return err
	}
	defer closeTools()
	session, err := newSession(a, ws, tools, host)
	if err != nil {
		return err
	}
	server := session.Server(cli.Version())
	if c.HTTP == "" {
		if cli.IsTerminal(std.In) {
			fmt.Fprintf(std.Err, "delta-mcp: this is an MCP server: it reads JSON-RPC on stdin for an MCP client that starts it (claude mcp add delta -- delta mcp serve --agent DIR -w DIR; see man delta-mcp); Ctrl-D or Ctrl-C stops it\n")
		}
		fmt.Fprintf(std.Err, "delta-mcp: serving %d tools of agent %s over stdio; calls will be recorded in %s\n", len(tools.Specs()), a.Name, session.RunDir())
		err = server.Run(ctx, mcp.StdioTransport(std.In, std.Out))
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || ctx.Err() != nil {
			err = nil
		}
	} else {
		err = serveHTTP(ctx, c.HTTP, server, std, fmt.Sprintf("%d tools of agent %s", len(tools.Specs()), a.Name), session.RunDir())
	}
	if cerr := session.Close(err); err == nil {
		err = cerr
	}
	return err
}

// newSession is the serve session of a's tools: every call through the
// agent's hooks (and hook plugins of host), approval rules and redaction.
// A call that needs a human is asked of the client's user (MCP
// elicitation), unless DELTA_APPROVALS=deny.
func newSession(a *agent.Agent, ws string, tools engine.Toolbox, host *pluginhost.Host) (*mcp.Session, error) {
	policy, problems := approval.Compile(a)
	if len(problems) > 0 {
		return nil, cli.WithCode(runs.ExitConfig, problems[0].Hint, errors.New(problems[0].String()))
	}
	mode := approval.ModeAsk
	switch m := os.Getenv("DELTA_APPROVALS"); m {
	case "", approval.ModeAsk:
	case approval.ModeDeny:
		mode = approval.ModeDeny
	default:
		return nil, cli.Errorf(runs.ExitConfig, "DELTA_APPROVALS=ask or DELTA_APPROVALS=deny (or unset it)", "DELTA_APPROVALS must be ask or deny, not %q", m)
	}
	var plugin hooks.PluginFunc
	if host != nil {
		plugin = host.Hook
	}
	return mcp.NewSession(a, ws, tools, mcp.SessionOptions{
		Hooks: hooks.New(a, hooks.Options{Plugin: plugin}), Policy: policy, Approvals: mode,
		NoEscalation: a.Sandbox != nil && a.Sandbox.Escalate != nil && !*a.Sandbox.Escalate,
		// Secret values of Delta's environment are redacted from what a
		// call returns, as in a run.
		Redact: redact.FromEnv(os.Environ()),
	}), nil
}

// agentTools is the toolbox a run of a would have: its command tools,
// then its plugins' tools, then its MCP servers' (local tools win).
func agentTools(ctx context.Context, a *agent.Agent, ws string, std cli.Stdio, verbose bool) (engine.Toolbox, *pluginhost.Host, func(), error) {
	var closers []func() error
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	// The agent's sandbox (or $DELTA_SANDBOX's mode) confines the tools
	// as in a run.
	_, rules, err := sandbox.For("", ws, "", a.Sandbox)
	if err != nil {
		return nil, nil, nil, cli.WithCode(runs.ExitConfig, "set DELTA_SANDBOX=danger-full-access to serve the tools unconfined", err)
	}
	commands := engine.NewCommandTools(a, os.Environ())
	commands.SetSandbox(rules)
	tools := engine.Toolbox(commands)
	var host *pluginhost.Host
	if len(a.Plugins) > 0 {
		h, err := pluginhost.New(a.Plugins, pluginhost.Options{Stderr: std.Err, Verbose: verbose, Env: agent.FilterEnv(os.Environ(), a.Env), ExecWrapper: a.ExecWrapper, Sandbox: rules})
		if err != nil {
			return nil, nil, nil, cli.WithCode(runs.ExitConfig, pluginhost.Hint(err), err)
		}
		closers = append(closers, h.Close)
		host = h
		ptools, err := h.Toolbox(ctx)
		if err != nil {
			closeAll()
			return nil, nil, nil, cli.WithCode(runs.ExitConfig, pluginhost.Hint(err), err)
		}
		tools = engine.Merge(tools, ptools)
	}
	if len(a.MCPServers) > 0 {
		mopts := mcp.AgentOptions(a, os.Environ(), ws, std.Err, verbose)
		mopts.Sandbox = rules
		mtools, err := mcp.Start(ctx, a.MCPServers, mopts)
		if err != nil {
			closeAll()
			return nil, nil, nil, mcp.StartFailed(err)
		}
		closers = append(closers, mtools.Close)
		for _, w := range append(mtools.Warnings(), mtools.Shadow(tools)...) {
			fmt.Fprintf(std.Err, "delta-mcp: %s\n", w)
		}
		tools = engine.Merge(tools, mtools)
	}
	return tools, host, closeAll, nil
}

// serveHTTP serves server over streamable HTTP at addr until ctx ends.
func serveHTTP(ctx context.Context, addr string, server *sdk.Server, std cli.Stdio, what, runDir string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return cli.WithCode(runs.ExitConfig, "choose another address or port", fmt.Errorf("listen on %s: %w", addr, err))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(std.Err, "delta-mcp: serving %s at %s; calls will be recorded in %s\n", what, url, runDir)
	fmt.Fprintln(std.Out, url)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	return nil
}

// checkLoopback refuses an address other hosts could reach.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return cli.Errorf(cli.ExitUsage, "for example  --http 127.0.0.1:8765", "--http %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return cli.Errorf(cli.ExitUsage, "use 127.0.0.1:PORT, or add --allow-remote if other hosts really should run this agent's tools",
		"--http %s is not a loopback address: whoever reaches it runs the agent's tools", addr)
}

// loadAgent loads the agent and prints its warnings.
func loadAgent(path string, std cli.Stdio) (*agent.Agent, error) {
	a, err := agent.Load(path)
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), err)
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(std.Err, "delta-mcp: warning: %s\n", w)
	}
	return a, nil
}
