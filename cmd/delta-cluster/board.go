package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/mcpserver"
	"github.com/deltakit/delta/workflow/board/natsstore"
)

// BoardCmd is the cluster side of a workflow instance's board: what
// delta workflow's context commands run with --cluster, and what a
// workflow agent's run in the cluster reaches its tools through.
type BoardCmd struct {
	Call BoardCallCmd `cmd:"" help:"Call one workflow tool (channel_send, inbox_check, document_write, vote, …) on an instance's board as --as and print its result."`
	MCP  BoardMCPCmd  `cmd:"" name:"mcp" help:"Serve an instance's workflow tools over MCP on stdin/stdout, every call made as --as."`
}

// boardFlags name the instance and who acts.
type boardFlags struct {
	ClusterFlags `embed:""`
	Instance     string `required:"" help:"The workflow instance." placeholder:"NAME"`
	As           string `default:"user" help:"Who is acting: an agent's name, or user for a person." placeholder:"NAME"`
}

// open opens the instance's board; done closes it and the connection.
func (f boardFlags) open(ctx context.Context) (p board.Provider, done func(), err error) {
	if !board.ValidName(f.As) {
		return nil, nil, cli.Errorf(cli.ExitUsage, "", "invalid --as %q: a letter, then letters, digits, _ or -", f.As)
	}
	c, err := f.connect(ctx, "delta board "+f.Instance)
	if err != nil {
		return nil, nil, err
	}
	p, err = natsstore.Open(ctx, c, f.Instance, board.Config{})
	if err != nil {
		c.Close()
		hint := ""
		if errors.Is(err, board.ErrNotFound) {
			hint = "check --instance: an instance's board is in the cluster once the controller starting it has created it"
		}
		return nil, nil, cli.WithCode(runs.ExitFailed, hint, err)
	}
	return p, func() { p.Close(); c.Close() }, nil
}

// BoardCallCmd is delta-cluster board call.
type BoardCallCmd struct {
	boardFlags
	Tool string `arg:"" help:"The tool." placeholder:"TOOL"`
	Args string `arg:"" optional:"" default:"{}" help:"Its arguments, a JSON object." placeholder:"JSON"`
}

// Run calls the tool and prints its text as it is.
func (c *BoardCallCmd) Run(std cli.Stdio) error {
	ctx, cancel := context.WithTimeout(context.Background(), cluster.TransientWait+time.Minute)
	defer cancel()
	p, done, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	text, err := board.NewTools(p).Call(ctx, c.As, c.Tool, []byte(c.Args))
	var te *board.ToolError
	if errors.As(err, &te) {
		return cli.WithCode(runs.ExitFailed, board.RefusalHint(err), te)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(std.Out, text)
	return err
}

// BoardMCPCmd is delta-cluster board mcp.
type BoardMCPCmd struct{ boardFlags }

// Run serves until the client closes stdin or a signal arrives.
func (c *BoardMCPCmd) Run(std cli.Stdio) error {
	ctx, stop := interruptContext()
	defer stop()
	p, done, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	s := mcpserver.New(board.NewTools(p), c.As, cli.Version())
	err = s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(std.In), Writer: nopWriteCloser{std.Out}})
	if err != nil && (ctx.Err() != nil || errors.Is(err, io.EOF)) {
		return nil // the client went away, or we were told to stop
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Help is delta board's description in --help and its man page.
func (*BoardCmd) Help() string {
	return `A workflow instance whose board is kept in the cluster (the stream DELTA_BOARD_INSTANCE and the bucket delta_board_INSTANCE, see delta-cluster(7)) is reached from any host: call runs one tool as --as and prints its result (delta workflow channel send … --cluster URL runs it), mcp serves every tool over MCP (a workflow agent's run started with DELTA_WORKFLOW_CLUSTER, DELTA_WORKFLOW_INSTANCE and DELTA_WORKFLOW_AGENT reaches its tools through it). The rules are those of a board kept in files: mentions, inboxes whose cursors never move back, the document owner, proposals resolved once however many agents vote at once.`
}
