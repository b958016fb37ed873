package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/natsstore"
)

// runFlags are the flags run and start share.
type runFlags struct {
	File     string        `arg:"" help:"The workflow file (man 5 delta-workflow)." type:"path"`
	Instance string        `help:"Instance name: a new one is created, an existing one resumed." default:"default" placeholder:"NAME"`
	Dir      string        `help:"Instance directory (default: the file's context.config.dir, else .workflow/NAME here)." type:"path" placeholder:"DIR"`
	Verbose  bool          `short:"v" help:"Show the agents' live output (prefixed with their names) on stderr."`
	Poll     time.Duration `default:"5s" help:"How often an idle agent's inbox is checked besides being woken by a mention."`
	Sync     string        `name:"workspace-sync" enum:",none,git,shared" default:"" help:"Every agent's workspace policy, overriding the file's workspace_sync: (none, git or shared; agents on a queue need shared)." placeholder:"POLICY"`
	clusterBoard
}

// RunCmd runs a workflow until it is idle.
type RunCmd struct {
	runFlags `embed:""`
	JSON     bool          `help:"Print the summary as JSON."`
	Debounce time.Duration `default:"2s" help:"How long the workflow must stay idle before run ends."`
}

// Run runs the workflow and prints the summary.
func (c *RunCmd) Run(std cli.Stdio) error {
	ctx, stop := signalContext()
	defer stop()
	s, err := c.runFlags.run(ctx, std, workflow.ModeRun, c.Debounce)
	if err != nil {
		return err
	}
	if err := printSummary(std.Out, s, c.JSON); err != nil {
		return err
	}
	switch s.Status {
	case workflow.SummaryFailed:
		return &cli.Error{Code: runs.ExitFailed, Silent: true, Err: errors.New("an agent failed")}
	case workflow.SummaryInterrupted:
		return &cli.Error{Code: runs.ExitInterrupted, Label: "interrupted", Err: fmt.Errorf("instance %s stopped before it was done", s.Instance),
			Hint: "resume it with: delta workflow run " + c.File + " --instance " + s.Instance}
	}
	return nil
}

// StartCmd runs a workflow until it is stopped.
type StartCmd struct {
	runFlags   `embed:""`
	Background bool `help:"Detach: run in the background, output to .workflow/NAME/runner/runner.log; stop it with delta workflow stop @NAME."`
	JSON       bool `help:"Print the summary as JSON when it stops."`
}

// Run starts the workflow.
func (c *StartCmd) Run(std cli.Stdio) error {
	if c.Background {
		return c.background(std)
	}
	ctx, stop := signalContext()
	defer stop()
	s, err := c.runFlags.run(ctx, std, workflow.ModeStart, 0)
	if err != nil {
		return err
	}
	return printSummary(std.Out, s, c.JSON)
}

// signalContext is cancelled by SIGINT, SIGTERM (stop) or SIGHUP.
func signalContext() (context.Context, func()) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

// load reads the workflow file, reporting problems as configuration errors.
func loadFile(path string) (*workflow.File, error) {
	f, err := workflow.Load(path)
	if err != nil {
		if hint := agent.HintOf(err); hint != "" {
			return nil, cli.WithCode(runs.ExitConfig, hint, err)
		}
		return nil, cli.WithCode(runs.ExitConfig, "give the path of a workflow file (man 5 delta-workflow)", err)
	}
	return f, nil
}

// loadRunnable loads the file to run it: also every environment variable
// it uses must be set.
func loadRunnable(path string) (*workflow.File, error) {
	f, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	if err := f.CheckEnv(nil); err != nil {
		var le *agent.LoadError
		if errors.As(err, &le) {
			return nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), err)
		}
		return nil, err
	}
	return f, nil
}

