package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow/board"
)

// Modes of a runner.
const (
	// ModeRun ends when the workflow is idle.
	ModeRun = "run"
	// ModeStart runs until stopped.
	ModeStart = "start"
)

// Options configure a runner.
type Options struct {
	File *File
	// Instance is the instance name (default "default").
	Instance string
	// Dir overrides the instance directory (default: the file's
	// context dir, .workflow/<instance>).
	Dir string
	// Workspace is the directory the agents work in and their runs live
	// in (default: the current directory).
	Workspace string
	Mode      string
	// Poll is the controllers' fallback polling interval (default 5s).
	Poll time.Duration
	// Debounce is how long the workflow must stay idle before run ends
	// (default 2s).
	Debounce time.Duration
	Retry    Retry
	// ElectionTimeout bounds the document owner election (default 30s).
	ElectionTimeout time.Duration
	// Verbose shows the agents' live output on Stderr (else it goes to
	// agents/<name>/run.log).
	Verbose bool
	Stderr  io.Writer
	// DeltaRun and Workflow are the delta-run and delta-workflow
	// executables.
	DeltaRun, Workflow string
	// Env is the agents' environment (nil: ours); LookupEnv serves
	// ${{ env.NAME }} (nil: os.LookupEnv).
	Env       []string
	LookupEnv func(string) (string, bool)
	// Cluster, when set, keeps the instance's board in a cluster instead
	// of its directory (which keeps the runner's own state).
	Cluster *ClusterBoard
	// WorkspaceSync, when set, is every agent's workspace policy
	// (--workspace-sync), overriding the file's.
	WorkspaceSync string
	// Dispatch, when set, runs the deliveries of the Delta agents that
	// have a queue on the cluster's workers: it returns the agent's
	// backend. Without it an agent with a queue is refused.
	Dispatch func(q Queued) (Backend, error)
	// Provider replaces the context the file describes (tests);
	// Backends replaces an agent's backend by name (tests).
	Provider board.Provider
	Backends map[string]Backend
}

// Summary is the outcome of a runner.
type Summary struct {
	Workflow string `json:"workflow"`
	Instance string `json:"instance"`
	Dir      string `json:"dir"`
	// Status is completed (run mode: idle and no agent failed), failed
	// (idle, but an agent failed every attempt and left messages unread),
	// stopped (start mode ended by stop) or interrupted.
	Status   string         `json:"status"`
	Agents   []AgentSummary `json:"agents"`
	Entries  int64          `json:"channel_entries"`
	Channel  []board.Entry  `json:"channel"`
	Document string         `json:"document,omitempty"`
	// Documents maps each document to its content.
	Documents map[string]string `json:"documents"`
}

