// Package subagent gives a run's model four tools to delegate work to
// other agents (agent.yaml subagents:): spawn_agent, send_input, wait and
// close_agent.
//
// A subagent is not a goroutine inside the parent: it is a real Delta run
// in the same workspace (.delta/PARENT.sub1, PARENT.sub2 …), started as
// its own delta-run process in the background. So every run verb works on
// it (delta log, send, stop, continue), it survives the parent's crash, and
// nothing about it lives only in the parent's memory: the parent finds its
// children from their metadata.json (parent_run_id), which is how a
// continued parent picks up children still running or long finished.
//
// A child gets the engine's own environment, so its provider keys reach
// its engine without ever passing through the parent's tools, which see
// the environment without secrets. Its place in the tree (depth, the
// inherited max_depth, the directory it is scoped to) is in its metadata,
// so the depth limit holds in the child too.
package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
)

// The tools' names.
const (
	Spawn = "spawn_agent"
	Send  = "send_input"
	Wait  = "wait"
	Close = "close_agent"
)

// Names are the tools a Toolbox offers.
var Names = []string{Spawn, Send, Wait, Close}

// StopTimeout is how long a child has to stop after SIGINT (close_agent,
// or its parent interrupted) before it is killed.
var StopTimeout = 10 * time.Second

// startTimeout bounds how long spawn_agent and send_input wait for the
// child's delta-run to take the run over.
const startTimeout = 60 * time.Second

// Options configure a run's subagent tools.
type Options struct {
	// Config is the run's agent's subagents block.
	Config agent.Subagents
	// Run is the run's metadata: id, workspace, place in the tree.
	Run *runs.Metadata
	// RunDir is the run's directory.
	RunDir string
	// Binary is the delta-run executable a child runs (os.Executable).
	Binary string
	// Env is the environment of a child's delta-run: the engine's own
	// with the provider settings it read (.env files), not the filtered
	// one tools get.
	Env []string
	// LLM is the parent's --llm override, given to the children too
	// (scripted: and replay: overrides are not: they replay the parent's
	// own conversation, and a child has its own).
	LLM string
}

// Depth is the run's depth in its tree (0 for a top-level run) and the
// limit below which it may spawn: its agent's subagents.max_depth, lowered
// to the limit its parent passed down.
func Depth(m *runs.Metadata, cfg agent.Subagents) (depth, limit int) {
	limit = cfg.MaxDepth
	if limit <= 0 {
		limit = agent.DefaultSubagentDepth
	}
	if s := m.Subagent; s != nil {
		depth = s.Depth
		if s.MaxDepth > 0 && s.MaxDepth < limit {
			limit = s.MaxDepth
		}
	}
	return depth, limit
}

// Toolbox is the engine.Toolbox of the subagent tools of one run.
type Toolbox struct {
	o            Options
	depth, limit int

	mu sync.Mutex
	// reserved are child ids chosen whose run directory may not exist yet.
	reserved map[string]bool
	// procs are the delta-run processes this toolbox started, by child id
	// (the latest for each): closed done once reaped.
	procs map[string]*proc

	// stopping is the stop of every child when the run's context ends.
	release  func() bool
	stopping sync.WaitGroup
}

type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

var _ engine.Toolbox = (*Toolbox)(nil)

// New returns the subagent tools of the run described by o. When ctx ends
// (the run is interrupted: Ctrl-C, delta stop) the run's running children
// are stopped too; Close waits for that.
func New(ctx context.Context, o Options) *Toolbox {
	t := &Toolbox{o: o, reserved: map[string]bool{}, procs: map[string]*proc{}}
	t.depth, t.limit = Depth(o.Run, o.Config)
	t.stopping.Add(1)
	t.release = context.AfterFunc(ctx, func() {
		defer t.stopping.Done()
		t.stopChildren()
	})
	return t
}

// Close waits until the children are stopped, when the run was
// interrupted; else children keep running (a later wait, or a continued
// parent, finds them).
func (t *Toolbox) Close() error {
	if t.release() {
		t.stopping.Done() // never ran
	}
	t.stopping.Wait()
	return nil
}

