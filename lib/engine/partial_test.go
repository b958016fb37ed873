package engine

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// cutOnceProvider reports an answer that broke off mid-stream (as the
// HTTP providers do before they ask again), then answers.
type cutOnceProvider struct{}

func (cutOnceProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	llm.NotifyPartial(ctx, llm.PartialAnswer{Attempt: 1, Text: "The answer is for", Err: errors.New("test: the answer broke off")})
	return llm.Response{Content: "The answer is 42."}, nil
}

// The text of an answer that broke off is kept in the journal, as an
// ERROR event of type partial_answer before the THOUGHT of the retried
// answer, and the run goes on to complete.
func TestPartialAnswerJournaled(t *testing.T) {
	e, j, _ := newEngine(t, cutOnceProvider{})
	out, err := e.Start(context.Background(), nil)
	if err != nil || out.Status != runs.Completed {
		t.Fatalf("Start() = %+v, %v; want a completed run", out, err)
	}
	events, err := j.Events()
	if err != nil {
		t.Fatal(err)
	}
	var kept *journal.Event
	for i := range events {
		if events[i].Type == journal.Error {
			kept = &events[i]
			if i+1 >= len(events) || events[i+1].Type != journal.Thought {
				t.Errorf("the partial answer's ERROR is not followed by the retried answer's THOUGHT")
			}
		}
	}
	if kept == nil {
		t.Fatalf("no ERROR event keeps the partial answer: %v", types(t, j))
	}
	var details struct {
		Type        string `json:"type"`
		Attempt     int    `json:"attempt"`
		PartialText string `json:"partial_text"`
	}
	if err := json.Unmarshal(kept.ErrorDetails, &details); err != nil {
		t.Fatal(err)
	}
	if details.Type != ErrTypePartialAnswer || details.Attempt != 1 || details.PartialText != "The answer is for" ||
		kept.ErrorMessage != "test: the answer broke off" || kept.Iteration != 1 {
		t.Errorf("ERROR event %+v with details %+v, want the partial text of attempt 1 in iteration 1", kept, details)
	}
}
