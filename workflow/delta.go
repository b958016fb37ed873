package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow/board"
)

// DeltaBackend runs each agent as one long-lived Delta run per instance
// (run id RunID(agent, instance)) in a workspace all agents share: the
// first delivery starts it (delta-run run), later ones continue it
// (delta-run continue) with the digest as the new message, so the agent
// keeps its own history and every run command (log, stop, send,
// list-runs) works on it.
//
// delta-run is started as a child run (runs.StartChild), in a session of
// its own, and is not killed when the runner dies: a runner started again
// finds the run by its id and waits for it rather than starting it twice.
type DeltaBackend struct {
	// DeltaRun is the delta-run executable.
	DeltaRun string
	// Workspace is where the runs live (their .delta/) and work.
	Workspace string
	// Instance is the instance name; InstanceDir its directory.
	Instance, InstanceDir string
	// AgentDir returns the Delta agent directory of an agent (generated
	// for an inline agent).
	AgentDir func(a *AgentDef) string
	// Context is true when the agents get the workflow tools
	// (DELTA_WORKFLOW_DIR and DELTA_WORKFLOW_AGENT are set).
	Context bool
	// Cluster, when set, keeps the board: the agents get
	// DELTA_WORKFLOW_CLUSTER and DELTA_WORKFLOW_INSTANCE instead of
	// DELTA_WORKFLOW_DIR.
	Cluster *ClusterBoard
	// Env is the environment delta-run gets (nil: ours).
	Env []string
	// Poll is how often a run another process drives is checked.
	Poll time.Duration
	// Guarded runs delta-run under lib/execute's guard, so that it dies
	// with this process (a cluster worker's delivery: the next worker
	// continues the run) instead of outliving it (the runner's own).
	Guarded bool
	// TakeOver treats a run marked running on another host as dead and
	// takes it over (continue --force): the caller holds the delivery's
	// cluster lease, which the run's previous worker lost.
	TakeOver bool
}

func (b *DeltaBackend) runDir(a *AgentDef) (string, error) {
	return runs.Find(b.Workspace, RunID(a.Name, b.Instance))
}

// Mark is the size of the agent's journal, -1 when it has no run.
func (b *DeltaBackend) Mark(a *AgentDef) (int64, error) {
	dir, err := b.runDir(a)
	if errors.Is(err, runs.ErrNoRun) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	return journalSize(dir), nil
}

