package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

// TestRunAgainstResponsesServer runs delta run against the fake Responses
// API, with the text streamed to the display and without: two parallel
// tool calls, and the turn's encrypted reasoning kept in the THOUGHT and
// sent back with that turn in the next request.
func TestRunAgainstResponsesServer(t *testing.T) {
	for _, format := range []string{"json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			reasoning := []llm.Reasoning{{Type: "reasoning", ID: "rs_1", Text: "Two files at once.", Data: "gAAAAB-encrypted"}}
			srv.Reply(llm.Response{Content: "Writing both.", Reasoning: reasoning,
				ToolCalls: []llm.ToolCall{{ID: "call_a", Name: "write_file", Arguments: `{"path":"a.txt","content":"a"}`},
					{ID: "call_b", Name: "write_file", Arguments: `{"path":"b.txt","content":"b"}`}},
				Usage: llm.Usage{InputTokens: 50, OutputTokens: 20}})
			srv.Reply(llm.Response{Content: "Both written.", Usage: llm.Usage{InputTokens: 90, OutputTokens: 4}})
			agentDir := writeAgent(t, "llm:\n  model: gpt-5\n  api: responses\n  reasoning_effort: low\ntools:\n"+
				"  - name: write_file\n    exec: \"tee ${path}\"\n    stdin: content\n", nil)
			ws := t.TempDir()
			env := []string{"DELTA_BASE_URL=" + srv.URL, "DELTA_API_KEY=" + testKey}
			_, stderr, code := runDelta(t, env, "run", "--agent", agentDir, "-w", ws, "-m", "write a and b", "--run-id", "r", "--format", format)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Path != "/v1/responses" {
				t.Fatalf("requests = %d, first to %s; want 2 to /v1/responses", len(reqs), reqs[0].Path)
			}
			if reqs[0].Params["store"] != false || reqs[0].Params["reasoning"] == nil {
				t.Errorf("first request params = %v, want store false and reasoning", reqs[0].Params)
			}
			var turn *llm.Message
			var outputs []string
			for i, m := range reqs[1].Messages {
				switch m.Role {
				case llm.RoleAssistant:
					turn = &reqs[1].Messages[i]
				case llm.RoleTool:
					outputs = append(outputs, m.ToolCallID)
				}
			}
			if turn == nil || len(turn.ToolCalls) != 2 {
				t.Fatalf("second request has no assistant turn with both calls: %+v", reqs[1].Messages)
			}
			if diff := cmp.Diff(reasoning, turn.Reasoning); diff != "" {
				t.Errorf("reasoning sent back (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"call_a", "call_b"}, outputs); diff != "" {
				t.Errorf("function_call_output items (-want +got):\n%s", diff)
			}
			thoughts := ofType(readEvents(t, filepath.Join(ws, ".delta", "r", "journal.jsonl")), journal.Thought)
			if len(thoughts) != 2 {
				t.Fatalf("%d THOUGHTs, want 2", len(thoughts))
			}
			if diff := cmp.Diff(reasoning, thoughts[0].Reasoning); diff != "" {
				t.Errorf("THOUGHT reasoning (-want +got):\n%s", diff)
			}
			if u := thoughts[1].Usage; u == nil || u.InputTokens != 90 {
				t.Errorf("second THOUGHT usage = %+v, want 90 input tokens", u)
			}
		})
	}
}
