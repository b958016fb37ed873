package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/redact"
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
		return cli.WithCode(cli.ExitConfig, "", fmt.Errorf("workspace: %w", err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	tools, closeTools, err := agentTools(ctx, a, ws, std, c.Verbose)
	if err != nil {
		return err
	}
	defer closeTools()
	var jq agent.ArgsMatcher
	if a.ApprovalHasJQ() {
		var problems []agent.Problem
		if jq, problems = contextgen.ApprovalJQ(a); len(problems) > 0 {
			return cli.WithCode(cli.ExitConfig, problems[0].Hint, errors.New(problems[0].String()))
		}
	}
	session, err := mcp.NewSession(a, ws, tools, jq)
	if err != nil {
		return err
	}
	// Secret values of Delta's environment are redacted from what a call
	// returns, as in a run.
	session.Redact = redact.FromEnv(os.Environ())
	server := session.Server()
	if c.HTTP == "" {
		fmt.Fprintf(std.Err, "delta-mcp: serving %d tools of agent %s over stdio; calls will be recorded in %s\n", len(tools.Specs()), a.Name, session.RunDir())
		err = server.Run(ctx, &sdk.StdioTransport{})
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
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

// agentTools is the toolbox a run of a would have: its command tools,
// then its plugins' tools, then its MCP servers' (local tools win).
func agentTools(ctx context.Context, a *agent.Agent, ws string, std cli.Stdio, verbose bool) (engine.Toolbox, func(), error) {
	var closers []func() error
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	tools := engine.Toolbox(engine.NewCommandTools(a, os.Environ()))
	if len(a.Plugins) > 0 {
		h, err := pluginhost.New(a.Plugins, pluginhost.Options{Stderr: std.Err, Verbose: verbose, Env: agent.FilterEnv(os.Environ(), a.Env), ExecWrapper: a.ExecWrapper})
		if err != nil {
			return nil, nil, cli.WithCode(cli.ExitConfig, pluginhost.Hint(err), err)
		}
		closers = append(closers, h.Close)
		ptools, err := h.Toolbox(ctx)
		if err != nil {
			closeAll()
			return nil, nil, cli.WithCode(cli.ExitConfig, pluginhost.Hint(err), err)
		}
		tools = engine.Merge(tools, ptools)
	}
	if len(a.MCPServers) > 0 {
		mtools, err := mcp.Start(ctx, a.MCPServers, mcp.AgentOptions(a, os.Environ(), ws, std.Err, verbose))
		if err != nil {
			closeAll()
			return nil, nil, cli.WithCode(cli.ExitConfig, mcp.Hint, err)
		}
		closers = append(closers, mtools.Close)
		for _, w := range append(mtools.Warnings(), mtools.Shadow(tools)...) {
			fmt.Fprintf(std.Err, "delta-mcp: %s\n", w)
		}
		tools = engine.Merge(tools, mtools)
	}
	return tools, closeAll, nil
}

// serveHTTP serves server over streamable HTTP at addr until ctx ends.
func serveHTTP(ctx context.Context, addr string, server *sdk.Server, std cli.Stdio, what, runDir string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return cli.WithCode(cli.ExitConfig, "choose another address or port", fmt.Errorf("listen on %s: %w", addr, err))
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
		return nil, cli.WithCode(cli.ExitConfig, agent.HintOf(err), err)
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(std.Err, "delta-mcp: warning: %s\n", w)
	}
	return a, nil
}
