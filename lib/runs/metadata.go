// Package runs manages run directories on disk (seeds/000 §1.2): the
// workspace's .delta/<run_id>/ folders, their metadata.json, run IDs,
// sequential workspaces, process identity and the janitor that turns the
// RUNNING status of a crashed engine, or of a killed delta mcp serve
// session, into INTERRUPTED (§2.1.5). It also holds the protocol between
// a program and the delta-run it starts as a child (a subagent, a workflow
// agent's turn, a chat turn): StartChild to start, signal and wait for
// it, the exit-code table, and the Result it prints.
//
// It owns everything on disk and between processes: every file name under
// a run directory, the run statuses (Status), the inbox and the
// interaction files a human answers through. Nothing else spells them. It
// sits below the agent configuration (a test keeps lib/agent, YAML and the
// shell parser out of its dependencies), so any binary or plugin can find
// and read a run cheaply.
//
// Everything here is safe with several engines working in one workspace at
// once: run directories and workspaces are reserved with a single mkdir,
// files are replaced atomically, and a run is held with an advisory lock.
package runs

import (
	"encoding/json"
	"fmt"
	"github.com/deltakit/delta/lib/sandbox"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/llm"
)

// Status is a run's state (seeds/000 §2.1.4).
type Status string

// The five run states.
const (
	Running         Status = "RUNNING"
	WaitingForInput Status = "WAITING_FOR_INPUT"
	Completed       Status = "COMPLETED"
	Failed          Status = "FAILED"
	Interrupted     Status = "INTERRUPTED"
)

// MetadataFile is the name of a run's metadata file.
const MetadataFile = "metadata.json"

// Metadata is metadata.json: the schema of seeds/000 §2.1.4 plus
// process_start_ticks (so a reused pid is never mistaken for the run),
// token usage totals and the model name.
type Metadata struct {
	RunID          string     `json:"run_id"`
	WorkspaceID    string     `json:"workspace_id"`
	AgentName      string     `json:"agent_name"`
	Status         Status     `json:"status"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	EndTime        *time.Time `json:"end_time"` // null while running
	InitialMessage string     `json:"initial_message"`
	Iterations     int        `json:"iterations"`
	MaxIterations  int        `json:"max_iterations"`
	Error          *string    `json:"error"` // null unless FAILED
	AgentHome      string     `json:"agent_home"`
	WorkDir        string     `json:"work_dir"`

	// Process tracking for the janitor (§2.1.5).
	PID           int    `json:"pid"`
	Hostname      string `json:"hostname"`
	StartTimeUnix int64  `json:"start_time_unix"` // milliseconds
	ProcessName   string `json:"process_name"`
	// ProcessStartTicks is the process's start as the OS reports it
	// (sys.ProcInfo.Start: on Linux field 22 of /proc/PID/stat, on macOS
	// the start time in microseconds): with the pid it identifies the
	// process even after the pid is reused.
	ProcessStartTicks uint64 `json:"process_start_ticks,omitempty"`

	Usage llm.Usage `json:"usage"`
	Model string    `json:"model,omitempty"`
	// ModelUsage is Usage per model (a run may switch models).
	ModelUsage map[string]llm.Usage `json:"model_usage,omitempty"`
	// LLM is the --llm override the run was started (or last continued)
	// with, resolved (scripted:/abs/script.yaml, openai:MODEL): continue
	// without --llm uses it again, so that a run keeps its provider.
	LLM string `json:"llm,omitempty"`
	// ForkedFrom is the run and seq this run was forked from (delta fork).
	ForkedFrom *ForkOrigin `json:"forked_from,omitempty"`
	// Subagent runs (spawn_agent): the run that spawned this one, in the
	// same workspace, and the run's place in the tree (see Subagent).
	ParentRunID string    `json:"parent_run_id,omitempty"`
	Subagent    *Subagent `json:"subagent,omitempty"`
	// Workflow is set when the run is an agent of a multi-agent workflow:
	// a continue without the runner's environment keeps its tools.
	Workflow *WorkflowAgent `json:"workflow,omitempty"`
	// MCPServe is set on the run directory of a delta mcp serve session:
	// it records the tool calls of an MCP client, it is not an agent run,
	// so continue refuses it and --last and list-runs --resumable pass
	// over it. A session whose process is gone is cleaned up by list-runs
	// and prune instead (ServeJanitor).
	MCPServe bool `json:"mcp_serve,omitempty"`
	// Sandbox is the sandbox the run's tools run under, as resolved when
	// it started (or was last continued with --sandbox): continue keeps it.
	Sandbox *sandbox.Policy `json:"sandbox,omitempty"`
}

// Resumable reports whether continue may take up the run: every run but a
// delta mcp serve session (MCPServe).
func (m *Metadata) Resumable() bool { return !m.MCPServe }

// WorkflowAgent names the workflow instance a run belongs to and the agent
// it acts as there.
type WorkflowAgent struct {
	Dir   string `json:"dir,omitempty"` // the instance's shared-context directory (absolute)
	Agent string `json:"agent"`         // the agent's name in the workflow
	// Cluster and Instance name an instance whose board is in a cluster
	// (Dir is then empty).
	Cluster  string `json:"cluster,omitempty"`
	Instance string `json:"instance,omitempty"`
}

// Dir is the run's directory, in its workspace.
func (m *Metadata) Dir() string { return filepath.Join(m.WorkDir, ControlDir, m.RunID) }

// SetProcess records p as the process running the run.
func (m *Metadata) SetProcess(p ProcessInfo) {
	m.PID, m.Hostname, m.ProcessName = p.PID, p.Hostname, p.Name
	m.StartTimeUnix, m.ProcessStartTicks = p.StartTimeUnix, p.StartTicks
}

// ReadMetadata reads runDir/metadata.json.
func ReadMetadata(runDir string) (*Metadata, error) {
	data, err := os.ReadFile(filepath.Join(runDir, MetadataFile))
	if err != nil {
		return nil, fmt.Errorf("read run metadata: %w", err)
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", filepath.Join(runDir, MetadataFile), err)
	}
	return &m, nil
}

// WriteMetadata replaces runDir/metadata.json atomically: readers see the
// old file or the new one, never a mix, even across a crash.
func WriteMetadata(runDir string, m *Metadata) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run metadata: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(runDir, MetadataFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write run metadata: %w", err)
	}
	return nil
}

// WriteMetadataNoSync is WriteMetadata without the fsyncs (see
// atomicfile.WriteNoSync): for the per-iteration progress update, where a
// power loss may keep the previous content but a crash of the process
// cannot.
func WriteMetadataNoSync(runDir string, m *Metadata) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run metadata: %w", err)
	}
	if err := atomicfile.WriteNoSync(filepath.Join(runDir, MetadataFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write run metadata: %w", err)
	}
	return nil
}
