package tool

import (
	"encoding/json"
	"strconv"

	"github.com/deltakit/delta/lib/llm"
)

// The built-in subagent tools (agent.yaml subagents:), run by package subagent.
const (
	SpawnAgentName = "spawn_agent"
	SendInputName  = "send_input"
	WaitName       = "wait"
	CloseAgentName = "close_agent"
)

// SubagentNames are the subagent tools, in the order they are offered.
var SubagentNames = []string{SpawnAgentName, SendInputName, WaitName, CloseAgentName}

// SubagentSpecs describes the subagent tools to the model; agents are the
// directories spawn_agent may name (subagents.agents), the first the
// default. The engine offers exactly these specs.
func SubagentSpecs(agents []string) []llm.ToolSpec {
	def := "."
	if len(agents) > 0 {
		def = agents[0]
	}
	agentProp := map[string]any{"type": "string", "description": "The agent directory to run (default: " + strconv.Quote(def) + ")."}
	if len(agents) > 0 {
		agentProp["enum"] = agents
	}
	id := map[string]any{"type": "string", "description": "The agent_id spawn_agent returned."}
	return []llm.ToolSpec{
		{Name: SpawnAgentName, Description: "Spawn a subagent to handle a scoped task autonomously, in the background: its own run with its own conversation, sharing this workspace's files. Returns its agent_id at once; call wait to get its result. Spawn several before waiting to have them work in parallel.",
			Parameters: subagentSchema(map[string]any{
				"task":        map[string]any{"type": "string", "description": "What the subagent should do, with everything it needs to know: it does not see this conversation."},
				"agent":       agentProp,
				"working_dir": map[string]any{"type": "string", "description": "A subdirectory of the workspace (relative) to scope the subagent to: its tools run there."},
				"model":       map[string]any{"type": "string", "description": "Model override (default: the agent's model): a model name, or PROVIDER/MODEL (anthropic/claude-haiku-4-5)."},
				"max_turns":   map[string]any{"type": "integer", "minimum": 1, "description": "Limit of the subagent's model turns (default: its agent's max_iterations)."},
			}, "task")},
		{Name: SendInputName, Description: "Send a message to a subagent: a running one sees it on its next model call; a finished, stopped or waiting one continues with it as its next message (or as the answer to its question).",
			Parameters: subagentSchema(map[string]any{"agent_id": id, "message": map[string]any{"type": "string"}}, "agent_id", "message")},
		{Name: WaitName, Description: "Wait for a subagent to finish (or to stop for a question) and return its result.",
			Parameters: subagentSchema(map[string]any{"agent_id": id,
				"timeout_ms": map[string]any{"type": "integer", "minimum": 0, "description": "Return after this long even if the subagent still runs (default: wait until it ends)."}}, "agent_id")},
		{Name: CloseAgentName, Description: "Stop a running subagent (it can be continued later with send_input). Returns its final status.",
			Parameters: subagentSchema(map[string]any{"agent_id": id}, "agent_id")},
	}
}

func subagentSchema(props map[string]any, required ...string) json.RawMessage {
	data, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	return data
}
