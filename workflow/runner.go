package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/execute"
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
	if o.Instance == "" {
		o.Instance = "default"
	}
	if err := ValidateInstance(o.Instance); err != nil {
		return nil, nil, err
	}
	if o.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, err
		}
		o.Workspace = wd
	}
	ws, err := runs.Canonical(o.Workspace)
	if err != nil {
		return nil, nil, err
	}
	o.Workspace = ws
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Mode == "" {
		o.Mode = ModeRun
	}
	f := o.File
	if err := f.CheckEnv(o.LookupEnv); err != nil {
		return nil, nil, err
	}
	dir, err := ResolveDir(f, o.Instance, o.Dir, o.Workspace)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create instance directory: %w", err)
	}
	unlock, err := lockInstance(dir)
	if errors.Is(err, ErrInstanceBusy) {
		if p, _ := LiveRunner(dir); p != nil {
			return nil, nil, fmt.Errorf("%w: instance %s (%s) is driven by process %d (%s)", ErrInstanceBusy, o.Instance, dir, p.PID, p.Mode)
		}
		return nil, nil, fmt.Errorf("%w: instance %s (%s)", ErrInstanceBusy, o.Instance, dir)
	}
	if err != nil {
		return nil, nil, err
	}
	// Before anything of the instance is touched (its context.json
	// names the agents): it must be this workflow's.
	if st, err := ReadState(dir); err == nil && st.Workflow != "" && st.Workflow != f.Name {
		unlock()
		return nil, nil, fmt.Errorf("%w: instance %s (%s) belongs to workflow %s (%s), not to %s: run that file, or give this one an instance of its own (--instance NAME)", ErrOtherWorkflow, o.Instance, dir, st.Workflow, st.File, f.Name)
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
	r.p = o.Provider
	if r.p == nil {
		if f.Context.Provider == ProviderMemory {
			release()
			return nil, nil, ErrMemoryProvider
		}
		cfg := board.Config{Agents: f.AgentNames(), DocumentOwner: f.Context.DocumentOwner}
		if cfg.Channel, err = f.Context.Channel.Expand(Vars{Workflow: f.Name, Instance: o.Instance, Env: o.LookupEnv}); err == nil {
			cfg.Document, err = f.Context.Document.Expand(Vars{Workflow: f.Name, Instance: o.Instance, Env: o.LookupEnv})
		}
		if err == nil {
			r.p, err = board.OpenFile(dir, cfg)
		}
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("open the shared context: %w", err)
		}
	}
	return r, release, nil
}

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
	st, err := ReadState(r.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st = &State{Workflow: f.Name, File: f.Path, Instance: o.Instance, Workspace: o.Workspace, CreatedAt: time.Now().UTC()}
		if err := WriteState(r.dir, st); err != nil {
			return err
		}
		r.printf("instance %s of workflow %s in %s", o.Instance, f.Name, r.dir)
	case err != nil:
		return err
	default:
		if st.Workspace != "" && st.Workspace != o.Workspace {
			return fmt.Errorf("instance %s works in %s, not here (%s): run it from there", o.Instance, st.Workspace, o.Workspace)
		}
		if st.File != f.Path {
			// The same workflow, its file moved or renamed: follow it.
			st.File = f.Path
			if err := WriteState(r.dir, st); err != nil {
				return err
			}
		}
		r.printf("resuming instance %s of workflow %s (%s)", o.Instance, f.Name, r.dir)
	}
	r.state = st
	if err := Register(r.dir, st); err != nil {
		r.printf("note: the instance is not registered (%v): delta workflow list and stop find it only under .workflow/ of %s", err, st.Workspace)
	}
	r.vars = Vars{Workflow: f.Name, Instance: o.Instance, Env: o.LookupEnv}
	if f.Context.Enabled {
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
	}
	if f.Context.Enabled && !st.ElectionStarted {
		timeout := o.ElectionTimeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		if len(f.Agents) > 1 && f.Context.DocumentOwner == "" {
			if p, ok, err := r.p.StartOwnerElection(ctx, timeout); err != nil {
				return fmt.Errorf("start the document owner election: %w", err)
			} else if ok {
				r.printf("no documentOwner: the agents elect one (proposal %s)", p.ID)
			}
		}
		st.ElectionStarted = true
		if err := WriteState(r.dir, st); err != nil {
			return err
		}
	}
	if !st.KickoffDone {
		if pending, err := r.electing(ctx); err != nil {
			return err
		} else if pending {
			if _, err := r.f.Kickoff.Expand(r.vars); err != nil {
				return fmt.Errorf("kickoff: %w", err)
			}
			r.printf("the kickoff waits for the document owner election")
		} else if err := r.kickoff(ctx); err != nil {
			return err
		}
	}
	return nil
}

