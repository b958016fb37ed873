package llmtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestServerReplies(t *testing.T) {
	s := llmtest.NewServer(t)
	s.ReplyToolCalls(llm.ToolCall{Name: "ls", Arguments: `{"dir":"."}`})
	s.Reply(llm.Response{Content: "done", Usage: llm.Usage{InputTokens: 3, OutputTokens: 2}})

	body := `{"model":"m","temperature":0.5,"messages":[{"role":"system","content":"be brief"},
	  {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},
	  {"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"a.txt"}]}],
	  "tools":[{"type":"function","function":{"name":"ls","description":"list","parameters":{"type":"object"}}}]}`
	status, got := post(t, s.URL+"/chat/completions", body)
	if status != 200 {
		t.Fatalf("status = %d, body %s", status, got)
	}
	var c struct {
		Model   string
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
	}
	if err := json.Unmarshal([]byte(got), &c); err != nil {
		t.Fatal(err)
	}
	if c.Model != "m" || c.Choices[0].FinishReason != "tool_calls" || c.Choices[0].Message.ToolCalls[0].Function.Name != "ls" || c.Choices[0].Message.ToolCalls[0].ID == "" {
		t.Errorf("tool call completion = %s", got)
	}

	// Without /v1 works too.
	status, got = post(t, strings.TrimSuffix(s.URL, "/v1")+"/chat/completions", `{"model":"m","messages":[]}`)
	if status != 200 || !strings.Contains(got, `"content":"done"`) || !strings.Contains(got, `"prompt_tokens":3`) {
		t.Errorf("text completion = %d %s", status, got)
	}

	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("Requests() has %d entries, want 2", len(reqs))
	}
	want := []llm.Message{
		{Role: "system", Content: "be brief"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "ls", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: "a.txt"},
	}
	if diff := cmp.Diff(want, reqs[0].Messages); diff != "" {
		t.Errorf("recorded messages (-want +got):\n%s", diff)
	}
	if reqs[0].Tools[0].Name != "ls" || reqs[0].Params["temperature"] != 0.5 || reqs[0].Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("recorded request = %+v", reqs[0])
	}
}

func TestServerEmptyQueueAndFail(t *testing.T) {
	s := llmtest.NewServer(t)
	s.Fail(http.StatusTooManyRequests, "slow down")
	status, body := post(t, s.URL+"/chat/completions", `{}`)
	if status != 429 || !strings.Contains(body, "slow down") {
		t.Errorf("Fail(429) served %d %s", status, body)
	}
	status, body = post(t, s.URL+"/chat/completions", `{}`)
	if status != 500 || !strings.Contains(body, "llmtest: no response queued") {
		t.Errorf("empty queue served %d %s", status, body)
	}
	status, _ = post(t, s.URL+"/chat/completions", `not json`)
	if status != 400 {
		t.Errorf("bad body served %d, want 400", status)
	}
}