// run drives the workflow in mode.
func (c *runFlags) run(ctx context.Context, std cli.Stdio, mode string, debounce time.Duration) (*workflow.Summary, error) {
	if err := workflow.ValidateInstance(c.Instance); err != nil {
		return nil, cli.WithCode(cli.ExitUsage, "", err)
	}
	f, err := loadRunnable(c.File)
	if err != nil {
		return nil, err
	}
	if f.Context.Provider == workflow.ProviderMemory {
		return nil, cli.WithCode(runs.ExitConfig, "use provider: file (the default) to run a workflow; the memory provider is for Go tests of the runner", workflow.ErrMemoryProvider)
	}
	deltaRun, err := cli.FindCommand("delta-run")
	if err != nil {
		return nil, cli.Errorf(runs.ExitConfig, "install Delta's commands together (make install), or put delta-run on PATH", "delta-run not found: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	o := workflow.Options{File: f, Instance: c.Instance, Dir: c.Dir, Mode: mode, Poll: c.Poll, Debounce: debounce,
		Verbose: c.Verbose, Stderr: std.Err, DeltaRun: deltaRun, Workflow: self, WorkspaceSync: c.Sync}
	if c.Cluster != "" {
		cl, err := c.connect(ctx, "delta workflow "+c.Instance)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		var release func()
		if ctx, release, err = controllerLease(ctx, cl, c.Instance, mode == workflow.ModeStart, std.Err); err != nil {
			return nil, err
		}
		defer release()
		o.Cluster = &workflow.ClusterBoard{URL: c.Cluster, Creds: c.ClusterCreds, Open: func(cfg board.Config) (board.Provider, error) {
			return natsstore.Open(ctx, cl, c.Instance, cfg)
		}}
		o.Dispatch = func(q workflow.Queued) (workflow.Backend, error) { return newQueueBackend(cl, q), nil }
	}
	s, err := workflow.Run(ctx, o)
	// A controller that lost its lease to us may still be closing its
	// instance (its lock) on this host: it stops within moments.
	for i := 0; c.Cluster != "" && errors.Is(err, workflow.ErrInstanceBusy) && i < 120 && ctx.Err() == nil; i++ {
		time.Sleep(250 * time.Millisecond)
		s, err = workflow.Run(ctx, o)
	}
	if err != nil {
		var se *workflow.SetupError
		switch {
		case errors.Is(err, workflow.ErrOtherWorkflow), errors.Is(err, natsstore.ErrOtherWorkflow):
			return nil, cli.WithCode(runs.ExitFailed, "two workflows run in one directory each need their own instance: delta workflow run "+c.File+" --instance NAME", err)
		case errors.Is(err, workflow.ErrOtherBoard):
			return nil, cli.WithCode(runs.ExitFailed, "an instance's board stays where it was created: pass the same --cluster (or none), or use another --instance", err)
		case errors.Is(err, workflow.ErrInstanceBusy):
			return nil, cli.WithCode(runs.ExitFailed, "stop it first (delta workflow stop @"+c.Instance+"), or use another --instance", err)
		case errors.Is(err, workflow.ErrQueue):
			return nil, cli.WithCode(runs.ExitConfig, "see QUEUES in delta-workflow(5)", err)
		case errors.As(err, &se):
			return nil, cli.WithCode(runs.ExitFailed, "fix the step and run again: nothing was posted, the setup runs again", err)
		}
		return nil, err
	}
	return s, nil
}

// background starts `start` again detached from the terminal, with its
// output in the instance's runner.log, and returns once it runs.
func (c *StartCmd) background(std cli.Stdio) error {
	f, err := loadRunnable(c.File)
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := workflow.ValidateInstance(c.Instance); err != nil {
		return cli.WithCode(cli.ExitUsage, "", err)
	}
	dir, err := workflow.ResolveDir(f, c.Instance, c.Dir, wd)
	if err != nil {
		return err
	}
	if p, _ := workflow.LiveRunner(dir); p != nil && c.Cluster == "" {
		return cli.Errorf(runs.ExitFailed, "stop it first (delta workflow stop @"+c.Instance+")", "%v: instance %s is driven by process %d", workflow.ErrInstanceBusy, c.Instance, p.PID)
	}
	logPath := filepath.Join(dir, workflow.RunnerDir, workflow.LogFile)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"start", f.Path, "--instance", c.Instance, "--dir", dir, "--poll", c.Poll.String()}
	if c.Verbose {
		args = append(args, "-v")
	}
	if c.Cluster != "" {
		args = append(args, "--cluster", c.Cluster)
	}
	if c.ClusterCreds != "" {
		args = append(args, "--cluster-creds", c.ClusterCreds)
	}
	if c.Sync != "" {
		args = append(args, "--workspace-sync", c.Sync)
	}
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the runner: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Wait until it is set up (the setup may take a while) or has failed.
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); {
		if p, _ := workflow.LiveRunner(dir); p != nil && p.PID == cmd.Process.Pid && p.Ready {
			fmt.Fprintf(std.Out, "started instance %s of %s in the background (pid %d)\n", c.Instance, f.Name, p.PID)
			fmt.Fprintf(std.Err, "delta-workflow: log: %s\ndelta-workflow: stop it with: delta workflow stop @%s\n", logPath, c.Instance)
			return nil
		}
		if c.Cluster != "" && strings.Contains(tail(logPath, 20), fmt.Sprintf("standby (pid %d)", cmd.Process.Pid)) {
			fmt.Fprintf(std.Out, "started instance %s of %s in the background as a standby (pid %d): it takes over when the controller driving it stops\n", c.Instance, f.Name, cmd.Process.Pid)
			fmt.Fprintf(std.Err, "delta-workflow: log: %s\n", logPath)
			return nil
		}
		select {
		case <-exited:
			return cli.Errorf(runs.ExitFailed, "see "+logPath, "the background runner exited at once:\n%s", tail(logPath, 20))
		case <-time.After(50 * time.Millisecond):
		}
	}
	fmt.Fprintf(std.Out, "starting instance %s of %s in the background (pid %d): still setting up\n", c.Instance, f.Name, cmd.Process.Pid)
	fmt.Fprintf(std.Err, "delta-workflow: log: %s\n", logPath)
	return nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// printSummary prints s as text or JSON.
