package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session serves an agent's tools to MCP clients and records every call
// the way a run records its tool calls: it is a run directory of its own
// under <workspace>/.delta/ (metadata.json, a journal of ACTION_REQUEST
// and ACTION_RESULT events, io/tool_executions records), so delta
// list-runs and delta log show it. One Session serves any number of
// client connections (stdio has one; HTTP may have several).
type Session struct {
	tools engine.Toolbox
	run   engine.RunInfo
	meta  *runs.Metadata
	jq    agent.ArgsMatcher // the approval rules' jq conditions
	// Redact replaces secret values (redact.FromEnv of Delta's own
	// environment) in what a call returns: in the journal, the call's
	// record and what the client gets, as a run does.
	Redact *redact.Redactor

	mu    sync.Mutex // the journal and the call counter
	j     *engine.FileJournal
	calls int
}

// ServeRunPrefix starts the run ID of a serve session, so that list-runs
// tells them from the agent's own runs.
const ServeRunPrefix = "mcp-"

// NewSession prepares a session of a's tools in workDir; its run
// directory is created at the first call, so that a client that only
// lists the tools (delta tool expand does) leaves nothing behind. tools is
// what the session offers (the agent's command, plugin and MCP tools); jq
// applies the jq conditions of its approval rules (contextgen.ApprovalJQ;
// nil when no rule has one). Close ends the session.
func NewSession(a *agent.Agent, workDir string, tools engine.Toolbox, jq agent.ArgsMatcher) (*Session, error) {
	meta := &runs.Metadata{RunID: ServeRunPrefix + runs.NewID(), WorkspaceID: filepath.Base(workDir), AgentName: a.Name, Status: runs.Running,
		InitialMessage: "(delta mcp serve: tool calls from an MCP client)", AgentHome: a.Home, WorkDir: workDir, MCPServe: true}
	dir := meta.Dir()
	return &Session{tools: tools, meta: meta, jq: jq,
		run: engine.RunInfo{RunID: meta.RunID, RunDir: dir, JournalPath: filepath.Join(dir, runs.JournalFile), AgentHome: a.Home, WorkDir: workDir, Agent: a, Iteration: 1}}, nil
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
	if _, err := runs.Create(s.run.WorkDir, s.meta); err != nil {
		return fmt.Errorf("record the serve session: %w", err)
	}
	j, err := engine.OpenFileJournal(s.run.JournalPath)
	if err != nil {
		return err
	}
	s.j = j
	config, _ := json.Marshal(map[string]any{"agent_name": s.meta.AgentName, "mode": "mcp serve"})
	return s.append(&journal.Event{Type: journal.EngineStart, RunID: s.meta.RunID, AgentHome: s.run.AgentHome, WorkDir: s.run.WorkDir, Config: config})
}

// RunDir is the session's run directory (created at the first call).
func (s *Session) RunDir() string { return s.run.RunDir }

// append journals ev and syncs it.
func (s *Session) append(ev *journal.Event) error {
	if err := s.j.Append(ev); err != nil {
		return fmt.Errorf("append %s to journal: %w", ev.Type, err)
	}
	return s.j.Sync()
}

// Server is an MCP server offering the session's tools: each tool with its
// description and JSON schema, each call run with the toolbox's rules and
// journaled.
func (s *Session) Server() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "delta", Title: "Delta agent " + s.meta.AgentName, Version: Version}, nil)
	for _, spec := range s.tools.Specs() {
		name := spec.Name
		srv.AddTool(&sdk.Tool{Name: name, Description: spec.Description, InputSchema: json.RawMessage(spec.Parameters)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return s.call(ctx, name, req.Params.Arguments)
			})
	}
	return srv
}

// call runs one tool call: approval rules first (deny refuses; ask refuses
// too, as nobody here can answer: the MCP client asks its own user), then
// the toolbox, journaled as ACTION_REQUEST and ACTION_RESULT.
func (s *Session) call(ctx context.Context, name string, args json.RawMessage) (*sdk.CallToolResult, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	s.mu.Lock()
	s.calls++
	id := fmt.Sprintf("mcp_%d", s.calls)
	err := s.open()
	if err == nil {
		err = s.append(&journal.Event{Type: journal.ActionRequest, Iteration: 1, CallID: id, ToolName: name, ToolArgs: args})
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out, err := s.approved(name, args)
	if err == nil && out == nil {
		var res engine.ToolOutcome
		res, err = s.tools.Call(ctx, s.run, id, name, args)
		out = &res
	}
	if err != nil {
		return nil, err
	}
	// A tool may print a secret it found (a file, a config): the journal,
	// the record and the client get it redacted.
	out.Observation = s.Redact.String(out.Observation)
	engine.RedactRecord(s.Redact, s.run.RunDir, out.RecordPath)
	code := out.ExitCode
	s.mu.Lock()
	err = s.append(&journal.Event{Type: journal.ActionResult, Iteration: 1, CallID: id, ToolName: name,
		ObservationContent: out.Observation, ExitCode: &code, IsError: out.IsError, DurationMS: out.DurationMS, ExecutionRef: out.RecordPath})
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.Observation}}, IsError: out.IsError}, nil
}

// approved applies agent.yaml's approval rules: nil when the call may run,
// else the refusal. Without a jq matcher a rule with a jq condition holds
// when it denies or asks and not when it allows, so that nothing runs
// that a rule might have refused.
func (s *Session) approved(name string, args json.RawMessage) (*engine.ToolOutcome, error) {
	a := s.run.Agent
	command := ""
	if r, ok := s.tools.(engine.Resolver); ok {
		command, _ = r.Resolve(name, args)
	}
	jq := s.jq
	if jq == nil {
		jq = func(i int, _, _ string, _ []byte) bool { return a.Approval[i].Decision != agent.ApproveAllow }
	}
	rule := a.Approve(name, command, args, jq)
	if rule == nil || rule.Decision == agent.ApproveAllow {
		return nil, nil
	}
	why := rule.Reason
	if why == "" {
		why = "no reason given"
	}
	msg := fmt.Sprintf("error: the call to %s was denied by the approval policy (%s): %s", name, rule.Name(), why)
	if rule.Decision == agent.ApproveAsk {
		msg = fmt.Sprintf("error: %s needs a human's approval (the %s: %s), and delta mcp serve has nobody to ask; the call did not run", name, rule.Name(), why)
	}
	return &engine.ToolOutcome{Observation: msg, IsError: true, ExitCode: -1}, nil
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
	if werr := runs.WriteMetadata(s.run.RunDir, s.meta); err == nil {
		err = werr
	}
	return err
}
