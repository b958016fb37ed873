package main

import (
	"io"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// LogCmd renders a run's journal as the live stream shows it.
type LogCmd struct {
	RunID   string `name:"run-id" help:"The run to show." placeholder:"ID"`
	Last    bool   `help:"Show the latest run of the workspace (the first list-runs shows)."`
	WorkDir string `short:"w" name:"work-dir" help:"Workspace holding the run (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	Follow  bool   `short:"f" help:"Keep showing a running run's events as they are written, until it stops."`
	Format  string `help:"text (as the live stream shows it) or json (one stream-json line per event)." enum:"text,json" default:"text"`
	Verbose bool   `short:"v" help:"Show thoughts and observations whole, token usage, hooks and thinking."`
	OTLP    bool   `name:"otlp" help:"Send the run to an OpenTelemetry collector as OTLP traces instead of showing it (delta otel export; with -f, each span as it completes). See delta-otel(1)."`
}

// followPoll is how often -f looks for new events.
const followPoll = 50 * time.Millisecond

// Run prints the run's events, following it with -f.
func (c *LogCmd) Run(std cli.Stdio) error {
	id, _, runDir, err := locateRun(c.RunID, c.Last, c.WorkDir)
	if err != nil {
		return err
	}
	if c.OTLP {
		return c.exportOTLP(runDir)
	}
	show := c.printer(std.Out, id)
	tail := journal.NewTail(filepath.Join(runDir, runs.JournalFile))
	for {
		// The status is read before the events: once it says the run
		// stopped, every event it wrote is in the file.
		live := c.Follow && runs.StillRunning(runDir)
		evs, err := tail.Next()
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := show(ev); err != nil {
				return err
			}
		}
		if !live {
			return nil
		}
		time.Sleep(followPoll)
	}
}

// printer returns the function that writes one event of run id in
// c.Format.
func (c *LogCmd) printer(w io.Writer, id string) func(journal.Event) error {
	if c.Format == "json" {
		enc := newJSONEncoder(w)
		return func(ev journal.Event) error {
			line := streamEvent(ev)
			line.RunID = id // as on run's stream-json lines
			return enc.Encode(line)
		}
	}
	d := newDisplay(w, c.Verbose)
	return func(ev journal.Event) error {
		if ev.Type == journal.HumanInputRequest && ev.Sensitive {
			d.hidden[ev.CallID] = true
		}
		d.event(ev)
		return nil
	}
}
