package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// SendCmd gives a running run a message (steering).
type SendCmd struct {
	RunID       string `name:"run-id" help:"The running run." placeholder:"ID"`
	Last        bool   `help:"The latest run of the workspace (the first list-runs shows)."`
	WorkDir     string `short:"w" name:"work-dir" help:"Workspace holding the run (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	Message     string `short:"m" help:"The message; - reads it from stdin."`
	MessageFile string `name:"message-file" help:"Read the message from FILE." type:"path" placeholder:"FILE"`
	FollowUp    bool   `name:"follow-up" help:"Hold the message until the run has answered its current input (a text-only answer), then start a new cycle with it instead of completing."`

	// clusterFlags: the run is on any host of a cluster.
	clusterFlags `embed:""`
}

// sendResult is what send prints.
type sendResult struct {
	RunID     string `json:"run_id"`
	MessageID string `json:"message_id"`
	Source    string `json:"source"`
}

// Run queues the message in the run's inbox.
func (c *SendCmd) Run(std cli.Stdio) error {
	msg, err := readMessage(c.Message, c.MessageFile, std.In)
	if err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return cli.Errorf(cli.ExitUsage, `give the message: -m "Use the staging database" (or -m - for stdin, or --message-file FILE)`, "-m/--message is empty or missing")
	}
	if c.on() {
		return c.sendThroughCluster(std, msg)
	}
	_, ws, runDir, err := locateRun(c.RunID, c.Last, c.WorkDir)
	if err != nil {
		return err
	}
	meta, err := runs.ReadMetadata(runDir)
	if err != nil {
		return err
	}
	if !meta.Resumable() {
		return cli.Errorf(runs.ExitConfig, "send messages to an agent's run (delta list-runs -w "+ws+")",
			"%s is a delta mcp serve session (the tool calls of an MCP client), not an agent run: it has no model to read a message", meta.RunID)
	}
	// Only a live run takes messages: any other gets them with continue.
	p, err := runs.OpenProcess(meta)
	if err != nil {
		if errors.Is(err, runs.ErrNotRunning) {
			return cli.WithCode(exitNotRunning, fmt.Sprintf("give it the message with: delta continue --run-id %s -w %s -m …", meta.RunID, ws),
				err)
		}
		return cli.WithCode(runs.ExitFailed, "", err)
	}
	p.Close()
	m, err := runs.Send(runDir, msg, c.FollowUp)
	if err != nil {
		return err
	}
	return printJSON(std, sendResult{RunID: meta.RunID, MessageID: m.ID, Source: m.Source()})
}