// Has reports whether name is one of the subagent tools.
func (t *Toolbox) Has(name string) bool { return slices.Contains(Names, name) }

// Specs describes the four tools to the model.
func (t *Toolbox) Specs() []llm.ToolSpec {
	var names []string
	for _, a := range t.o.Config.Agents {
		names = append(names, a.Name)
	}
	agentProp := map[string]any{"type": "string", "description": "The agent directory to run (default: " + strconv.Quote(first(names)) + ")."}
	if len(names) > 0 {
		agentProp["enum"] = names
	}
	id := map[string]any{"type": "string", "description": "The agent_id spawn_agent returned."}
	return []llm.ToolSpec{
		{Name: Spawn, Description: "Spawn a subagent to handle a scoped task autonomously, in the background: its own run with its own conversation, sharing this workspace's files. Returns its agent_id at once; call wait to get its result. Spawn several before waiting to have them work in parallel.",
			Parameters: schema(map[string]any{
				"task":        map[string]any{"type": "string", "description": "What the subagent should do, with everything it needs to know: it does not see this conversation."},
				"agent":       agentProp,
				"working_dir": map[string]any{"type": "string", "description": "A subdirectory of the workspace (relative) to scope the subagent to: its tools run there."},
				"model":       map[string]any{"type": "string", "description": "Model override (default: the agent's model)."},
				"max_turns":   map[string]any{"type": "integer", "minimum": 1, "description": "Limit of the subagent's model turns (default: its agent's max_iterations)."},
			}, "task")},
		{Name: Send, Description: "Send a message to a subagent: a running one sees it on its next model call; a finished, stopped or waiting one continues with it as its next message (or as the answer to its question).",
			Parameters: schema(map[string]any{"agent_id": id, "message": map[string]any{"type": "string"}}, "agent_id", "message")},
		{Name: Wait, Description: "Wait for a subagent to finish (or to stop for a question) and return its result.",
			Parameters: schema(map[string]any{"agent_id": id,
				"timeout_ms": map[string]any{"type": "integer", "minimum": 0, "description": "Return after this long even if the subagent still runs (default: wait until it ends)."}}, "agent_id")},
		{Name: Close, Description: "Stop a running subagent (it can be continued later with send_input). Returns its final status.",
			Parameters: schema(map[string]any{"agent_id": id}, "agent_id")},
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return "."
	}
	return s[0]
}

func schema(props map[string]any, required ...string) json.RawMessage {
	data, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	return data
}

// Call runs one of the tools. Mistakes of the model (a bad argument, an
// unknown agent_id, the depth limit) are error observations; the error is
// only for the run's own files.
func (t *Toolbox) Call(ctx context.Context, run engine.RunInfo, callID, name string, args json.RawMessage) (engine.ToolOutcome, error) {
	start := time.Now()
	var r result
	var err error
	switch name {
	case Spawn:
		r, err = t.spawn(ctx, run, args)
	case Send:
		r, err = t.send(ctx, run, args)
	case Wait:
		r, err = t.wait(ctx, run, args)
	case Close:
		r, err = t.close(run, args)
	default:
		return engine.ToolOutcome{}, fmt.Errorf("tool %q is not a subagent tool", name)
	}
	if err != nil {
		r = result{text: "error: " + err.Error(), isError: true}
	}
	out := engine.ToolOutcome{Observation: r.text, IsError: r.isError, DurationMS: time.Since(start).Milliseconds()}
	if r.isError {
		out.ExitCode = 1
	}
	if run.RunDir == "" {
		return out, nil
	}
	base := engine.ToolRecordBase(start, name, callID)
	if r.full != "" {
		// The whole result, which the observation shows cut.
		rel := filepath.Join(engine.ToolExecutionsDir, base, "result.txt")
		if err := writeIn(run.RunDir, rel, r.full); err != nil {
			return out, err
		}
		out.Observation = strings.Replace(out.Observation, fullMarker, fromToolDir(run, filepath.Join(run.RunDir, rel)), 1)
	}
	rec := record{CallID: callID, ToolName: name, Args: args, StartedAt: start.UTC(), DurationMS: out.DurationMS,
		AgentID: r.agentID, Status: r.status, ExitCode: out.ExitCode, IsError: out.IsError, Observation: out.Observation}
	rel, err := engine.WriteToolRecord(run.RunDir, base, rec)
	if err != nil {
		return out, err
	}
	out.RecordPath = rel
	return out, nil
}