// electing reports whether a document owner election is open: the
// kickoff waits until it ends (the agents first elect the owner, then
// work).
func (r *runner) electing(ctx context.Context) (bool, error) {
	if !r.f.Context.Enabled || strings.TrimSpace(r.f.Kickoff.S) == "" {
		return false, nil
	}
	if _, err := r.p.Settle(ctx); err != nil {
		return false, err
	}
	active, err := r.p.Proposals(ctx, true)
	if err != nil {
		return false, err
	}
	for _, p := range active {
		if board.IsOwnerElection(p) {
			return true, nil
		}
	}
	return false, nil
}

// documents creates, empty, the documents of context.config.documents
// that do not exist yet (those that do are kept as they are).
func (r *runner) documents(ctx context.Context) error {
	for _, t := range r.f.Context.Documents {
		file, err := t.Expand(r.vars)
		if err != nil {
			return fmt.Errorf("context: config: documents: %w", err)
		}
		if err := r.p.CreateDocument(ctx, board.System, file, ""); err != nil && !errors.Is(err, board.ErrExists) {
			if errors.Is(err, board.ErrElection) {
				// An owner election opened by an earlier runner is still
				// going on: create it once it is over (next start).
				continue
			}
			return fmt.Errorf("create document %s: %w", file, err)
		}
	}
	return nil
}

// setup runs the setup steps in the workspace and returns their variables.
func (r *runner) setup(ctx context.Context) (map[string]string, error) {
	vars := map[string]string{}
	v := r.vars
	v.Setup = vars
	for i, s := range r.f.Setup {
		cmd, err := s.Shell.Expand(v)
		if err != nil {
			return nil, fmt.Errorf("setup step %d: %w", i+1, err)
		}
		r.printf("setup: %s", oneLine(cut(cmd, 120)))
		res, err := execute.Run(ctx, execute.Spec{Argv: []string{"sh", "-c", cmd}, Dir: r.o.Workspace, Env: r.o.Env})
		if err != nil {
			return nil, fmt.Errorf("setup step %d: %w", i+1, err)
		}
		if res.ExitCode != 0 {
			return nil, &SetupError{Step: i + 1, Line: s.Shell.line(), Command: cmd, ExitCode: res.ExitCode, Stderr: strings.TrimSpace(res.Stderr)}
		}
		if s.As != "" {
			vars[s.As] = strings.TrimRight(res.Stdout, "\n")
		}
	}
	return vars, nil
}

// SetupError is a setup step that failed: the instance is not started,
// and the steps run again next time.
type SetupError struct {
	Step, Line, ExitCode int
	Command, Stderr      string
}

func (e *SetupError) Error() string {
	msg := fmt.Sprintf("setup step %d (line %d) failed with exit status %d: %s", e.Step, e.Line, e.ExitCode, e.Command)
	if e.Stderr != "" {
		msg += "\n" + cut(e.Stderr, 2000)
	}
	return msg
}

// line is where the text starts in the file (0 when unknown).
func (t Text) line() int {
	if t.node == nil {
		return 0
	}
	return t.node.Line
}

// agentDir is the agent's folder in the instance directory.
func (r *runner) agentDir(a *AgentDef) string { return filepath.Join(r.dir, AgentsDir, a.Name) }

// deltaAgentDir is the Delta agent directory a run of a uses.
func (r *runner) deltaAgentDir(a *AgentDef) string {
	if a.Dir != "" {
		return a.Dir
	}
	return r.agentDir(a)
}