// AgentSummary is one agent's line of the summary.
type AgentSummary struct {
	Name         string `json:"name"`
	Backend      string `json:"backend"`
	RunID        string `json:"run_id,omitempty"`
	Status       string `json:"status"`
	Runs         int    `json:"runs"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	Unread       int    `json:"unread"`
	Error        string `json:"error,omitempty"`
}

// Summary statuses.
const (
	SummaryCompleted   = "completed"
	SummaryFailed      = "failed"
	SummaryStopped     = "stopped"
	SummaryInterrupted = "interrupted"
)

// summaryTail is how many channel entries the summary shows.
const summaryTail = 10

// runner is one Run in progress.
type runner struct {
	o        Options
	f        *File
	dir      string
	state    *State
	p        board.Provider
	vars     Vars
	ctrls    []*Controller
	backends map[string]Backend
	out      *lockedWriter
	changed  chan struct{}
	closers  []io.Closer
	follow   []followed
	pid      RunnerPID
}

// ResolveDir returns the instance directory: dir when given, else the
// file's context dir (default .workflow/<instance>) under workspace.
func ResolveDir(f *File, instance, dir, workspace string) (string, error) {
	if dir == "" {
		d, err := f.Context.Dir.Expand(Vars{Workflow: f.Name, Instance: instance})
		if err != nil {
			return "", err
		}
		dir = d
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(workspace, dir)
		}
	}
	return runs.Canonical(dir)
}

// Run sets the instance up (once: setup, the owner election, the
// kickoff), then drives one controller per agent until the workflow is
// idle (ModeRun) or ctx ends. An instance that exists is resumed: what it
// already did is not repeated, and deliveries a previous runner left
// unfinished are finished first.
func Run(ctx context.Context, o Options) (*Summary, error) {
	r, unlock, err := open(o)
	if err != nil {
		return nil, err
	}
	defer unlock()
	defer r.p.Close()
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range r.closers {
			c.Close()
		}
	}()
	status := r.drive(ctx)
	return r.summary(context.WithoutCancel(ctx), status)
}

// open resolves the instance, takes its lock and opens its context.
func open(o Options) (*runner, func(), error) {
	o, err := o.resolve()
	if err != nil {
		return nil, nil, err
	}
	f := o.File
	dir, err := ResolveDir(f, o.Instance, o.Dir, o.Workspace)
	if err != nil {
		return nil, nil, err
	}
	unlock, err := lockOwn(o, dir)
	if err != nil {
		return nil, nil, err
	}
	r := &runner{o: o, f: f, dir: dir, out: &lockedWriter{w: o.Stderr}, changed: make(chan struct{}, 1)}
	self := runs.Self()
	pidFile := filepath.Join(dir, RunnerDir, PIDFile)
	r.pid = RunnerPID{PID: self.PID, Hostname: self.Hostname, StartTicks: self.StartTicks, Mode: o.Mode, StartedAt: time.Now().UTC()}
	if err := writeJSON(pidFile, r.pid); err != nil {
		unlock()
		return nil, nil, err
	}
	release := func() {
		os.Remove(pidFile)
		unlock()
	}
	if err := r.openBoard(); err != nil {
		release()
		return nil, nil, err
	}
	return r, release, nil
}

// resolve fills in the options' defaults (instance, workspace, mode) and
// checks the workflow's environment.
func (o Options) resolve() (Options, error) {
	if o.Instance == "" {
		o.Instance = "default"
	}
	if err := ValidateInstance(o.Instance); err != nil {
		return o, err
	}
	if o.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, err
		}
		o.Workspace = wd
	}
	ws, err := runs.Canonical(o.Workspace)
	if err != nil {
		return o, err
	}
	o.Workspace = ws
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Mode == "" {
		o.Mode = ModeRun
	}
	return o, o.File.CheckEnv(o.LookupEnv)
}

// lockOwn creates the instance directory and takes its lock, refused when
// another runner holds it or the instance is another workflow's.
func lockOwn(o Options, dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create instance directory: %w", err)
	}
	unlock, err := lockInstance(dir)
	if errors.Is(err, ErrInstanceBusy) {
		if p, _ := LiveRunner(dir); p != nil {
			return nil, fmt.Errorf("%w: instance %s (%s) is driven by process %d (%s)", ErrInstanceBusy, o.Instance, dir, p.PID, p.Mode)
		}
		return nil, fmt.Errorf("%w: instance %s (%s)", ErrInstanceBusy, o.Instance, dir)
	}
	if err != nil {
		return nil, err
	}
	// Before anything of the instance is touched (its context.json
	// names the agents): it must be this workflow's.
	f := o.File
	st, err := ReadState(dir)
	if err == nil && st.Workflow != "" && st.Workflow != f.Name {
		unlock()
		return nil, fmt.Errorf("%w: instance %s (%s) belongs to workflow %s (%s), not to %s: run that file, or give this one an instance of its own (--instance NAME)", ErrOtherWorkflow, o.Instance, dir, st.Workflow, st.File, f.Name)
	}
	if err == nil && st.Cluster != o.Cluster.url() {
		unlock()
		return nil, fmt.Errorf("%w: instance %s (%s) keeps its board %s, not %s: resume it as it was started, or give this one an instance of its own (--instance NAME)", ErrOtherBoard, o.Instance, dir, boardWhere(st.Cluster), boardWhere(o.Cluster.url()))
	}
	return unlock, nil
}

// openBoard opens the instance's board, unless Options gave one.
func (r *runner) openBoard() error {
	f, o := r.f, r.o
	r.p = o.Provider
	if r.p != nil {
		return nil
	}
	if f.Context.Provider == ProviderMemory {
		return ErrMemoryProvider
	}
	vars := Vars{Workflow: f.Name, Instance: o.Instance, Env: o.LookupEnv}
	cfg := board.Config{Agents: f.AgentNames(), DocumentOwner: f.Context.DocumentOwner}
	var err error
	if cfg.Channel, err = f.Context.Channel.Expand(vars); err == nil {
		cfg.Document, err = f.Context.Document.Expand(vars)
	}
	if err == nil && o.Cluster != nil {
		r.p, err = o.Cluster.Open(cfg)
	} else if err == nil {
		r.p, err = board.OpenFile(r.dir, cfg)
	}
	if err != nil {
		return fmt.Errorf("open the shared context: %w", err)
	}
	return nil
}

// ClusterBoard is a board kept in a cluster: Open opens it (the caller's
// cluster store), URL and Creds are how the agents reach it.
type ClusterBoard struct {
	URL, Creds string
	Open       func(cfg board.Config) (board.Provider, error)
}

func (c *ClusterBoard) url() string {
	if c == nil {
		return ""
	}
	return c.URL
}

func boardWhere(url string) string {
	if url == "" {
		return "in its directory"
	}
	return "in the cluster " + url
}

// ErrOtherBoard: the instance keeps its board elsewhere (in its files,
// or in another cluster) than the runner was told.
var ErrOtherBoard = errors.New("instance keeps its board elsewhere")

// ErrOtherWorkflow: the instance was created by another workflow.
var ErrOtherWorkflow = errors.New("instance of another workflow")

// ErrMemoryProvider: the memory provider cannot be shared with agents that
// are processes of their own.
var ErrMemoryProvider = errors.New("context provider memory lives in one process: agents run as processes of their own cannot reach it")

// printf writes one progress line to stderr.
func (r *runner) printf(format string, args ...any) {
	fmt.Fprintf(r.out, "delta-workflow: "+format+"\n", args...)
}

// prepare creates or resumes the instance: state, setup, agent
// directories, the owner election and the kickoff.
func (r *runner) prepare(ctx context.Context) error {
	f, o := r.f, r.o
	if err := r.checkQueues(); err != nil {
		return err
	}
	st, err := r.loadState()
	if err != nil {
		return err
	}
	r.state = st
	if err := Register(r.dir, st); err != nil {
		r.printf("note: the instance is not registered (%v): delta workflow list and stop find it only under .workflow/ of %s", err, st.Workspace)
	}
	r.vars = Vars{Workflow: f.Name, Instance: o.Instance, Env: o.LookupEnv}
	if f.Context.Enabled && o.Cluster == nil {
		cfg := r.p.Config()
		r.vars.Channel = filepath.Join(r.dir, cfg.Channel)
		r.vars.Document = filepath.Join(r.dir, "documents", cfg.Document)
	}
	if !st.SetupDone {
		vars, err := r.setup(ctx)
		if err != nil {
			return err
		}
		st.Variables, st.SetupDone = vars, true
		if err := WriteState(r.dir, st); err != nil {
			return err
		}
	}
	r.vars.Setup = st.Variables
	if err := r.agents(); err != nil {
		return err
	}
	if f.Context.Enabled {
		if err := r.documents(ctx); err != nil {
			return err
		}
		if err := r.startElection(ctx, st); err != nil {
			return err
		}
	}
	if st.KickoffDone {
		return nil
	}
	if pending, err := r.electing(ctx); err != nil || !pending {
		if err != nil {
			return err
		}
		return r.kickoff(ctx)
	}
	if _, err := r.f.Kickoff.Expand(r.vars); err != nil {
		return fmt.Errorf("kickoff: %w", err)
	}
	r.printf("the kickoff waits for the document owner election")
	return nil
}

// writeFile replaces path with s atomically.
func writeFile(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(s), 0o644)
}