// result is what a tool call gives the model.
type result struct {
	text    string
	isError bool
	agentID string
	status  string
	// full is the whole result when text shows it cut (fullMarker stands
	// for the file Call writes it to).
	full string
}

// fullMarker is replaced by the path of the file holding a cut result.
const fullMarker = "\x00FULL\x00"

// record is the io/tool_executions record of a subagent tool call.
type record struct {
	CallID      string          `json:"call_id"`
	ToolName    string          `json:"tool_name"`
	Args        json.RawMessage `json:"args"`
	StartedAt   time.Time       `json:"started_at"`
	DurationMS  int64           `json:"duration_ms"`
	AgentID     string          `json:"agent_id,omitempty"`
	Status      string          `json:"status,omitempty"`
	ExitCode    int             `json:"exit_code"`
	IsError     bool            `json:"is_error,omitempty"`
	Observation string          `json:"observation"`
}

func writeIn(runDir, rel, text string) error {
	path := filepath.Join(runDir, rel)
	if err := runs.MkdirIn(runDir, filepath.Dir(path)); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// fromToolDir is path as the run's tools reach it: relative to the
// directory they work in.
func fromToolDir(run engine.RunInfo, path string) string {
	if r, err := filepath.Rel(run.WorkDir, path); err == nil {
		return r
	}
	return path
}

// decode reads a call's arguments strictly.
func decode(args json.RawMessage, v any) error {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
}

type spawnArgs struct {
	Task       string `json:"task"`
	Agent      string `json:"agent"`
	WorkingDir string `json:"working_dir"`
	Model      string `json:"model"`
	MaxTurns   *int   `json:"max_turns"`
}

// ErrDepth is the refusal of spawn_agent beyond subagents.max_depth.
var ErrDepth = errors.New("subagent depth limit reached")

// spawn starts a child run and returns once its delta-run holds it.
func (t *Toolbox) spawn(ctx context.Context, run engine.RunInfo, raw json.RawMessage) (result, error) {
	var a spawnArgs
	if err := decode(raw, &a); err != nil {
		return result{}, err
	}
	if t.depth >= t.limit {
		what := "a top-level run"
		if t.depth > 0 {
			what = fmt.Sprintf("a subagent at depth %d", t.depth)
		}
		return result{}, fmt.Errorf("%w: this run is %s and subagents.max_depth is %d, so it may not spawn agents; do the task yourself (or raise max_depth in the top agent's agent.yaml)",
			ErrDepth, what, t.limit)
	}
	if strings.TrimSpace(a.Task) == "" {
		return result{}, errors.New("task is empty: say what the subagent should do")
	}
	if a.MaxTurns != nil && *a.MaxTurns < 1 {
		return result{}, fmt.Errorf("max_turns must be at least 1, not %d", *a.MaxTurns)
	}
	dir, ok := t.o.Config.Subagent(a.Agent)
	if !ok {
		var names []string
		for _, x := range t.o.Config.Agents {
			names = append(names, strconv.Quote(x.Name))
		}
		return result{}, fmt.Errorf("agent %q is not one this run may spawn (subagents.agents: %s)", a.Agent, strings.Join(names, ", "))
	}
	sub, err := t.scope(run, a.WorkingDir)
	if err != nil {
		return result{}, err
	}
	child, err := agent.Load(dir.Path)
	if err != nil {
		return result{}, fmt.Errorf("agent %s does not load: %v", dir.Name, err)
	}
	llmFlag, err := t.llmFor(child, a.Model)
	if err != nil {
		return result{}, err
	}
	ws := t.o.Run.WorkDir
	t.mu.Lock()
	id, err := runs.ChildID(ws, t.o.Run.RunID, func(id string) bool { return t.reserved[id] })
	if err == nil {
		t.reserved[id] = true
	}
	t.mu.Unlock()
	if err != nil {
		return result{}, err
	}
	defer func() { t.mu.Lock(); delete(t.reserved, id); t.mu.Unlock() }()

	argv := []string{"run", "--agent", dir.Path, "-w", ws, "--run-id", id, "-m", "-", "-y", "--format", "json",
		"--parent-run-id", t.o.Run.RunID, "--subagent-depth", strconv.Itoa(t.depth + 1), "--subagent-max-depth", strconv.Itoa(t.limit)}
	if sub != "" {
		argv = append(argv, "--subagent-dir", sub)
	}
	if llmFlag != "" {
		argv = append(argv, "--llm", llmFlag)
	}
	if a.MaxTurns != nil {
		argv = append(argv, "--max-iterations", strconv.Itoa(*a.MaxTurns))
	}
	m, err := t.start(ctx, id, argv, a.Task)
	if err != nil {
		return result{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "agent_id: %s\nstatus: %s\nagent: %s (%s)\n", id, m.Status, dir.Name, child.Name)
	if sub != "" {
		fmt.Fprintf(&b, "working_dir: %s\n", sub)
	}
	fmt.Fprintf(&b, "journal: %s\nThe subagent works in the background: call wait with agent_id %q for its result.", fromToolDir(run, filepath.Join(m.Dir(), runs.JournalFile)), id)
	return result{text: b.String(), agentID: id, status: string(m.Status)}, nil
}

// scope checks working_dir (relative to the directory the run's tools
// work in) and returns it relative to the workspace, creating it when
// missing; "" for the workspace itself.
func (t *Toolbox) scope(run engine.RunInfo, dir string) (string, error) {
	if dir == "" {
		return t.rel(run.WorkDir)
	}
	if filepath.IsAbs(dir) {
		return "", fmt.Errorf("working_dir %q must be relative: a subdirectory of the workspace", dir)
	}
	rel, err := t.rel(filepath.Join(run.WorkDir, dir))
	if err != nil {
		return "", err
	}
	abs := filepath.Join(t.o.Run.WorkDir, rel)
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("working_dir: %v", err)
	}
	// A symlink must not lead the child out of the workspace.
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		if _, err := t.rel(resolved); err != nil {
			return "", err
		}
	}
	return rel, nil
}