// agents writes the generated agent directories and MCP configurations,
// builds the backends and controllers, and clears stop requests.
func (r *runner) agents() error {
	f := r.f
	delta := &DeltaBackend{DeltaRun: r.o.DeltaRun, Workspace: r.o.Workspace, Instance: r.o.Instance, InstanceDir: r.dir,
		AgentDir: r.deltaAgentDir, Context: f.Context.Enabled, Env: r.o.Env, Poll: time.Second}
	command := &CommandBackend{Workspace: r.o.Workspace, Instance: r.o.Instance, InstanceDir: r.dir, Workflow: r.o.Workflow,
		Vars: r.vars, Context: f.Context.Enabled, Env: r.o.Env}
	r.backends = map[string]Backend{}
	for _, a := range f.Agents {
		dir := r.agentDir(a)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(dir, stopFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		var others []string
		for _, b := range f.Agents {
			if b != a {
				others = append(others, b.Name)
			}
		}
		if a.Dir == "" {
			prompt, err := a.SystemPrompt.Expand(r.vars)
			if err != nil {
				return fmt.Errorf("agent %s: system prompt: %w", a.Name, err)
			}
			prompt += participation(a.Name, f.Name, r.o.Instance, others, f.Context.Enabled)
			if a.Backend == BackendCommand {
				if err := writeFile(filepath.Join(dir, promptFile), prompt); err != nil {
					return err
				}
			} else if err := a.Generate(dir, prompt); err != nil {
				return err
			}
		}
		b := Backend(delta)
		if a.Backend == BackendCommand {
			if err := command.WriteMCPConfig(a); err != nil {
				return err
			}
			b = command
		}
		if fake, ok := r.o.Backends[a.Name]; ok {
			b = fake
		}
		r.backends[a.Name] = b
		c := &Controller{Agent: a, Provider: r.p, Backend: b, Dir: dir, Poll: r.o.Poll, Retry: r.o.Retry,
			PostAnswer: !f.Context.Enabled, Events: r.printf, Changed: r.changed}
		c.Prompt = r.prompter(a)
		var err error
		if c.Log, err = r.agentLog(a); err != nil {
			return err
		}
		prev, _ := ReadAgentStatus(r.dir, a.Name)
		runsSoFar := 0
		if prev != nil {
			runsSoFar = prev.Runs
		}
		runID := ""
		if a.Backend == BackendDelta {
			runID = RunID(a.Name, r.o.Instance)
		}
		c.Init(runID, runsSoFar)
		r.ctrls = append(r.ctrls, c)
	}
	return nil
}

// agentLog is where an agent's live output goes: agents/<name>/run.log,
// given to the agent's process as a file, so that a run outliving the
// runner keeps writing to it. With -v the runner follows the file on
// stderr, each line prefixed with the agent's name.
func (r *runner) agentLog(a *AgentDef) (io.Writer, error) {
	path := filepath.Join(r.agentDir(a), "run.log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	r.closers = append(r.closers, f)
	if r.o.Verbose {
		r.follow = append(r.follow, followed{path: path, prefix: "[" + a.Name + "] "})
	}
	return f, nil
}

// followed is a log -v shows.
type followed struct{ path, prefix string }

// followLog copies what is appended to path from now on to w, until ctx
// ends (and then what is left).
func followLog(ctx context.Context, path string, w io.Writer) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	f.Seek(0, io.SeekEnd)
	buf := make([]byte, 32<<10)
	for {
		n, _ := f.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			continue
		}
		select {
		case <-ctx.Done():
			io.Copy(w, f) // what was written last
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// prompter builds the digests of a's deliveries.
func (r *runner) prompter(a *AgentDef) func(context.Context, []board.InboxMessage, int) string {
	return func(ctx context.Context, inbox []board.InboxMessage, attempt int) string {
		in := digestInput{Agent: a.Name, Workflow: r.f.Name, Instance: r.o.Instance, Inbox: inbox, Attempt: attempt}
		if recent, err := r.p.Read(ctx, board.ReadOptions{Limit: digestRecent}); err == nil {
			in.Recent = recent
		}
		if r.f.Context.Enabled {
			in.DocumentOK = true
			in.DocumentName = r.p.Config().Document
			in.Document, _ = r.p.ReadDocument(ctx, "")
			in.Owner, _ = r.p.DocumentOwner(ctx)
			if docs, err := r.p.ListDocuments(ctx); err == nil {
				for _, d := range docs {
					if d != in.DocumentName {
						in.OtherDocuments = append(in.OtherDocuments, d)
					}
				}
			}
		}
		return digest(in)
	}
}

// kickoff posts the kickoff once. A runner killed between posting it and
// recording that finds it on the channel instead of posting it twice.
func (r *runner) kickoff(ctx context.Context) error {
	st := r.state
	text, err := r.f.Kickoff.Expand(r.vars)
	if err != nil {
		return fmt.Errorf("kickoff: %w", err)
	}
	if strings.TrimSpace(text) != "" {
		entries, err := r.p.Read(ctx, board.ReadOptions{})
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.From == board.System && strings.TrimSpace(e.Message) == strings.TrimSpace(text) {
				st.KickoffSeq = e.Seq
			}
		}
		if st.KickoffSeq == 0 {
			e, err := r.p.Append(ctx, board.System, text)
			if err != nil {
				return fmt.Errorf("post the kickoff: %w", err)
			}
			st.KickoffSeq = e.Seq
			if len(e.Mentions) == 0 {
				r.printf("warning: the kickoff mentions no agent; nothing starts until a message does (delta workflow send MESSAGE --to AGENT@%s)", r.o.Instance)
			}
		}
	}
	if strings.TrimSpace(text) == "" {
		r.printf("no kickoff: the agents start when a message mentions them (delta workflow send MESSAGE --to AGENT@%s)", r.o.Instance)
	}
	st.KickoffDone = true
	return WriteState(r.dir, st)
}

// drive runs the controllers until the workflow is done (run mode) or
// ctx ends, and returns the summary status.
func (r *runner) drive(ctx context.Context) string {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range r.ctrls {
		wg.Add(1)
		go func() { defer wg.Done(); c.Run(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); r.watch(ctx) }()
	for _, fl := range r.follow {
		wg.Add(1)
		go func() { defer wg.Done(); followLog(ctx, fl.path, &prefixWriter{w: r.out, prefix: fl.prefix}) }()
	}
	r.pid.Ready = true
	if err := writeJSON(filepath.Join(r.dir, RunnerDir, PIDFile), r.pid); err != nil {
		r.printf("warning: %v", err)
	}
	status := r.supervise(ctx)
	cancel()
	wg.Wait()
	return status
}

// watch wakes the controllers of the agents each new channel entry
// mentions, and prints the entries.
func (r *runner) watch(ctx context.Context) {
	seq, err := r.p.LastSeq(ctx)
	if err != nil {
		return
	}
	// Entries after the kickoff that arrived while no runner watched
	// are in the inboxes; the controllers find them when they start.
	byName := map[string]*Controller{}
	for _, c := range r.ctrls {
		byName[c.Agent.Name] = c
	}
	for {
		last, err := r.p.Wait(ctx, seq)
		if err != nil {
			return
		}
		entries, err := r.p.Read(ctx, board.ReadOptions{AfterSeq: seq})
		if err != nil {
			return
		}
		for _, e := range entries {
			r.printf("#%d @%s: %s", e.Seq, e.From, cut(oneLine(e.Message), 160))
			for _, m := range e.Mentions {
				if c := byName[m]; c != nil {
					c.Wake()
				}
			}
			seq = max(seq, e.Seq)
		}
		seq = max(seq, last)
	}
}

// supervise applies stop requests and, in run mode, ends the workflow
// once it is idle: every controller idle (or failed, or stopped), no
// unread message but those given up on, no active proposal, and it stays
// so for the debounce period with nothing new on the channel.
func (r *runner) supervise(ctx context.Context) string {
	debounce := r.o.Debounce
	if debounce <= 0 {
		debounce = 2 * time.Second
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var quietSince time.Time
	var quietSeq int64
	for {
		select {
		case <-ctx.Done():
			if r.o.Mode == ModeStart {
				return SummaryStopped
			}
			return SummaryInterrupted
		case <-tick.C:
		case <-r.changed:
		}
		r.applyStops()
		// Proposal deadlines fire when someone looks: in every mode, and
		// while the agents are busy, the runner does, once a tick.
		if _, err := r.p.Settle(ctx); err != nil && ctx.Err() == nil {
			r.printf("warning: settle proposals: %v", err)
		}
		if !r.state.KickoffDone {
			if pending, err := r.electing(ctx); err != nil {
				r.printf("warning: %v", err)
			} else if !pending {
				if err := r.kickoff(ctx); err != nil {
					r.printf("warning: %v", err)
				}
			}
			continue
		}
		if r.o.Mode != ModeRun {
			continue
		}
		quiet, failed := r.quiet(ctx)
		if !quiet {
			quietSince = time.Time{}
			continue
		}
		seq, err := r.p.LastSeq(ctx)
		if err != nil {
			continue
		}
		if quietSince.IsZero() || seq != quietSeq {
			quietSince, quietSeq = time.Now(), seq
			continue
		}
		if time.Since(quietSince) >= debounce {
			if failed {
				return SummaryFailed
			}
			return SummaryCompleted
		}
	}
}

// applyStops stops the controllers whose stop marker appeared.
func (r *runner) applyStops() {
	for _, c := range r.ctrls {
		if c.isStopped() {
			continue
		}
		if _, err := os.Stat(filepath.Join(c.Dir, stopFile)); err == nil {
			r.printf("%s: stopped", c.Agent.Name)
			c.Stop()
		}
	}
}

// quiet reports whether the workflow is idle now, and whether an agent
// failed.
func (r *runner) quiet(ctx context.Context) (quiet, failed bool) {
	for _, c := range r.ctrls {
		st := c.Status().Status
		switch st {
		case StatusRunning, StatusWaiting:
			return false, false
		case StatusStopped:
			continue
		}
		inbox, err := r.p.Inbox(ctx, c.Agent.Name)
		if err != nil {
			return false, false
		}
		if len(inbox) > 0 {
			if inbox[len(inbox)-1].Entry.Seq > c.GaveUpAt() {
				return false, false
			}
			failed = true
		}
		if st == StatusFailed {
			failed = true
		}
	}
	active, err := r.p.ActiveProposals(ctx)
	if err != nil || active {
		return false, false
	}
	return true, failed
}

// summary collects the outcome.
func (r *runner) summary(ctx context.Context, status string) (*Summary, error) {
	s := &Summary{Workflow: r.f.Name, Instance: r.o.Instance, Dir: r.dir, Status: status, Documents: map[string]string{}}
	for _, c := range r.ctrls {
		st := c.Status()
		a := AgentSummary{Name: c.Agent.Name, Backend: c.Agent.Backend, RunID: st.RunID, Status: st.Status, Runs: st.Runs, Error: st.Error}
		u := r.backends[c.Agent.Name].Usage(c.Agent)
		a.InputTokens, a.OutputTokens = u.InputTokens, u.OutputTokens
		if inbox, err := r.p.Inbox(ctx, c.Agent.Name); err == nil {
			a.Unread = len(inbox)
		}
		s.Agents = append(s.Agents, a)
	}
	var err error
	if s.Entries, err = r.p.LastSeq(ctx); err != nil {
		return nil, err
	}
	if s.Channel, err = r.p.Read(ctx, board.ReadOptions{Limit: summaryTail}); err != nil {
		return nil, err
	}
	if r.f.Context.Enabled {
		s.Document = r.p.Config().Document
		docs, err := r.p.ListDocuments(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if s.Documents[d], err = r.p.ReadDocument(ctx, d); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// lockedWriter serialises writes of several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixWriter prefixes every line with prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mu     sync.Mutex
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			break
		}
		if _, err := p.w.Write([]byte(p.prefix + string(p.buf[:i+1]))); err != nil {
			return len(b), err
		}
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

// writeFile replaces path with s atomically.
func writeFile(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(s), 0o644)
}
