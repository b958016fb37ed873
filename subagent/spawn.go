package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
)

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
	// A model naming its provider (anthropic/claude-haiku-4-5, haiku)
	// is taken as --llm takes it.
	if p, m, ok := llm.SplitModel(model); ok {
		return p + ":" + m, nil
	}
	if provider == "" {
		provider = "openai"
	}
	return provider + ":" + model, nil
}

// start runs the child's delta-run (argv after the binary) in the
// background with stdin as its message, and waits until it holds run id.
// A process that ends before that failed to start; its output says why.
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
	// A child runs apart from the parent's terminal and outlives a parent
	// killed with SIGKILL, to be found again when the parent is continued;
	// its output goes to a file for that reason.
	child, err := runs.StartChild(runs.ChildCommand{Binary: t.o.Binary, Args: argv, Dir: t.o.Run.WorkDir, Env: t.o.Env,
		Stdin: strings.NewReader(stdin), Stdout: logFile, Stderr: logFile})
	logFile.Close()
	if err != nil {
		return nil, fmt.Errorf("start subagent: %w", err)
	}
	t.mu.Lock()
	t.procs[id] = child
	t.mu.Unlock()

	m, err := child.AwaitRun(ctx, filepath.Join(t.o.Run.WorkDir, runs.ControlDir, id), startTimeout)
	switch {
	case errors.Is(err, runs.ErrChildEnded):
		return nil, fmt.Errorf("the subagent's %v: %s", err, logTail(logPath, offset))
	case err != nil:
		return nil, fmt.Errorf("subagent %s: %w; see %s", id, err, logPath)
	}
	return m, nil
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