// rel is path relative to the workspace, refused when outside it.
func (t *Toolbox) rel(path string) (string, error) {
	ws := t.o.Run.WorkDir
	r, err := filepath.Rel(ws, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("working_dir must stay inside the workspace %s", ws)
	}
	if r == "." {
		return "", nil
	}
	if r == runs.ControlDir || strings.HasPrefix(r, runs.ControlDir+string(filepath.Separator)) {
		return "", fmt.Errorf("working_dir must not be inside %s", runs.ControlDir)
	}
	return r, nil
}

// llmFor is the --llm a child gets: the parent's override (unless it
// replays the parent's own conversation), with model replacing the model.
func (t *Toolbox) llmFor(child *agent.Agent, model string) (string, error) {
	name, _, _ := strings.Cut(t.o.LLM, ":")
	inherit := t.o.LLM != "" && name != "scripted" && name != "replay"
	if model == "" {
		if inherit {
			return t.o.LLM, nil
		}
		return "", nil
	}
	provider := child.LLM.Provider
	if inherit {
		provider = name
	}
	if provider == "scripted" || provider == "replay" {
		return "", fmt.Errorf("model %q: agent %s replays a script (llm.provider scripted), which has no model to choose; leave model out", model, child.Name)
	}
	if provider == "" {
		provider = "openai"
	}
	return provider + ":" + model, nil
}

