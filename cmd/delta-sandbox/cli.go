package main

import (
	"errors"
	"os"

	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/sandbox"
)

// CLI is delta-sandbox's grammar.
type CLI struct {
	cli.ManFlag

	Exec execCmd `cmd:"" help:"Run a command confined by a sandbox mode."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-sandbox runs a command under the sandbox Delta gives a model's tools ("delta sandbox exec" runs it), so that you can see what a tool would be allowed to do.

The modes are those of agent.yaml's sandbox: key and of "delta run --sandbox" (see delta-agent(5), SANDBOX): read-only (read anywhere, write nowhere), workspace-write (write only in the workspace, the temp directory and the --writable paths) and danger-full-access (no sandbox). In the first two, TCP connections are refused unless --network allows them all or --allow a port. The sandbox is the kernel's Landlock: the command and everything it starts stay confined; a refused write or connect fails with "Permission denied". On a kernel whose Landlock cannot filter TCP (before Linux 6.7) the network is cut instead by a new network namespace (a connect fails with "Network is unreachable"; UDP and DNS are cut too), where --allow cannot be honoured: such a command refuses to start. DELTA_SANDBOX_LANDLOCK_NET=off forces that fallback, for testing.

Exit codes: the command's own; 126 when the sandbox cannot be applied (a kernel without Landlock: run the command with --mode danger-full-access, or without delta sandbox) or the command cannot be run; 2 usage error.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "run a command under Delta's tool sandbox"
	return nil
}

// execCmd is `delta-sandbox exec`.
type execCmd struct {
	Mode      string   `required:"" enum:"read-only,workspace-write,danger-full-access" placeholder:"MODE" help:"read-only, workspace-write or danger-full-access."`
	Workspace string   `short:"w" placeholder:"DIR" help:"The workspace writable in workspace-write (default: the current directory)."`
	Writable  []string `placeholder:"PATH" help:"Also writable in workspace-write (repeatable; relative to the workspace)."`
	Network   bool     `help:"Allow every TCP connection."`
	Allow     []string `placeholder:"HOST:PORT" help:"Allow TCP connections to this port (repeatable; Landlock filters by port, so the host is not checked)."`
	Command   []string `arg:"" passthrough:"" placeholder:"CMD" help:"The command and its arguments (after --)."`
}

// Run confines this process and becomes the command; it returns only when
// either cannot be done.
func (c *execCmd) Run(std cli.Stdio) error {
	ws := c.Workspace
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			return cli.WithCode(runs.ExitConfig, "run it from a directory that exists, or give -w DIR", err)
		}
	}
	p := sandbox.Policy{Mode: sandbox.Mode(c.Mode), Writable: c.Writable, Network: c.Network, Allow: c.Allow}
	if err := p.Check(); err != nil {
		return cli.WithCode(cli.ExitUsage, "", err)
	}
	rules, err := p.Rules(ws, "")
	if err != nil {
		return cli.WithCode(cli.ExitUsage, "", err)
	}
	argv := c.Command
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return cli.Errorf(cli.ExitUsage, "for example: delta sandbox exec --mode workspace-write -- make test", "no command to run")
	}
	if rules != nil {
		err = sandbox.Settle(rules)
	}
	if err == nil {
		err = sandbox.Exec(rules, argv[0], argv, os.Environ())
	}
	var code sandbox.ExitCode
	if errors.As(err, &code) {
		// The command ran as a child (a network namespace in a user
		// namespace of its own): its status is ours.
		return &cli.Error{Code: int(code), Silent: true, Err: err}
	}
	hint := ""
	if errors.Is(err, sandbox.ErrUnsupported) {
		hint = "delta doctor says what this kernel offers"
	}
	return cli.WithCode(runs.ExitConfig, hint, err)
}
