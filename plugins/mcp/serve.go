package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"path/filepath"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/approval"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session serves an agent's tools to MCP clients. It is an adapter over
// the engine's tool-call pipeline (engine.Caller): every call takes
// the steps a call of a run takes — the agent's pre_tool_execution hook,
// its approval rules, the toolbox, redaction, the post_tool_execution hook
// — and is recorded the same way, in a run directory of its own under
// <workspace>/.delta/ (metadata.json, a journal of ACTION_REQUEST and
// ACTION_RESULT events, io/tool_executions records), so delta list-runs
// and delta log show it. One Session serves any number of client
// connections (stdio has one; HTTP may have several).
type Session struct {
	engine *engine.Engine
	caller *engine.Caller
	meta   *runs.Metadata

	mu    sync.Mutex // opening the run directory and the call counter
	j     *engine.FileJournal
	calls int
}

// SessionOptions are what a Session's calls go through besides the tools.
type SessionOptions struct {
	// Hooks runs the agent's pre_tool_execution and post_tool_execution
	// hooks (nil: none).
	Hooks engine.HookRunner
	// Policy is the agent's approval rules (approval.Compile).
	Policy *approval.Policy
	// Approvals is approval.ModeAsk (a call that needs a human is asked
	// of the client's user through MCP elicitation, when the client can
	// elicit) or approval.ModeDeny (such a call is always denied).
	Approvals string
	// NoEscalation: a call the sandbox refused is not offered to run
	// outside it (the agent's sandbox escalate: false).
	NoEscalation bool
	// Redact replaces secret values (redact.FromEnv of Delta's own
	// environment) in what a call returns: in the journal, the record and
	// what the client gets, as a run does.
	Redact *redact.Redactor
	// Log is the session's log (nil discards).
	Log *log.Logger
}

// ServeRunPrefix starts the run ID of a serve session, so that list-runs
// tells them from the agent's own runs.
const ServeRunPrefix = "mcp-"

// noElicitation is why a call that needs a human is denied when the MCP
// client cannot be asked.
const noElicitation = "the MCP client cannot be asked: it does not support elicitation"

// NewSession prepares a session of a's tools in workDir; its run
// directory is created at the first call, so that a client that only
// lists the tools (delta tool expand does) leaves nothing behind. tools is
// what the session offers (the agent's command, plugin and MCP tools).
// Close ends the session.
func NewSession(a *agent.Agent, workDir string, tools engine.Toolbox, o SessionOptions) *Session {
	meta := &runs.Metadata{RunID: ServeRunPrefix + runs.NewID(), WorkspaceID: filepath.Base(workDir), AgentName: a.Name, Status: runs.Running,
		InitialMessage: "(delta mcp serve: tool calls from an MCP client)", AgentHome: a.Home, WorkDir: workDir, MCPServe: true}
	dir := meta.Dir()
	run := engine.RunInfo{RunID: meta.RunID, RunDir: dir, JournalPath: filepath.Join(dir, runs.JournalFile), AgentHome: a.Home, WorkDir: workDir, Agent: a, Iteration: 1}
	e := &engine.Engine{Run: run, Hooks: o.Hooks, Tools: tools, Redact: o.Redact, Log: o.Log,
		Approve: o.Policy, Approvals: o.Approvals, NoHuman: noElicitation, ApprovedBy: "the MCP client's user", NoEscalation: o.NoEscalation}
	if o.Approvals == approval.ModeDeny {
		e.NoHuman = "approvals are off: DELTA_APPROVALS=deny"
	}
	return &Session{engine: e, caller: engine.NewCaller(e), meta: meta}
}

// open creates the session's run directory and journals its start, once.
// Callers hold s.mu.
func (s *Session) open() error {
	if s.j != nil {
		return nil
	}
	now := time.Now().UTC()
	s.meta.CreatedAt, s.meta.UpdatedAt = now, now
	s.meta.SetProcess(runs.Self())
	if _, err := runs.Create(s.meta.WorkDir, s.meta); err != nil {
		return fmt.Errorf("record the serve session: %w", err)
	}
	j, err := engine.OpenFileJournal(s.engine.Run.JournalPath)
	if err != nil {
		return err
	}
	s.j, s.engine.Journal = j, j
	config, _ := json.Marshal(map[string]any{"agent_name": s.meta.AgentName, "mode": "mcp serve"})
	return s.append(&journal.Event{Type: journal.EngineStart, RunID: s.meta.RunID, AgentHome: s.meta.AgentHome, WorkDir: s.meta.WorkDir, Config: config})
}

// RunDir is the session's run directory (created at the first call).
func (s *Session) RunDir() string { return s.engine.Run.RunDir }

// append journals ev and syncs it.
func (s *Session) append(ev *journal.Event) error {
	if err := s.j.Append(ev); err != nil {
		return fmt.Errorf("append %s to journal: %w", ev.Type, err)
	}
	return s.j.Sync()
}

// Server is an MCP server offering the session's tools, each with its
// description and JSON schema, announcing Delta's version.
func (s *Session) Server(version string) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "delta", Title: "Delta agent " + s.meta.AgentName, Version: version}, nil)
	for _, spec := range s.engine.Tools.Specs() {
		name := spec.Name
		srv.AddTool(&sdk.Tool{Name: name, Description: spec.Description, InputSchema: json.RawMessage(spec.Parameters)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return s.call(ctx, req.Session, name, req.Params.Arguments)
			})
	}
	return srv
}

// call runs one call of a client through the pipeline.
func (s *Session) call(ctx context.Context, ss *sdk.ServerSession, name string, args json.RawMessage) (*sdk.CallToolResult, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	s.mu.Lock()
	s.calls++
	id := fmt.Sprintf("mcp_%d", s.calls)
	err := s.open()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var ask engine.Asker
	if canElicit(ss) {
		ask = elicitAsker{ss}
	}
	out, err := s.caller.Call(ctx, llm.ToolCall{ID: id, Name: name, Arguments: string(args)}, ask)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: clientContent(out), IsError: out.IsError}, nil
}

// clientContent is a call's outcome as MCP content: its text, then its
// images and audio clips as image and audio content, as a run's model
// would have been shown them.
func clientContent(out engine.ToolOutcome) []sdk.Content {
	content := []sdk.Content{&sdk.TextContent{Text: clientText(out)}}
	for _, p := range out.Parts {
		switch p.Type {
		case llm.PartImage:
			content = append(content, &sdk.ImageContent{MIMEType: p.MediaType, Data: p.Data})
		case llm.PartAudio:
			content = append(content, &sdk.AudioContent{MIMEType: p.MediaType, Data: p.Data})
		}
	}
	return content
}

// Close journals the end of the session and marks it COMPLETED (FAILED
// with err); a session without calls has nothing to close.
func (s *Session) Close(cause error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.j == nil {
		return nil
	}
	status := runs.Completed
	if cause != nil {
		status = runs.Failed
		msg := cause.Error()
		s.meta.Error = &msg
	}
	err := s.append(&journal.Event{Type: journal.EngineEnd, Status: string(status), FinalIteration: 1})
	s.j.Close()
	end := time.Now().UTC()
	s.meta.Status, s.meta.EndTime, s.meta.UpdatedAt, s.meta.Iterations = status, &end, end, 1
	if werr := runs.WriteMetadata(s.meta.Dir(), s.meta); err == nil {
		err = werr
	}
	return err
}
