package main

import (
	"io"
	"os"
	"slices"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
)

// LogCmd renders a run's journal as the live stream shows it.
type LogCmd struct {
	RunID   string `name:"run-id" help:"The run to show." placeholder:"ID"`
	Last    bool   `help:"Show the latest run of the workspace (the first list-runs shows)."`
	WorkDir string `short:"w" name:"work-dir" help:"Workspace holding the run (default: the current directory and, in an agent directory, its workspaces W001 …)." type:"path" placeholder:"DIR"`
	Follow  bool   `short:"f" help:"Keep showing a running run's events as they are written, and the output of its running tools, until it (and, with --children, each subagent followed) stops."`
	// Children is a pointer: its default depends on --follow.
	Children *bool  `negatable:"" help:"Show the events of the run's subagents (spawn_agent) too, tagged with their run, interleaved with the run's own; --no-children leaves them out (default: on with --follow, off without)."`
	Format   string `help:"text (as the live stream shows it) or json (one stream-json line per event; with -f also tool_output lines)." enum:"text,json" default:"text"`
	Verbose  bool   `short:"v" help:"Show thoughts and observations whole, token usage, hooks and thinking."`
	OTLP     bool   `name:"otlp" help:"Send the run to an OpenTelemetry collector as OTLP traces instead of showing it (delta otel export; with -f, each span as it completes). See delta-otel(1)."`

	// clusterFlags: the run is on any host of a cluster.
	clusterFlags `embed:""`
}

// followPoll is how often -f looks for new events and tool output.
const followPoll = 50 * time.Millisecond

// Run prints the run's events, following it with -f.
func (c *LogCmd) Run(std cli.Stdio) error {
	if c.on() {
		return c.logThroughCluster(std)
	}
	id, _, runDir, err := locateRun(c.RunID, c.Last, c.WorkDir)
	if err != nil {
		return err
	}
	if c.OTLP {
		return c.exportOTLP(runDir)
	}
	return c.render(std, id, runDir, func(*runFollower) bool { return false })
}

// render prints the run in runDir, following it with -f while its
// follower says it runs or ended says it has not ended.
func (c *LogCmd) render(std cli.Stdio, id, runDir string, ended func(*runFollower) bool) error {
	m, err := runs.ReadMetadata(runDir)
	if err != nil {
		return err
	}
	children := c.Follow
	if c.Children != nil {
		children = *c.Children
	}
	sink, stop := c.sink(std.Out)
	defer stop()
	// The run's files are redacted already; what its tools print while
	// they run is redacted of the secrets this environment knows.
	root := newFollower(runRef{id: id, parent: m.ParentRunID}, m.WorkDir, runDir, true, children, redact.FromEnv(os.Environ(), nil))
	defer root.close()
	if !c.Follow {
		return printAll(root, sink)
	}
	for {
		// The status is read before the events: once it says the run
		// stopped, every event it wrote is in the file.
		live := root.running() && !ended(root)
		if err := root.poll(sink); err != nil {
			return err
		}
		if !live || sink.err != nil {
			return sink.err
		}
		time.Sleep(followPoll)
	}
}

// printAll prints the events of a run that is not followed, its
// subagents' interleaved by time.
func printAll(root *runFollower, sink *logSink) error {
	var all eventsByTime
	if err := root.poll(&all); err != nil {
		return err
	}
	slices.SortStableFunc(all, func(a, b sourcedEvent) int { return a.ev.Timestamp.Compare(b.ev.Timestamp) })
	for _, e := range all {
		sink.event(e.ref, e.ev)
	}
	return sink.err
}

// sourcedEvent is an event and the run it comes from.
type sourcedEvent struct {
	ref runRef
	ev  journal.Event
}

// eventsByTime collects a live view's events (printAll sorts them).
type eventsByTime []sourcedEvent

func (e *eventsByTime) event(r runRef, ev journal.Event) { *e = append(*e, sourcedEvent{r, ev}) }
func (e *eventsByTime) output(runRef, toolOutput)        {}

// logSink writes what delta log shows in c.Format, remembering the
// first write error (a closed stdout).
type logSink struct {
	liveSink
	err error
	w   *errWriter
}

// errWriter remembers the first error writing to w.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (s *logSink) event(r runRef, ev journal.Event) {
	if s.w.err == nil {
		s.liveSink.event(r, ev)
	}
	s.err = s.w.err
}

func (s *logSink) output(r runRef, o toolOutput) {
	if s.w.err == nil {
		s.liveSink.output(r, o)
	}
	s.err = s.w.err
}

// sink is where the log goes in c.Format; stop ends a waiting indicator.
func (c *LogCmd) sink(w io.Writer) (*logSink, func()) {
	ew := &errWriter{w: w}
	if c.Format == "json" {
		return &logSink{liveSink: jsonSink{newJSONEncoder(ew)}, w: ew}, func() {}
	}
	d := newDisplay(w, c.Verbose)
	if d.tty && c.Follow {
		// Running tools show their last lines under the indicator, as
		// in the run's own stream.
		d.wait = startWaiting(ew, d.color)
		d.w = d.wait
	} else {
		d.w = ew
	}
	return &logSink{liveSink: logDisplay{displaySink{d}}, w: ew}, d.wait.stop
}

// logDisplay is the display of a log: a sensitive answer stays hidden.
type logDisplay struct{ displaySink }

func (l logDisplay) event(r runRef, ev journal.Event) {
	if ev.Type == journal.HumanInputRequest && ev.Sensitive && r.label == "" {
		l.d.hidden[ev.CallID] = true
	}
	l.displaySink.event(r, ev)
}
