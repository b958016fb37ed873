package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/workflow/board"
)

// CommandBackend runs an agent as any command-line agent that reads its
// prompt on stdin (claude -p, codex exec, a script): once per delivery,
// in the shared workspace, with the workflow tools reachable over MCP
// (`delta workflow mcp`, described by the agent's mcp.json). The command
// runs under Delta's process guard, so it dies with the runner and is
// started again (the delivery was not acknowledged) when the runner is.
//
// An attempt succeeds when the command exits 0 and neither its output nor
// its errors show a known error pattern (Error:, Failed to, Exception:,
// rate limit, API error, connection refused). A command that cannot be
// run at all (not found, not executable: the shell's exit 127 and 126)
// is a permanent failure, not retried: every attempt would fail the same
// way.
type CommandBackend struct {
	Workspace, Instance, InstanceDir string
	// Workflow is the path of the delta-workflow executable (for the MCP
	// server of mcp.json).
	Workflow string
	// Vars expand ${{ … }} in the command (agent.* is added per agent).
	Vars Vars
	// Context is true when the agents get the workflow tools.
	Context bool
	// Cluster, when set, keeps the board: mcp.json reaches it there, and
	// the command gets DELTA_WORKFLOW_CLUSTER and DELTA_WORKFLOW_INSTANCE
	// instead of DELTA_WORKFLOW_DIR.
	Cluster *ClusterBoard
	// Env is the command's environment (nil: ours).
	Env []string
}