// start runs the child's delta-run (argv after the binary) in the
// background, in a session of its own, with stdin as its message, and
// waits until it holds run id: its metadata names its process. A process
// that ends before that failed to start; its output says why.
func (t *Toolbox) start(ctx context.Context, id string, argv []string, stdin string) (*runs.Metadata, error) {
	logPath := runs.SubagentLog(t.o.RunDir, id)
	if err := runs.MkdirIn(t.o.RunDir, filepath.Dir(logPath)); err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("subagent log: %w", err)
	}
	fi, _ := logFile.Stat()
	var offset int64
	if fi != nil {
		offset = fi.Size()
	}
	cmd := exec.Command(t.o.Binary, argv...)
	cmd.Dir = t.o.Run.WorkDir
	cmd.Env = t.o.Env
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own session: a terminal's Ctrl-C reaches the parent, which stops
	// its children itself; and a parent killed with SIGKILL leaves them
	// running, to be found again when it is continued.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	logFile.Close()
	if err != nil {
		return nil, fmt.Errorf("start subagent: %w", err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	t.mu.Lock()
	t.procs[id] = p
	t.mu.Unlock()

	runDir := filepath.Join(t.o.Run.WorkDir, runs.ControlDir, id)
	pid := cmd.Process.Pid
	deadline := time.Now().Add(startTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		m, err := runs.ReadMetadata(runDir)
		if err == nil && m.PID == pid {
			return m, nil
		}
		select {
		case <-p.done:
			if m, err := runs.ReadMetadata(runDir); err == nil && m.PID == pid {
				return m, nil // done already
			}
			return nil, fmt.Errorf("the subagent's delta-run exited (%s) before its run started: %s", cmd.ProcessState, logTail(logPath, offset))
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGINT)
			return nil, errors.New("interrupted while the subagent was starting")
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the subagent's delta-run (pid %d) did not take run %s within %s; see %s", pid, id, startTimeout, logPath)
		}
	}
}

// logTail is the end of what a child printed since offset.
func logTail(path string, offset int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) < offset {
		return "(no output)"
	}
	s := strings.TrimSpace(string(data[offset:]))
	if s == "" {
		return "(no output)"
	}
	return observe.TruncateTail(s, 2000)
}

// child finds agent id among the run's children.
func (t *Toolbox) child(id string) (*runs.Metadata, string, error) {
	if id == "" {
		return nil, "", errors.New("agent_id is empty: give the agent_id spawn_agent returned")
	}
	runDir, err := runs.Find(t.o.Run.WorkDir, id)
	var m *runs.Metadata
	if err == nil {
		m, err = runs.ReadMetadata(runDir)
	}
	if err != nil || m.ParentRunID != t.o.Run.RunID {
		kids, _ := runs.Children(t.o.Run.WorkDir, t.o.Run.RunID)
		var ids []string
		for _, k := range kids {
			ids = append(ids, k.RunID)
		}
		if len(ids) == 0 {
			return nil, "", fmt.Errorf("no subagent %q: this run has spawned none", id)
		}
		return nil, "", fmt.Errorf("no subagent %q of this run (its subagents: %s)", id, strings.Join(ids, ", "))
	}
	return m, runDir, nil
}

type idArgs struct {
	AgentID   string `json:"agent_id"`
	Message   string `json:"message"`
	TimeoutMS *int64 `json:"timeout_ms"`
}

// waitPoll is how often wait checks for ctx and its timeout while the
// child's process runs (the process's end itself wakes it at once).
const waitPoll = 200 * time.Millisecond

