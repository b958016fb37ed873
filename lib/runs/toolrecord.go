package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ToolRecord is the record of one tool call, whatever kind of tool it
// was (a command tool, a plugin's, an MCP server's, a subagent or
// workflow tool): ToolExecutionsDir/NAME.json, where NAME (Name) is the
// call's start time, tool and call id, so records sort in time and say
// what they hold. Beside it, the directory NAME/ (DirIn) keeps what the
// record holds in files: an output too long to keep inline, the text the
// model was shown only part of. A field a kind of tool has no use for
// stays out of the JSON; delta-journal(5) describes them all.
type ToolRecord struct {
	CallID   string `json:"call_id"`
	ToolName string `json:"tool_name"`
	// Where the tool comes from, when it is not one of the agent's
	// command tools.
	Plugin        string `json:"plugin,omitempty"`
	MCPServer     string `json:"mcp_server,omitempty"`
	MCPTool       string `json:"mcp_tool,omitempty"`
	WorkflowAgent string `json:"workflow_agent,omitempty"`

	Args json.RawMessage `json:"args"`
	// What a command tool ran: its argv, its stdin, its directory.
	Argv  []string `json:"argv,omitempty"`
	Stdin *string  `json:"stdin,omitempty"`
	Dir   string   `json:"dir,omitempty"`

	StartedAt  time.Time `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	TimeoutMS  int64     `json:"timeout_ms,omitempty"`
	ExitCode   int       `json:"exit_code"`
	Signal     string    `json:"signal,omitempty"`
	TimedOut   bool      `json:"timed_out,omitempty"`
	Canceled   bool      `json:"canceled,omitempty"`
	IsError    bool      `json:"is_error,omitempty"`

	// The subagent a subagent tool spoke to, and its state after.
	AgentID string `json:"agent_id,omitempty"`
	Status  string `json:"status,omitempty"`

	// The tool's output, its size and each stream whole: inline (Stdout,
	// Stderr) when it is at most ToolRecordInlineMax, else the file in
	// the record's directory that holds it (StdoutFile, StderrFile,
	// relative to the run directory).
	StdoutBytes int64   `json:"stdout_bytes"`
	StderrBytes int64   `json:"stderr_bytes,omitempty"`
	Stdout      *string `json:"stdout,omitempty"`
	Stderr      *string `json:"stderr,omitempty"`
	StdoutFile  string  `json:"stdout_file,omitempty"`
	StderrFile  string  `json:"stderr_file,omitempty"`
	// Result is an MCP server's whole CallToolResult; ResultFile names
	// it instead when it is large.
	Result     json.RawMessage `json:"result,omitempty"`
	ResultFile string          `json:"result_file,omitempty"`
	// Data is a plugin's structured output.
	Data json.RawMessage `json:"data,omitempty"`
	// OutputFile holds the text the model would have seen uncut, when it
	// saw part of it and nothing else keeps all of it.
	OutputFile string `json:"output_file,omitempty"`
	Error      string `json:"error,omitempty"`
}

// The files a tool record keeps in its directory, beside the stdout.log
// and stderr.log lib/execute writes there for a command's long output.
const (
	// OutputFile is the text the model was shown only part of.
	OutputFile = "output.txt"
	// ResultFile is an MCP tool's whole result, when too large to inline.
	ResultFile = "result.json"
	// ResultTextFile is a subagent's whole result, when the model was
	// shown it cut.
	ResultTextFile = "result.txt"
)

// ToolRecordInlineMax is the largest output a tool record keeps inline;
// a longer one goes to a file in the record's directory. Command tools
// capture this much of each stream in memory (lib/execute's capture), so
// an output that fits is whole in the capture.
const ToolRecordInlineMax = 256 << 10

// Name is the record's name under ToolExecutionsDir, without ".json": the
// start time (UTC, to the nanosecond), the tool and the call id, each
// made safe for a file name.
func (r ToolRecord) Name() string {
	return fmt.Sprintf("%s_%s_%s", r.StartedAt.UTC().Format("20060102T150405.000000000Z"), safeName(r.ToolName), safeName(r.CallID))
}

// Path is the record's path relative to the run directory, the path
// ACTION_RESULT's execution_ref gives.
func (r ToolRecord) Path() string { return ToolExecutionsDir + "/" + r.Name() + ".json" }

// File is the path, relative to the run directory, of the file name in
// the record's directory.
func (r ToolRecord) File(name string) string { return ToolExecutionsDir + "/" + r.Name() + "/" + name }

// DirIn is the record's directory (absolute) in the run directory runDir.
func (r ToolRecord) DirIn(runDir string) string {
	return filepath.Join(runDir, filepath.FromSlash(ToolExecutionsDir), r.Name())
}

// ReserveDir creates the record's directory in runDir, for a tool (a
// plugin) to keep files in while it runs, and returns it. A run
// directory that was removed is not recreated (ErrRunDirGone).
func (r ToolRecord) ReserveDir(runDir string) (string, error) {
	dir := r.DirIn(runDir)
	if err := MkdirIn(runDir, dir); err != nil {
		return "", fmt.Errorf("create the tool record directory: %w", err)
	}
	return dir, nil
}

// ReleaseDir removes the record's directory again when the tool kept
// nothing in it, so that only records with files have one.
func (r ToolRecord) ReleaseDir(runDir string) {
	// Remove fails on a directory that is not empty: what the tool kept
	// stays.
	_ = os.Remove(r.DirIn(runDir))
}

// Keep writes data as the file name in the record's directory (created
// when missing) and returns its path relative to runDir.
func (r ToolRecord) Keep(runDir, name string, data []byte) (string, error) {
	rel := r.File(name)
	path := filepath.Join(runDir, filepath.FromSlash(rel))
	if err := MkdirIn(runDir, filepath.Dir(path)); err != nil {
		return "", fmt.Errorf("keep %s of the tool record: %w", name, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("keep %s of the tool record: %w", name, err)
	}
	return rel, nil
}

// Encode is the record as written: indented JSON and a newline.
func (r ToolRecord) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode tool execution record: %w", err)
	}
	return append(data, '\n'), nil
}

// safeName keeps a name usable in a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