// errorPatterns are output that means a command-line agent failed even
// when it exits 0.
var errorPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bError:`),
		regexp.MustCompile(`(?i)\bFailed to\b`),
		regexp.MustCompile(`(?i)\bException:`),
		regexp.MustCompile(`(?i)rate limit`),
		regexp.MustCompile(`(?i)API error`),
		regexp.MustCompile(`(?i)connection refused`),
	}
})

// The shell's exit statuses for a command it could not run (POSIX; env,
// timeout and xargs use them too).
const (
	exitNotExecutable = 126
	exitNotFound      = 127
)

// cannotRun reports whether exit status code means the command was never
// run (not found, not executable), a failure no retry can fix.
func cannotRun(code int) bool { return code == exitNotExecutable || code == exitNotFound }

// detectError applies the success rule: exit status 0 and no error
// pattern in the output.
func detectError(stdout, stderr string, code int) string {
	if cannotRun(code) {
		// The shell says which command, on its last line of stderr.
		why := "a command it runs was not found"
		if code == exitNotExecutable {
			why = "a command it runs is not executable"
		}
		if err := strings.TrimSpace(stderr); err != "" {
			why = lineAt(err, len(err)-1)
		}
		return fmt.Sprintf("the command exited with status %d: %s", code, why)
	}
	if code != 0 {
		return fmt.Sprintf("the command exited with status %d", code)
	}
	for _, p := range errorPatterns() {
		for _, out := range []string{stderr, stdout} {
			if loc := p.FindStringIndex(out); loc != nil {
				return fmt.Sprintf("error in the command's output: %q", lineAt(out, loc[0]))
			}
		}
	}
	return ""
}

// agentDir is the agent's folder in the instance directory.
func (b *CommandBackend) agentDir(a *AgentDef) string {
	return filepath.Join(b.InstanceDir, AgentsDir, a.Name)
}

// MCPConfigPath is the agent's MCP configuration: one stdio server,
// `delta-workflow mcp`, acting as the agent.
func (b *CommandBackend) MCPConfigPath(a *AgentDef) string {
	return filepath.Join(b.agentDir(a), mcpFile)
}

// WriteMCPConfig writes the agent's mcp.json, in the format Claude Code
// (--mcp-config), Cursor and most MCP clients read.
func (b *CommandBackend) WriteMCPConfig(a *AgentDef) error {
	args := []string{"mcp", "--dir", b.InstanceDir, "--as", a.Name}
	if b.Cluster != nil {
		args = []string{"mcp", "--cluster", b.Cluster.URL, "--instance", b.Instance, "--as", a.Name}
		if b.Cluster.Creds != "" {
			args = append(args, "--cluster-creds", b.Cluster.Creds)
		}
	}
	cfg := map[string]any{"mcpServers": map[string]any{"workflow-context": map[string]any{
		"type": "stdio", "command": b.Workflow, "args": args,
	}}}
	return writeJSON(b.MCPConfigPath(a), cfg)
}

// Mark: a command keeps no state between deliveries.
func (b *CommandBackend) Mark(*AgentDef) (int64, error) { return 0, nil }

// Usage is unknown for commands.
func (b *CommandBackend) Usage(*AgentDef) llm.Usage { return llm.Usage{} }

// Run runs the command once with the digest on stdin.
func (b *CommandBackend) Run(ctx context.Context, job Job) Result {
	a := job.Agent
	vars := b.Vars
	vars.Agent = map[string]string{
		"name":               a.Name,
		"mcp_config":         b.MCPConfigPath(a),
		"system_prompt_file": filepath.Join(b.agentDir(a), promptFile),
	}
	var argv []string
	if a.Command.Shell.S != "" {
		s, err := a.Command.Shell.Expand(vars)
		if err != nil {
			return Result{Outcome: Failed, Err: err.Error()}
		}
		argv = []string{"sh", "-c", s}
	} else {
		for _, t := range a.Command.Argv {
			s, err := t.Expand(vars)
			if err != nil {
				return Result{Outcome: Failed, Err: err.Error()}
			}
			argv = append(argv, s)
		}
	}
	env := b.Env
	if env == nil {
		env = os.Environ()
	}
	env = withoutVars(env, board.EnvDir, board.EnvAgent, board.EnvCluster, board.EnvInstance, "DELTA_WORKFLOW_MCP_CONFIG", "DELTA_WORKFLOW_SYSTEM_PROMPT_FILE")
	env = append(env, "DELTA_WORKFLOW_SYSTEM_PROMPT_FILE="+vars.Agent["system_prompt_file"])
	switch {
	case b.Context && b.Cluster != nil:
		env = append(env, board.EnvCluster+"="+b.Cluster.URL, board.EnvInstance+"="+b.Instance, board.EnvAgent+"="+a.Name, "DELTA_WORKFLOW_MCP_CONFIG="+vars.Agent["mcp_config"])
	case b.Context:
		env = append(env, board.EnvDir+"="+b.InstanceDir, board.EnvAgent+"="+a.Name, "DELTA_WORKFLOW_MCP_CONFIG="+vars.Agent["mcp_config"])
	}
	out, err := nextRecord(filepath.Join(b.agentDir(a), "commands"))
	if err != nil {
		return Result{Outcome: Failed, Err: err.Error()}
	}
	res, err := execute.Run(ctx, execute.Spec{Argv: argv, Stdin: []byte(job.Prompt), Dir: b.Workspace, Env: env, OutputDir: out})
	if err != nil {
		// The argv form's 127 and 126: the program is not there, or not
		// executable (execute.Run wraps exec.ErrNotFound for both).
		return Result{Outcome: Failed, Err: err.Error(), Permanent: errors.Is(err, exec.ErrNotFound)}
	}
	if job.Log != nil {
		io.WriteString(job.Log, res.Stderr)
	}
	if res.Canceled && ctx.Err() != nil {
		return Result{Outcome: Interrupted, Started: true}
	}
	rec, _ := json.Marshal(map[string]any{"argv": argv, "exit_code": res.ExitCode, "duration_ms": res.Duration.Milliseconds()})
	os.WriteFile(filepath.Join(out, "command.json"), append(rec, '\n'), 0o644)
	if msg := detectError(res.Stdout, res.Stderr, res.ExitCode); msg != "" {
		return Result{Outcome: Failed, Err: msg, Started: true, Answer: res.Stdout, Permanent: cannotRun(res.ExitCode)}
	}
	return Result{Outcome: Succeeded, Started: true, Answer: res.Stdout}
}

// nextRecord reserves the next numbered folder (001, 002 …) under dir for
// one command's output: mkdir is the reservation.
func nextRecord(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	n := 0
	for _, e := range ents {
		if v, err := strconv.Atoi(e.Name()); err == nil && v > n {
			n = v
		}
	}
	for {
		n++
		p := filepath.Join(dir, fmt.Sprintf("%03d", n))
		if err := os.Mkdir(p, 0o755); err == nil {
			return p, nil
		} else if !os.IsExist(err) {
			return "", err
		}
	}
}

// lineAt is the line of s holding byte i, trimmed and cut to 200 bytes:
// what a person needs to see of the error the success rule found.
func lineAt(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := len(s)
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		end = i + j
	}
	return cut(strings.TrimSpace(s[start:end]), 200)
}