// wait blocks until the child stops running, its timeout passes, or the
// run is interrupted.
func (t *Toolbox) wait(ctx context.Context, run engine.RunInfo, raw json.RawMessage) (result, error) {
	var a idArgs
	if err := decode(raw, &a); err != nil {
		return result{}, err
	}
	if a.Message != "" {
		return result{}, errors.New("bad arguments: wait takes agent_id and timeout_ms (send_input sends a message)")
	}
	if a.TimeoutMS != nil && *a.TimeoutMS < 0 {
		return result{}, errors.New("timeout_ms must not be negative")
	}
	m, runDir, err := t.child(a.AgentID)
	if err != nil {
		return result{}, err
	}
	var deadline time.Time
	if a.TimeoutMS != nil {
		deadline = time.Now().Add(time.Duration(*a.TimeoutMS) * time.Millisecond)
	}
	for {
		if m.Status != runs.Running {
			return t.report(run, m, runDir, "")
		}
		p, err := runs.OpenProcess(m)
		if errors.Is(err, runs.ErrNotRunning) {
			// Ended between the two reads, or gone without a word.
			if m, err = runs.ReadMetadata(runDir); err != nil {
				return result{}, err
			}
			if m.Status == runs.Running {
				return t.report(run, m, runDir, "its process is gone (killed?) without recording an outcome: send_input continues it")
			}
			continue
		}
		if err != nil {
			return result{}, err
		}
		for ended := false; !ended; {
			step := waitPoll
			if !deadline.IsZero() {
				left := time.Until(deadline)
				if left <= 0 {
					p.Close()
					return result{text: fmt.Sprintf("agent_id: %s\nstatus: RUNNING\nStill running after %d ms; wait again for its result, or close_agent to stop it.", m.RunID, *a.TimeoutMS),
						agentID: m.RunID, status: string(runs.Running)}, nil
				}
				step = min(step, left)
			}
			if ended, err = p.Wait(step); err != nil {
				p.Close()
				return result{}, err
			}
			if !ended && ctx.Err() != nil {
				p.Close()
				return result{}, fmt.Errorf("interrupted while waiting for subagent %s", m.RunID)
			}
		}
		p.Close()
		if m, err = runs.ReadMetadata(runDir); err != nil {
			return result{}, err
		}
	}
}

// report is the result of a child that stopped running: its status and
// result, error or question, the result cut to observe.SubagentLimits.
func (t *Toolbox) report(run engine.RunInfo, m *runs.Metadata, runDir, note string) (result, error) {
	status := string(m.Status)
	var head strings.Builder
	fmt.Fprintf(&head, "agent_id: %s\nstatus: %s\n", m.RunID, status)
	if note != "" {
		fmt.Fprintf(&head, "note: %s\n", note)
	}
	events, _ := journal.ReadFile(filepath.Join(runDir, runs.JournalFile))
	fmt.Fprintf(&head, "turns_used: %d\n", engine.CountThoughts(events))
	fmt.Fprintf(&head, "journal: %s\n", fromToolDir(run, filepath.Join(runDir, runs.JournalFile)))
	var body string
	switch m.Status {
	case runs.Completed:
		head.WriteString("success: true\n")
		body = finalText(events)
	case runs.Failed:
		head.WriteString("success: false\n")
		if m.Error != nil {
			body = "error: " + *m.Error
		}
	case runs.WaitingForInput:
		head.WriteString("success: false\n")
		if q, err := runs.ReadRequest(runDir); err == nil {
			if q.InputType == runs.InputApproval {
				body = "It waits for an approval: " + q.Prompt + "\nAnswer with send_input: \"approved\", or \"denied: REASON\"."
			} else {
				body = "It asks: " + q.Prompt + "\nAnswer with send_input."
			}
		}
	default:
		head.WriteString("success: false\n")
		body = "It was stopped before it finished; send_input continues it."
	}
	r := result{agentID: m.RunID, status: status}
	whole := observe.Whole{Bytes: int64(len(body)), Lines: int64(strings.Count(body, "\n") + 1)}
	if !observe.Fits(body, observe.SubagentLimits, whole) {
		r.full = body
		body = observe.Cut(body, observe.SubagentLimits, whole, fullMarker)
	}
	if body != "" {
		head.WriteString("\n" + body)
	}
	r.text = strings.TrimRight(head.String(), "\n")
	return r, nil
}

// finalText is the model's final answer: the last THOUGHT without tool
// calls.
func finalText(events []journal.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if ev := events[i]; ev.Type == journal.Thought && len(ev.ToolCalls) == 0 {
			return ev.Content
		}
	}
	return ""
}

