// Package workflow runs multi-agent workflows (delta-workflow(1), the file
// format in delta-workflow(5)): several agents that talk through a shared
// channel, each woken when it is @mentioned.
//
// It holds the workflow file (parsing, ${{ name }} interpolation,
// validation), the controllers (one per agent: idle, running, waiting or
// stopped; woken by a mention, polling as a fallback) and the runner that
// drives them, and the backends that run an agent: an ordinary Delta run
// (one long-lived run per agent and instance, continued with a digest of
// its inbox), or any command-line agent that reads its prompt on stdin.
//
// Everything a workflow needs to go on after a crash is in files: the
// shared context (package workflow/board), the runner's own state in the
// instance directory (written atomically), and the agents' runs under the
// workspace's .delta/. The runner can be killed at any moment and started
// again: messages not acknowledged are delivered again, runs it left
// behind are waited for or continued, never started twice.
package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/deltakit/delta/lib/agent"
	"gopkg.in/yaml.v3"
)

// Errors of Load besides agent.ErrInvalid, agent.ErrUnknownKey and
// agent.ErrMissingFile, which it reports like agent.yaml's loader.
var (
	// ErrUnknownVariable: ${{ name }} names no variable.
	ErrUnknownVariable = errors.New("unknown variable")
)

// Backends an agent runs on.
const (
	BackendDelta   = "delta"
	BackendCommand = "command"
)

// Context providers.
const (
	ProviderFile   = "file"
	ProviderMemory = "memory"
)

// Defaults of the shared context.
const (
	DefaultDir      = ".workflow/${{ workflow.instance }}"
	DefaultChannel  = "channel.md"
	DefaultDocument = "notes.md"
)

// Keys of the workflow file and its blocks.
var (
	fileKeys    = []string{"name", "description", "agents", "setup", "kickoff", "context", "queue", "workspace_sync"}
	agentKeys   = []string{"model", "system_prompt", "tools", "agent", "backend", "command", "max_iterations", "queue", "workspace_sync"}
	setupKeys   = []string{"shell", "as"}
	contextKeys = []string{"provider", "documentOwner", "config"}
	configKeys  = []string{"dir", "channel", "document", "documents", "documentOwner"}
)

// reservedAuthors are names of channel authors that are not agents.
var reservedAuthors = []string{"system", "user", "all"}

// agentName is the @mention form of a name: what can be mentioned can be
// an agent.
var agentName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]*$`) })

// queueName is the form of a cluster queue's name (a subject's tokens).
var queueName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`) })

// varName is the form of a setup variable (as:).
var varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// File is a parsed workflow file. Text fields keep their ${{ }} references;
// Expand resolves them once the instance and the setup variables are known.
type File struct {
	// Path is the file (absolute); Dir its directory, against which
	// relative paths in it resolve; Display the file as messages name it.
	Path, Dir, Display string
	// Name is name:, else the file's base name without extension.
	Name        string
	Description string
	Agents      []*AgentDef
	Setup       []SetupTask
	// Kickoff is posted to the channel once, after setup; empty for none.
	Kickoff Text
	Context ContextConfig
	// Queue is the cluster queue the Delta agents' deliveries go to
	// (delta workflow --cluster) unless an agent names its own; "" runs
	// them on the controller's host.
	Queue string
	// WorkspaceSync is how an agent's run continues on another host
	// (SyncNone, SyncGit, SyncShared); an agent's own overrides it.
	WorkspaceSync string

	src []byte
}

// Workspace policies: how a run continues on a host other than the one
// it began on.
const (
	SyncNone   = "none"
	SyncGit    = "git"
	SyncShared = "shared"
)

// syncPolicies are the values workspace_sync takes.
var syncPolicies = []string{SyncNone, SyncGit, SyncShared}

// AgentDef is one agent of the workflow.
type AgentDef struct {
	Name string
	// Dir is agent: ./dir resolved, for a full Delta agent; empty for an
	// inline agent.
	Dir string
	// Model is the inline agent's model as written, LLM as parsed (see
	// ParseModel).
	Model string
	LLM   Model
	// SystemPrompt is the inline prompt, or the contents of the file
	// system_prompt names (PromptFile).
	SystemPrompt Text
	PromptFile   string
	// Tools are agent.yaml tool definitions, as written.
	Tools []*yaml.Node
	// MaxIterations bounds each of the agent's invocations (0: default).
	MaxIterations int
	// Backend is BackendDelta or BackendCommand.
	Backend string
	// Command is the command backend's program: Shell runs sh -c, else
	// Argv is run directly.
	Command CommandLine
	// Queue and WorkspaceSync are the agent's own queue: and
	// workspace_sync: ("": the file's).
	Queue, WorkspaceSync string

	node *yaml.Node
}

// CommandLine is a command: a string run by sh -c, or a list run directly.
type CommandLine struct {
	Shell Text
	Argv  []Text
}

// Empty reports whether no command is set.
func (c CommandLine) Empty() bool { return c.Shell.S == "" && len(c.Argv) == 0 }

// SetupTask is one setup command; its standard output, trailing newlines
// removed, becomes the variable As (if any).
type SetupTask struct {
	Shell Text
	As    string
}

// ContextConfig is the shared context.
type ContextConfig struct {
	// Enabled is false for context: false.
	Enabled       bool
	Provider      string
	DocumentOwner string
	// Dir, Channel and Document may hold ${{ workflow.* }} and ${{ env.* }}.
	Dir, Channel, Document Text
	// Documents are more documents besides the entry one (paths under
	// documents/), created empty when the instance starts if missing.
	Documents []Text
}

// Text is a string from the file that may hold ${{ name }} references,
// with where it starts, so a bad reference is reported at its place.
type Text struct {
	S    string
	node *yaml.Node
}

// Load reads, parses and checks the workflow file at path: its structure,
// names, paths and the variables its text refers to. On failure it
// returns a *agent.LoadError listing every problem with file:line:col.
func Load(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read workflow file: %w", err)
	}
	y, root := agent.ReadYAMLFile(abs)
	if root == nil {
		return nil, y.Err()
	}
	p := &parser{y: y, f: &File{Path: abs, Dir: filepath.Dir(abs), Display: y.Name(), src: src}}
	p.parse(root)
	if err := y.Err(); err != nil {
		return nil, err
	}
	return p.f, nil
}

// Agent returns the agent named name, or nil.
func (f *File) Agent(name string) *AgentDef {
	for _, a := range f.Agents {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// AgentNames returns the agents' names in the file's order.
func (f *File) AgentNames() []string {
	out := make([]string, len(f.Agents))
	for i, a := range f.Agents {
		out[i] = a.Name
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Line and Column are where the agent is defined in the file.
func (a *AgentDef) Line() int {
	if a.node == nil {
		return 0
	}
	return a.node.Line
}

// Column: see Line.
func (a *AgentDef) Column() int {
	if a.node == nil {
		return 0
	}
	return a.node.Column
}
