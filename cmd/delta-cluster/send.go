package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// exitNotRunning is send's and stop's exit for a run nobody runs now, as
// delta send and delta stop exit for a local one.
const exitNotRunning = 3

// SendCmd gives a run anywhere in the cluster a message: its holder's
// mirror puts it in the run's inbox/.
type SendCmd struct {
	ClusterFlags `embed:""`
	RunID        string `name:"run-id" required:"" help:"The running run." placeholder:"ID"`
	Message      string `short:"m" help:"The message; - reads it from stdin."`
	MessageFile  string `name:"message-file" help:"Read the message from FILE." type:"path" placeholder:"FILE"`
	FollowUp     bool   `name:"follow-up" help:"Hold the message until the run has answered its current input, then start a new cycle with it."`
}

// sendResult is what send prints: delta send's shape.
type sendResult struct {
	RunID     string `json:"run_id"`
	MessageID string `json:"message_id"`
	Source    string `json:"source"`
}

// Run queues the message for the run in the cluster.
func (c *SendCmd) Run(std cli.Stdio) error {
	content, err := c.message(std.In)
	if err != nil {
		return err
	}
	ctx, stop := interruptContext()
	defer stop()
	cl, err := c.connect(ctx, "delta send "+c.RunID)
	if err != nil {
		return err
	}
	defer cl.Close()
	meta, err := cl.GetRun(ctx, c.RunID)
	if errors.Is(err, cluster.ErrNoRun) {
		return cli.WithCode(runs.ExitFailed, "list the cluster's runs with: delta list-runs --cluster URL", err)
	}
	if err != nil {
		return err
	}
	if !runningIn(meta) {
		return cli.WithCode(exitNotRunning, fmt.Sprintf("give it the message with: delta continue --run-id %s --cluster URL -m … on the host it ran on (delta pull %s shows it here)", c.RunID, c.RunID),
			fmt.Errorf("run %s is not running", c.RunID))
	}
	m, err := runs.NewMessage(content, c.FollowUp)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(m)
	if err := cl.Send(ctx, c.RunID, m.ID, body); err != nil {
		return err
	}
	return printJSON(std, sendResult{RunID: c.RunID, MessageID: m.ID, Source: m.Source()})
}

// message reads -m, -m - or --message-file.
func (c *SendCmd) message(stdin io.Reader) (string, error) {
	msg := c.Message
	switch {
	case c.MessageFile != "":
		data, err := os.ReadFile(c.MessageFile)
		if err != nil {
			return "", cli.WithCode(cli.ExitUsage, "", fmt.Errorf("read the message: %w", err))
		}
		msg = string(data)
	case msg == "-":
		data, err := io.ReadAll(stdin)
		if err != nil {
			return "", fmt.Errorf("read the message from stdin: %w", err)
		}
		msg = string(data)
	}
	if strings.TrimSpace(msg) == "" {
		return "", cli.Errorf(cli.ExitUsage, `give the message: -m "Use the staging database" (or -m - for stdin, or --message-file FILE)`, "-m/--message is empty or missing")
	}
	return msg, nil
}

func printJSON(std cli.Stdio, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(std.Out, "%s\n", data)
	return err
}