// send gives a child a message: into the inbox of a running one, else by
// continuing it.
func (t *Toolbox) send(ctx context.Context, run engine.RunInfo, raw json.RawMessage) (result, error) {
	var a idArgs
	if err := decode(raw, &a); err != nil {
		return result{}, err
	}
	if a.TimeoutMS != nil {
		return result{}, errors.New("bad arguments: send_input takes agent_id and message")
	}
	if strings.TrimSpace(a.Message) == "" {
		return result{}, errors.New("message is empty")
	}
	m, runDir, err := t.child(a.AgentID)
	if err != nil {
		return result{}, err
	}
	if p, err := runs.OpenProcess(m); err == nil {
		p.Close()
		msg, err := runs.Send(runDir, a.Message, false)
		if err != nil {
			return result{}, err
		}
		return result{text: fmt.Sprintf("agent_id: %s\nstatus: RUNNING\nMessage %s queued: the subagent sees it on its next model call.", m.RunID, msg.ID),
			agentID: m.RunID, status: string(runs.Running)}, nil
	} else if !errors.Is(err, runs.ErrNotRunning) {
		return result{}, err
	}
	// Its last process may still be on its way out (holding the run).
	t.reaped(m)
	argv := []string{"continue", "--run-id", m.RunID, "-w", m.WorkDir, "--format", "json"}
	stdin := ""
	if m.Status == runs.WaitingForInput {
		// The answer goes where continue reads it, for a question and
		// an approval ("approved", "denied: REASON") alike.
		resp := filepath.Join(runDir, runs.InteractionDir, runs.ResponseFile)
		if err := os.WriteFile(resp, []byte(a.Message+"\n"), 0o600); err != nil {
			return result{}, fmt.Errorf("answer subagent: %w", err)
		}
	} else {
		argv = append(argv, "-m", "-")
		stdin = a.Message
	}
	nm, err := t.start(ctx, m.RunID, argv, stdin)
	if err != nil {
		return result{}, err
	}
	return result{text: fmt.Sprintf("agent_id: %s\nstatus: %s\nThe subagent (it was %s) continues with your message: call wait for its result.", m.RunID, nm.Status, m.Status),
		agentID: m.RunID, status: string(nm.Status)}, nil
}

// reaped waits (briefly) until the child's last process is gone: a run
// records its outcome just before its process exits.
func (t *Toolbox) reaped(m *runs.Metadata) {
	deadline := time.Now().Add(StopTimeout)
	for time.Now().Before(deadline) {
		if alive, err := runs.Alive(m); err != nil || !alive {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// close stops a running child.
func (t *Toolbox) close(run engine.RunInfo, raw json.RawMessage) (result, error) {
	var a idArgs
	if err := decode(raw, &a); err != nil {
		return result{}, err
	}
	if a.Message != "" || a.TimeoutMS != nil {
		return result{}, errors.New("bad arguments: close_agent takes agent_id")
	}
	m, runDir, err := t.child(a.AgentID)
	if err != nil {
		return result{}, err
	}
	if _, err := runs.Interrupt(m, runDir, StopTimeout, true); err != nil && !errors.Is(err, runs.ErrNotRunning) {
		return result{}, err
	} else if err != nil {
		return result{text: fmt.Sprintf("agent_id: %s\nstatus: %s\nIt was not running.", m.RunID, m.Status), agentID: m.RunID, status: string(m.Status)}, nil
	}
	if m, err = runs.ReadMetadata(runDir); err != nil {
		return result{}, err
	}
	return result{text: fmt.Sprintf("agent_id: %s\nstatus: %s\nStopped; send_input continues it.", m.RunID, m.Status), agentID: m.RunID, status: string(m.Status)}, nil
}

// stopChildren stops, at once, every running child of the run and every
// delta-run this toolbox started that has not ended yet, and waits for
// them (killing what does not stop within StopTimeout).
func (t *Toolbox) stopChildren() {
	var wg sync.WaitGroup
	handled := map[string]bool{}
	kids, _ := runs.Children(t.o.Run.WorkDir, t.o.Run.RunID)
	for i := range kids {
		k := &kids[i]
		if k.Status != runs.Running {
			continue
		}
		handled[k.RunID] = true
		wg.Go(func() { runs.Interrupt(k, k.Dir(), StopTimeout, true) })
	}
	t.mu.Lock()
	for id, p := range t.procs {
		if handled[id] {
			continue
		}
		wg.Go(func() {
			select {
			case <-p.done:
				return
			default:
			}
			p.cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-p.done:
			case <-time.After(StopTimeout):
				p.cmd.Process.Kill()
				<-p.done
			}
		})
	}
	t.mu.Unlock()
	wg.Wait()
}
