package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
	"github.com/deltakit/delta/workflow/board"
)

// exitNotRunning is stop's exit status when nothing was running.
const exitNotRunning = 3

// StopCmd stops agents or instances.
type StopCmd struct {
	Target  string        `arg:"" optional:"" help:"AGENT@INSTANCE (one agent), @INSTANCE (the instance's runner) or AGENT (instance default)."`
	All     bool          `help:"Stop every running instance: those under .workflow/ here and every other one this user started, wherever it is."`
	Dir     string        `help:"Instance directory (default: .workflow/INSTANCE here)." type:"path" placeholder:"DIR"`
	Timeout time.Duration `default:"30s" help:"How long to wait for it to stop."`
}

// Run stops the target.
func (c *StopCmd) Run(std cli.Stdio) error {
	if c.All == (c.Target != "") {
		return cli.Errorf(cli.ExitUsage, "delta workflow stop AGENT@INSTANCE, stop @INSTANCE, or stop --all", "give a target or --all")
	}
	if c.All {
		return c.stopAll(std)
	}
	t, err := parseTarget(c.Target, "default")
	if err != nil {
		return err
	}
	dir, err := instanceDir(c.Dir, t.Instance)
	if err != nil {
		return err
	}
	if _, err := workflow.ReadState(dir); err != nil {
		return noInstance(dir)
	}
	if t.Agent != "" {
		return c.stopAgent(std, dir, t)
	}
	ok, err := stopInstance(dir, c.Timeout, std.Err)
	if err != nil {
		return err
	}
	if !ok {
		return cli.Errorf(exitNotRunning, "", "instance %s is not running", t.Instance)
	}
	fmt.Fprintf(std.Out, "stopped @%s\n", t.Instance)
	return nil
}

// stopInstance stops the instance's runner, then the runs of its agents
// that workers of its cluster hold (the runner, stopping, no longer
// waits for them, but they would go on). It reports whether anything was
// running.
func stopInstance(dir string, timeout time.Duration, stderr io.Writer) (bool, error) {
	ok, err := workflow.StopRunner(dir, timeout)
	if err != nil {
		return ok, err
	}
	stopped, err := stopClusterRuns(dir, nil, timeout, stderr)
	return ok || len(stopped) > 0, err
}

// stopAll stops the runner of every instance running.
func (c *StopCmd) stopAll(std cli.Stdio) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	dirs, err := workflow.AllInstances(wd)
	if err != nil {
		return err
	}
	stopped := 0
	var errs []error
	for _, dir := range dirs {
		ok, err := stopInstance(dir, c.Timeout, std.Err)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", dir, err))
			continue
		}
		if ok {
			stopped++
			fmt.Fprintf(std.Out, "stopped @%s (%s)\n", instanceName(dir), dir)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if stopped == 0 {
		return cli.Errorf(exitNotRunning, "", "no instance is running")
	}
	return nil
}

// stopAgent asks the runner of the instance in dir to stop one agent and
// waits until it has.
func (c *StopCmd) stopAgent(std cli.Stdio, dir string, t target) error {
	st, err := workflow.ReadAgentStatus(dir, t.Agent)
	if err != nil {
		return err
	}
	if st == nil {
		return cli.Errorf(runs.ExitFailed, "delta workflow list shows the agents", "instance %s has no agent %s", t.Instance, t.Agent)
	}
	if p, _ := workflow.LiveRunner(dir); p == nil {
		return cli.Errorf(exitNotRunning, "", "instance %s is not running", t.Instance)
	}
	if st.Status == workflow.StatusStopped {
		return cli.Errorf(exitNotRunning, "", "%s is already stopped", t)
	}
	if err := workflow.RequestAgentStop(dir, t.Agent); err != nil {
		return err
	}
	deadline := time.Now().Add(c.Timeout)
	for time.Now().Before(deadline) {
		if st, _ := workflow.ReadAgentStatus(dir, t.Agent); st != nil && st.Status == workflow.StatusStopped {
			// A worker's run of the agent goes on after its controller
			// stopped waiting for it: stop it too.
			if _, err := stopClusterRuns(dir, []string{t.Agent}, c.Timeout, std.Err); err != nil {
				return err
			}
			fmt.Fprintf(std.Out, "stopped %s\n", t)
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cli.Errorf(runs.ExitFailed, "", "%s did not stop within %s", t, c.Timeout)
}

// ListCmd lists the agents of the instances here.
type ListCmd struct {
	All  bool `help:"List every instance this user started, wherever it is, not only those working here."`
	JSON bool `help:"Print a JSON array of {name, agent, instance, dir, workspace, source, status, run_id, runs, unread, runner_pid} (workspace: where the agents' runs are); unread is -1 when the board cannot be reached (its cluster is down)."`
}

// listed is one agent of list.
type listed struct {
	Name      string `json:"name"`
	Agent     string `json:"agent"`
	Instance  string `json:"instance"`
	Dir       string `json:"dir"`
	Workspace string `json:"workspace,omitempty"`
	Source    string `json:"source"`
	Status    string `json:"status"`
	RunID     string `json:"run_id,omitempty"`
	Runs      int    `json:"runs"`
	Unread    int    `json:"unread"`
	RunnerPID int    `json:"runner_pid,omitempty"`
}

// Run lists the agents.
func (c *ListCmd) Run(std cli.Stdio) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	list := workflow.InstancesHere
	if c.All {
		list = workflow.AllInstances
	}
	dirs, err := list(wd)
	if err != nil {
		return err
	}
	out := []listed{}
	for _, dir := range dirs {
		rows, err := listInstance(dir, std.Err)
		if err != nil {
			return err
		}
		out = append(out, rows...)
	}
	if c.JSON {
		return printJSON(std, out)
	}
	if len(out) == 0 {
		if c.All {
			fmt.Fprintln(std.Err, "delta-workflow: no workflow instance")
		} else {
			fmt.Fprintln(std.Err, "delta-workflow: no workflow instance here (.workflow/; delta workflow list --all shows those elsewhere)")
		}
		return nil
	}
	tw := tabwriter.NewWriter(std.Out, 0, 4, 2, ' ', 0)
	if c.All {
		fmt.Fprintln(tw, "NAME\tSOURCE\tSTATUS\tDIR")
	} else {
		fmt.Fprintln(tw, "NAME\tSOURCE\tSTATUS")
	}
	for _, l := range out {
		status := l.Status
		if l.Unread > 0 {
			status += fmt.Sprintf(" (%d unread)", l.Unread)
		}
		if c.All {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Name, l.Source, status, l.Dir)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Name, l.Source, status)
		}
	}
	return tw.Flush()
}