func printSummary(w io.Writer, s *workflow.Summary, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(s)
	}
	fmt.Fprintf(w, "workflow %s, instance %s: %s\n\n", s.Workflow, s.Instance, s.Status)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATUS\tRUNS\tTOKENS IN/OUT\tUNREAD\tRUN ID")
	for _, a := range s.Agents {
		status := a.Status
		if a.Error != "" {
			status += " (" + shorten(a.Error, 60) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%d\t%s\n", a.Name, status, a.Runs, a.InputTokens, a.OutputTokens, a.Unread, a.RunID)
	}
	tw.Flush()
	if s.Entries == 1 {
		fmt.Fprintf(w, "\nchannel (1 message):\n")
	} else {
		fmt.Fprintf(w, "\nchannel (%d messages, the last %d):\n", s.Entries, len(s.Channel))
	}
	for _, e := range s.Channel {
		fmt.Fprintf(w, "  #%d %s @%s: %s\n", e.Seq, e.Timestamp.Local().Format("15:04:05"), e.From, firstLines(e.Message, 3))
	}
	for _, name := range slices.Sorted(maps.Keys(s.Documents)) {
		fmt.Fprintf(w, "\ndocument %s:\n%s\n", name, indentText(strings.TrimRight(s.Documents[name], "\n")))
	}
	return nil
}

// firstLines keeps the first n lines of s, marking the cut.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		more := "lines"
		if len(lines)-n == 1 {
			more = "line"
		}
		lines = append(lines[:n], fmt.Sprintf("… (%d more %s)", len(lines)-n, more))
	}
	return strings.Join(lines, "\n    ")
}

func indentText(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// shorten cuts s to about n characters on one line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