func journalSize(runDir string) int64 {
	fi, err := os.Stat(filepath.Join(runDir, runs.JournalFile))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Usage is the run's token usage (metadata.json).
func (b *DeltaBackend) Usage(a *AgentDef) llm.Usage {
	dir, err := b.runDir(a)
	if err != nil {
		return llm.Usage{}
	}
	m, err := runs.ReadMetadata(dir)
	if err != nil {
		return llm.Usage{}
	}
	return m.Usage
}

// Run makes progress on the delivery, following the run's state:
//
//	no run                      start it with the digest
//	RUNNING, process alive      wait for it (a runner before us started it)
//	RUNNING, process gone       continue it (the janitor interrupts it first)
//	WAITING_FOR_INPUT           waiting, until interaction/response.txt is
//	                            written (then continue) or someone
//	                            continues it
//	delivered (journal grew since the delivery began):
//	  COMPLETED                 succeeded
//	  FAILED                    continue --retry
//	  INTERRUPTED               continue
//	not delivered               continue with the digest
func (b *DeltaBackend) Run(ctx context.Context, job Job) Result {
	a := job.Agent
	id := RunID(a.Name, b.Instance)
	for {
		if ctx.Err() != nil {
			return Result{Outcome: Interrupted}
		}
		dir, err := b.runDir(a)
		if errors.Is(err, runs.ErrNoRun) {
			return b.exec(ctx, job, []string{"run", "--agent", b.AgentDir(a), "-w", b.Workspace, "--run-id", id, "-y", "--format", "json", "-m", "-"}, true)
		}
		if err != nil {
			return Result{Outcome: Failed, Err: err.Error()}
		}
		m, err := runs.ReadMetadata(dir)
		if err != nil {
			return Result{Outcome: Failed, Err: err.Error()}
		}
		delivered := job.Delivery != nil && journalSize(dir) > job.Delivery.Mark
		cont := []string{"continue", "--run-id", id, "-w", b.Workspace, "--format", "json"}
		elsewhere := b.TakeOver && m.Status == runs.Running && m.Hostname != "" && m.Hostname != hostname()
		if elsewhere {
			cont = append(cont, "--force")
		}
		switch m.Status {
		case runs.Running:
			if alive, _ := runs.Alive(m); alive && !elsewhere {
				if err := b.waitProcess(ctx, m); err != nil {
					return Result{Outcome: Failed, Err: err.Error()}
				}
				continue
			}
			if delivered {
				return b.exec(ctx, job, cont, false)
			}
			return b.exec(ctx, job, append(cont, "-m", "-"), true)
		case runs.WaitingForInput:
			if _, err := os.Stat(filepath.Join(dir, runs.InteractionDir, runs.ResponseFile)); err == nil {
				if res := b.exec(ctx, job, cont, false); !b.takenByOther(res, dir) {
					return res
				}
				continue // follow the continue that took it
			}
			return Result{Outcome: Waiting}
		case runs.Completed:
			if delivered {
				// Completed while no runner watched (or before this one
				// recorded it): its answer is the journal's last.
				return Result{Outcome: Succeeded, Answer: finalAnswer(dir)}
			}
			return b.exec(ctx, job, append(cont, "-m", "-"), true)
		case runs.Failed:
			if delivered {
				return b.exec(ctx, job, append(cont, "--retry"), false)
			}
			return b.exec(ctx, job, append(cont, "-m", "-"), true)
		case runs.Interrupted:
			if delivered {
				return b.exec(ctx, job, cont, false)
			}
			return b.exec(ctx, job, append(cont, "-m", "-"), true)
		default:
			return Result{Outcome: Failed, Err: fmt.Sprintf("run %s has unknown status %q", id, m.Status)}
		}
	}
}

// waitProcess waits until the process driving run m ends (or ctx does).
func (b *DeltaBackend) waitProcess(ctx context.Context, m *runs.Metadata) error {
	p, err := runs.OpenProcess(m)
	if errors.Is(err, runs.ErrNotRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	defer p.Close()
	for ctx.Err() == nil {
		done, err := p.Wait(b.poll())
		if err != nil || done {
			return err
		}
	}
	return nil
}

func (b *DeltaBackend) poll() time.Duration {
	if b.Poll > 0 {
		return b.Poll
	}
	return time.Second
}

// exec runs delta-run with args (the digest on stdin when withPrompt)
// and reports the run's state afterwards. A cancelled ctx interrupts it
// the way Ctrl-C does: the run ends INTERRUPTED and is continued later.
func (b *DeltaBackend) exec(ctx context.Context, job Job, args []string, withPrompt bool) Result {
	// The run's output goes to files, not pipes: a run that outlives a
	// killed runner must not die of SIGPIPE at its next line of output.
	resultPath := filepath.Join(b.InstanceDir, AgentsDir, job.Agent.Name, "result.json")
	stdout, err := os.Create(resultPath)
	if err != nil {
		return Result{Outcome: Failed, Err: err.Error()}
	}
	defer stdout.Close()
	c := runs.ChildCommand{Binary: b.DeltaRun, Args: args, Dir: b.Workspace, Env: b.childEnv(job), Stdout: stdout}
	if withPrompt {
		c.Stdin = strings.NewReader(job.Prompt)
	}
	errs := &errorLine{}
	c.Stderr = errs
	if job.Log != nil {
		c.Stderr = io.MultiWriter(job.Log, errs)
	}
	run := runChild
	if b.Guarded {
		run = runGuarded
	}
	code, err := run(ctx, c)
	if err != nil {
		return Result{Outcome: Failed, Err: err.Error(), Started: true}
	}
	rr, _ := readResult(resultPath)
	res := Result{Started: true, Outcome: outcomeOf(code, ctx.Err() != nil), Answer: rr.Text(),
		noRun: rr == nil || rr.RunID == ""}
	if res.Outcome == Failed {
		// ExitConfig: the agent's configuration (or a permission) is
		// wrong; the next attempt would fail the same way.
		res.Permanent = code == runs.ExitConfig
		res.Err = fmt.Sprintf("delta-run %s exited with status %d", args[0], code)
		if msg := rr.Message(); msg != "" {
			res.Err += ": " + msg
		} else if msg := errs.message(); msg != "" {
			// It failed before its run began (a bad agent.yaml, a
			// missing key, a script that does not parse): its own error.
			res.Err += ": " + msg
		}
	}
	return res
}

// runChild runs c as a child run that outlives this process, and returns
// its exit code.
func runChild(ctx context.Context, c runs.ChildCommand) (int, error) {
	child, err := runs.StartChild(c)
	if err != nil {
		return 0, err
	}
	exit := child.WaitContext(ctx)
	return exit.Code, exit.Err
}

// runGuarded runs c under lib/execute's guard: it dies with this process.
// A cancelled ctx interrupts it as Ctrl-C does (SIGTERM), then kills it
// after a grace long enough for the run to journal its interruption.
func runGuarded(ctx context.Context, c runs.ChildCommand) (int, error) {
	spec := execute.Spec{Argv: append([]string{c.Binary}, c.Args...), Dir: c.Dir, Env: c.Env, KillGrace: 10 * time.Second, MaxCapture: 16 << 20}
	if spec.Env == nil {
		spec.Env = os.Environ()
	}
	if c.Stdin != nil {
		in, err := io.ReadAll(c.Stdin)
		if err != nil {
			return 0, err
		}
		spec.Stdin = in
	}
	res, err := execute.Run(ctx, spec)
	if err != nil {
		return 0, err
	}
	if c.Stdout != nil {
		io.WriteString(c.Stdout, res.Stdout)
	}
	if c.Stderr != nil {
		io.WriteString(c.Stderr, res.Stderr)
	}
	if res.Canceled {
		return runs.ExitInterrupted, nil
	}
	return res.ExitCode, nil
}

// hostname is this host's name ("" when unknown).
func hostname() string {
	h, _ := os.Hostname()
	return h
}

// takenByOther reports whether a continue of a waiting run (res) failed
// because another process took the run first: the human's own
// `delta continue -m ANSWER` writes the response file a moment before it
// takes the run, and a runner polling in between starts a continue that
// is refused (the run is live). That continue printed no run result, and
// the run is no longer waiting; the runner then follows the run instead
// of counting a failed delivery.
func (b *DeltaBackend) takenByOther(res Result, dir string) bool {
	if res.Outcome != Failed || !res.noRun {
		return false
	}
	m, err := runs.ReadMetadata(dir)
	return err == nil && m.Status != runs.WaitingForInput
}

// childEnv is the environment of an agent's delta-run: ours (or Env),
// with the workflow's variables naming this agent when it gets the
// workflow tools.
func (b *DeltaBackend) childEnv(job Job) []string {
	env := b.Env
	if env == nil {
		env = os.Environ()
	}
	env = withoutVars(env, board.EnvDir, board.EnvAgent, board.EnvCluster, board.EnvInstance)
	switch {
	case b.Context && b.Cluster != nil:
		env = append(env, board.EnvCluster+"="+b.Cluster.URL, board.EnvInstance+"="+b.Instance, board.EnvAgent+"="+job.Agent.Name)
		if b.Cluster.Creds != "" {
			env = append(withoutVars(env, "DELTA_CLUSTER_CREDS"), "DELTA_CLUSTER_CREDS="+b.Cluster.Creds)
		}
	case b.Context:
		env = append(env, board.EnvDir+"="+b.InstanceDir, board.EnvAgent+"="+job.Agent.Name)
	}
	return env
}

// outcomeOf is the outcome of a delta-run that exited with code;
// cancelled is true when the runner interrupted it.
func outcomeOf(code int, cancelled bool) Outcome {
	switch {
	case code == runs.ExitCompleted:
		return Succeeded
	case code == runs.ExitWaiting:
		return Waiting
	case cancelled, code == runs.ExitInterrupted:
		// ExitInterrupted without our asking: someone stopped the run
		// (delta stop).
		return Interrupted
	}
	return Failed
}

// readResult reads the Result delta-run printed to path; nil when it
// printed none.
func readResult(path string) (*runs.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return runs.DecodeResult(data)
}

// errorLine remembers the first line of the last error delta-run wrote
// to its standard error ("delta-run: error: …").
type errorLine struct {
	mu      sync.Mutex
	partial []byte
	last    string
}

func (e *errorLine) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.partial = append(e.partial, p...)
	for {
		i := bytes.IndexByte(e.partial, '\n')
		if i < 0 {
			break
		}
		if msg, ok := strings.CutPrefix(string(e.partial[:i]), "delta-run: error: "); ok {
			e.last = strings.TrimSpace(msg)
		}
		e.partial = e.partial[i+1:]
	}
	if len(e.partial) > 64<<10 {
		e.partial = e.partial[:0]
	}
	return len(p), nil
}

func (e *errorLine) message() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

// withoutVars removes the named variables from env.
func withoutVars(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			if name == n {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// finalAnswer is the final answer of the run in runDir (runs.FinalAnswer).
func finalAnswer(runDir string) string {
	events, err := journal.ReadFile(filepath.Join(runDir, runs.JournalFile))
	if err != nil {
		return ""
	}
	answer, _ := runs.FinalAnswer(events)
	return answer
}