// listInstance lists one instance's agents. A board that cannot be
// reached (its cluster is down) is a warning on stderr: the agents are
// listed from the instance's directory, their unread counts unknown.
func listInstance(dir string, stderr io.Writer) ([]listed, error) {
	st, err := workflow.ReadState(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	p, err := openInstance(dir)
	if err == nil {
		defer p.Close()
		names = p.Config().Agents
	} else if st.Cluster != "" {
		fmt.Fprintf(stderr, "delta-workflow: warning: instance %s: %v\n", st.Instance, err)
		ents, _ := os.ReadDir(filepath.Join(dir, workflow.AgentsDir))
		for _, e := range ents {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
	} else {
		return nil, err
	}
	runner, _ := workflow.LiveRunner(dir)
	var rows []listed
	for _, name := range names {
		l := listed{Name: name + "@" + st.Instance, Agent: name, Instance: st.Instance, Dir: dir, Workspace: st.Workspace, Source: filepath.Base(st.File), Status: workflow.StatusStopped}
		if as, _ := workflow.ReadAgentStatus(dir, name); as != nil {
			l.RunID, l.Runs = as.RunID, as.Runs
			if runner != nil {
				l.Status = as.Status
			}
		}
		if runner != nil {
			l.RunnerPID = runner.PID
		}
		if p == nil {
			l.Unread = -1
		} else if inbox, err := p.Inbox(context.Background(), name); err == nil {
			l.Unread = len(inbox)
		}
		rows = append(rows, l)
	}
	return rows, nil
}

// SendCmd posts a message to an instance's channel.
type SendCmd struct {
	Message  string `arg:"" help:"The message; - reads it from stdin."`
	To       string `help:"AGENT@INSTANCE or AGENT: the agent the message is for (it is @mentioned unless the message already does), or @INSTANCE to post without a mention. Without --to, a message that @mentions an agent goes as it is, and one that mentions none goes to the workflow's agent when it has only one; with several, naming none is an error that lists them." placeholder:"TARGET"`
	Instance string `help:"The instance when --to names none (default: default)." placeholder:"NAME"`
	From     string `default:"user" help:"Who the message is from."`
	Dir      string `help:"Instance directory (default: .workflow/INSTANCE here)." type:"path" placeholder:"DIR"`
	JSON     bool   `help:"Print the channel entry as JSON."`
}

// Run posts the message.
func (c *SendCmd) Run(std cli.Stdio) error {
	inst := c.Instance
	if inst == "" {
		inst = "default"
	}
	t, err := parseTarget(c.To, inst)
	if err != nil {
		return err
	}
	if c.Instance != "" && t.Instance != c.Instance {
		return cli.Errorf(cli.ExitUsage, "", "two instances: --to %s and --instance %s", c.To, c.Instance)
	}
	msg := c.Message
	if msg == "-" {
		data, err := readAll(std)
		if err != nil {
			return err
		}
		msg = data
	}
	if strings.TrimSpace(msg) == "" {
		return cli.Errorf(cli.ExitUsage, "", "the message is empty")
	}
	if !board.ValidName(c.From) {
		return cli.Errorf(cli.ExitUsage, "", "invalid --from %q: a letter, then letters, digits, _ or -", c.From)
	}
	dir, err := instanceDir(c.Dir, t.Instance)
	if err != nil {
		return err
	}
	p, err := openInstance(dir)
	if err != nil {
		return err
	}
	defer p.Close()
	agents := p.Config().Agents
	if c.To == "" && len(board.Mentions(msg, agents)) == 0 {
		// No agent named, neither by --to nor in the message: the only
		// agent, when there is one; else saying which is the user's to do
		// (explicit over implicit: no agent is silently chosen).
		if len(agents) != 1 {
			return cli.Errorf(cli.ExitUsage,
				fmt.Sprintf("delta workflow send MESSAGE --to AGENT@%s, or @mention the agent in the message (--to @%s posts it without a mention)", t.Instance, t.Instance),
				"instance %s has %d agents (%s): name the one the message is for", t.Instance, len(agents), strings.Join(agents, ", "))
		}
		t.Agent = agents[0]
	}
	if t.Agent != "" {
		if !slices.Contains(agents, t.Agent) {
			return cli.Errorf(runs.ExitFailed, "its agents: "+strings.Join(agents, ", "), "instance %s has no agent %s", t.Instance, t.Agent)
		}
		if !slices.Contains(board.Mentions(msg, agents), t.Agent) {
			msg = "@" + t.Agent + " " + msg
		}
	}
	e, err := p.Append(context.Background(), c.From, msg)
	if err != nil {
		return err
	}
	if c.JSON {
		if err := printJSON(std, e); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(std.Out, "sent #%d to @%s\n", e.Seq, t.Instance)
	}
	if r, _ := workflow.LiveRunner(dir); r == nil {
		fmt.Fprintf(std.Err, "delta-workflow: note: no runner drives instance %s now; the message waits until one does (delta workflow start FILE --instance %s)\n", t.Instance, t.Instance)
	}
	return nil
}

// PeekCmd shows an instance's recent channel.
type PeekCmd struct {
	Target string `arg:"" optional:"" help:"@INSTANCE (default @default), or AGENT@INSTANCE to also show that agent's status and unread inbox."`
	To     string `help:"The same as TARGET." placeholder:"TARGET"`
	Limit  int    `short:"n" default:"20" help:"How many channel messages to show."`
	Dir    string `help:"Instance directory (default: .workflow/INSTANCE here)." type:"path" placeholder:"DIR"`
	JSON   bool   `help:"Print {channel, agent?: {status, inbox}} as JSON."`
}

// Run shows the channel.
func (c *PeekCmd) Run(std cli.Stdio) error {
	if c.To != "" {
		if c.Target != "" && c.Target != c.To {
			return cli.Errorf(cli.ExitUsage, "", "two targets: %s and --to %s", c.Target, c.To)
		}
		c.Target = c.To
	}
	t, err := parseTarget(c.Target, "default")
	if err != nil {
		return err
	}
	dir, err := instanceDir(c.Dir, t.Instance)
	if err != nil {
		return err
	}
	p, err := openInstance(dir)
	if err != nil {
		return err
	}
	defer p.Close()
	ctx := context.Background()
	entries, err := p.Read(ctx, board.ReadOptions{Limit: c.Limit})
	if err != nil {
		return err
	}
	out := map[string]any{"channel": entries}
	var inbox []board.InboxMessage
	var status *workflow.AgentStatus
	if t.Agent != "" {
		if !slices.Contains(p.Config().Agents, t.Agent) {
			return cli.Errorf(runs.ExitFailed, "its agents: "+strings.Join(p.Config().Agents, ", "), "instance %s has no agent %s", t.Instance, t.Agent)
		}
		if inbox, err = p.Inbox(ctx, t.Agent); err != nil {
			return err
		}
		status, _ = workflow.ReadAgentStatus(dir, t.Agent)
		if r, _ := workflow.LiveRunner(dir); r == nil && status != nil {
			status.Status = workflow.StatusStopped
		}
		out["agent"] = map[string]any{"name": t.Agent, "status": status, "inbox": inbox}
	}
	if c.JSON {
		return printJSON(std, out)
	}
	for _, e := range entries {
		fmt.Fprintf(std.Out, "#%d %s @%s: %s\n", e.Seq, e.Timestamp.Local().Format("15:04:05"), e.From, firstLines(e.Message, 5))
	}
	if t.Agent != "" {
		s := workflow.StatusStopped
		if status != nil {
			s = status.Status
		}
		fmt.Fprintf(std.Out, "\n%s: %s, %d unread\n", t, s, len(inbox))
		for _, m := range inbox {
			fmt.Fprintf(std.Out, "  #%d from @%s (%s): %s\n", m.Entry.Seq, m.Entry.From, m.Priority, firstLines(m.Entry.Message, 2))
		}
	}
	return nil
}

// printJSON prints v indented.
func printJSON(std cli.Stdio, v any) error {
	enc := json.NewEncoder(std.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func readAll(std cli.Stdio) (string, error) {
	data, err := io.ReadAll(std.In)
	return string(data), err
}

// instanceName is the name of the instance in dir (its directory's name
// when its state cannot be read).
func instanceName(dir string) string {
	if st, err := workflow.ReadState(dir); err == nil && st.Instance != "" {
		return st.Instance
	}
	return filepath.Base(dir)
}
