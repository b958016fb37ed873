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
// A child gets the engine's own environment and the provider settings it
// read from .env files, so its provider keys reach its engine without ever
// passing through the parent's tools, which see the environment without
// secrets. Its place in the tree (depth, the
// inherited max_depth, the directory it is scoped to) is in its metadata,
// so the depth limit holds in the child too.
package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// The tools' names.
const (
	Spawn = tool.SpawnAgentName
	Send  = tool.SendInputName
	Wait  = tool.WaitName
	Close = tool.CloseAgentName
)

// Names are the tools a Toolbox offers.
var Names = tool.SubagentNames

// StopTimeout is how long a child has to stop after SIGINT (close_agent,
// or its parent interrupted) before it is killed.
const StopTimeout = 10 * time.Second

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
	return tool.SubagentSpecs(names)
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
		rel := filepath.Join(runs.ToolExecutionsDir, base, "result.txt")
		if err := writeIn(run.RunDir, rel, r.full); err != nil {
			return out, err
		}
		out.Observation = strings.Replace(out.Observation, fullMarker, fromToolDir(run, filepath.Join(run.RunDir, rel)), 1)
	}
	rec := record{CallID: callID, ToolName: name, Args: args, StartedAt: start.UTC(), DurationMS: out.DurationMS,
		AgentID: r.agentID, Status: r.status, ExitCode: out.ExitCode, IsError: out.IsError, Observation: out.Observation}
	rel, err := engine.WriteToolRecord(run, base, rec)
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
