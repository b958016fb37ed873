package main

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// Claude Code's headless output (claude -p --output-format json and
// stream-json), so that scripts written for it read Delta's runs: the run
// id is the session_id, an iteration a turn. --format claude-json prints
// the result object alone; --format claude-stream-json prints a system
// init line, an assistant line per model turn (text and tool_use blocks),
// a user line per tool result (tool_result blocks) and the result object
// last.

// claudeStream writes the claude-stream-json lines of one invocation.
type claudeStream struct {
	enc   *json.Encoder
	o     driveOpts
	tools []string
}

// claudeUsage is Anthropic's usage object.
type claudeUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

func claudeUsageOf(u llm.Usage) claudeUsage {
	return claudeUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheCreationInputTokens: u.CacheWriteTokens, CacheReadInputTokens: u.CacheReadTokens}
}

// claudeMessage is the line of an assistant turn or of tool results.
type claudeMessage struct {
	Type            string         `json:"type"` // "assistant" or "user"
	Message         map[string]any `json:"message"`
	ParentToolUseID *string        `json:"parent_tool_use_id"`
	SessionID       string         `json:"session_id"`
}

// event writes the lines an event makes: init for ENGINE_START, assistant
// for THOUGHT, user for a tool's result (ask_human's answer too: the engine
// journals it as the call's ACTION_RESULT).
func (c *claudeStream) event(ev journal.Event) {
	id := c.o.meta.RunID
	switch ev.Type {
	case journal.EngineStart:
		c.enc.Encode(map[string]any{"type": "system", "subtype": "init", "session_id": id, "tools": c.tools,
			"mcp_servers": claudeMCPServers(c.o), "model": c.o.llmConfig.Model, "cwd": c.o.meta.ToolDir(),
			"permissionMode": "default", "apiKeySource": "none"})
	case journal.Thought:
		content := []map[string]any{}
		if ev.Content != "" {
			content = append(content, map[string]any{"type": "text", "text": ev.Content})
		}
		for _, tc := range ev.ToolCalls {
			content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": toolInput(tc.Arguments)})
		}
		msg := map[string]any{"id": ev.ResponseID, "type": "message", "role": "assistant", "model": ev.Model, "content": content}
		if ev.Usage != nil {
			msg["usage"] = claudeUsageOf(*ev.Usage)
		}
		c.enc.Encode(claudeMessage{Type: "assistant", Message: msg, SessionID: id})
	case journal.ActionResult:
		c.toolResult(ev.CallID, ev.ObservationContent, ev.IsError)
	}
}

// toolResult writes a user line holding one tool_result block.
func (c *claudeStream) toolResult(callID, content string, isError bool) {
	block := map[string]any{"type": "tool_result", "tool_use_id": callID, "content": content, "is_error": isError}
	c.enc.Encode(claudeMessage{Type: "user", Message: map[string]any{"role": "user", "content": []any{block}}, SessionID: c.o.meta.RunID})
}

// toolInput is a call's arguments as a JSON object (the raw string when
// the model sent something else).
func toolInput(args string) any {
	var v map[string]any
	if json.Unmarshal([]byte(args), &v) == nil {
		return v
	}
	return args
}

// claudeMCPServers is the init line's mcp_servers: each server the run
// started (it is connected: a server that does not start fails the run).
func claudeMCPServers(o driveOpts) []map[string]string {
	out := []map[string]string{}
	for _, s := range o.agent.MCPServers {
		out = append(out, map[string]string{"name": s.Name, "status": "connected"})
	}
	return out
}

// claudeResult is the result object of claude-json and the last line of
// claude-stream-json. Besides Claude Code's fields it has Delta's status.
type claudeResult struct {
	Type         string      `json:"type"`
	Subtype      string      `json:"subtype"`
	IsError      bool        `json:"is_error"`
	DurationMS   int64       `json:"duration_ms"`
	NumTurns     int         `json:"num_turns"`
	Result       string      `json:"result"`
	SessionID    string      `json:"session_id"`
	TotalCostUSD float64     `json:"total_cost_usd"`
	Usage        claudeUsage `json:"usage"`
	Status       string      `json:"status"`
}

// newClaudeResult maps an outcome to Claude Code's result: success when
// the run completed; error_max_turns when it reached its iteration or turn
// limit; error_max_budget_usd its cost limit; error_during_execution
// otherwise (a failure, an interruption, a pause for a human), with the
// error or the question as result.
func newClaudeResult(o driveOpts, out engine.Outcome, start, end time.Time) claudeResult {
	r := newRunResult(o, out, start, end)
	c := claudeResult{Type: "result", Subtype: "success", DurationMS: r.Metrics.DurationMS, NumTurns: out.Iterations - o.priorIterations,
		SessionID: r.RunID, TotalCostUSD: r.Metrics.Usage.TotalCostUSD, Usage: claudeUsageOf(r.Metrics.Usage.Usage), Status: string(r.Status)}
	switch {
	case out.Status == runs.Completed && out.TurnLimit != "":
		// A turn limit completes a Delta run with its last text; Claude
		// Code reports the same stop as error_max_turns.
		c.Result = rawResult(out)
		c.IsError, c.Subtype = true, "error_max_turns"
		return c
	case out.Status == runs.Completed:
		c.Result = rawResult(out)
		return c
	case out.Status == runs.WaitingForInput && r.Interaction != nil:
		c.Result = "waiting for input: " + r.Interaction.Prompt
	case r.Error != nil:
		c.Result = r.Error.Message
	}
	c.IsError, c.Subtype = true, "error_during_execution"
	if r.Error != nil {
		switch r.Error.Type {
		case engine.ErrTypeMaxIterations:
			c.Subtype = "error_max_turns"
		case engine.ErrTypeMaxCost:
			c.Subtype = "error_max_budget_usd"
		}
	}
	if c.Result == "" {
		c.Result = strings.ToLower(string(out.Status))
	}
	return c
}
