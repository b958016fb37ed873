package contextgen_test

import (
	"encoding/json"
	"fmt"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// A journal rebuilt as the conversation the model sees, keeping the last
// iteration: the task stays, the older iteration goes, and the tool call the
// run died in gets an explicit result.
func ExampleConversation() {
	events := []journal.Event{
		{Type: journal.UserMessage, Content: "count the files"},
		{Type: journal.Thought, Content: "Listing.", ToolCalls: []llm.ToolCall{{ID: "a", Name: "ls", Arguments: "{}"}}},
		{Type: journal.ActionResult, CallID: "a", ToolName: "ls", ObservationContent: "x y"},
		{Type: journal.Thought, Content: "Counting.", ToolCalls: []llm.ToolCall{{ID: "b", Name: "wc", Arguments: "{}"}}},
	}
	for _, m := range contextgen.Conversation(events, 1) {
		line, _ := json.Marshal(m)
		fmt.Println(string(line))
	}
	// Output:
	// {"role":"user","content":"count the files"}
	// {"role":"assistant","content":"Counting.","tool_calls":[{"id":"b","name":"wc","arguments":"{}"}]}
	// {"role":"tool","content":"error: this tool call was interrupted before it finished (the engine stopped while it ran); its effects are unknown. Check the workspace before retrying.","tool_call_id":"b","is_error":true}
}
