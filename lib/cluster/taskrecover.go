package cluster

import (
	"context"
	"encoding/json"
	"errors"
)

// EndedRun is a run whose mirrored journal ends with ENGINE_END COMPLETED
// or FAILED: what a task's result needs of it.
type EndedRun struct {
	Status string          // ResultCompleted or ResultFailed
	Text   string          // the model's last text (the final answer of a completed run)
	Usage  json.RawMessage // input and output tokens over the run's model calls
}

// journalLine is the part of a journal line EndedRun reads.
type journalLine struct {
	Type    string         `json:"type"`
	Status  string         `json:"status"`
	Content string         `json:"content"`
	Usage   map[string]int `json:"usage"`
}

// EndedRun reads run's mirrored journal and returns how it ended, nil
// when the cluster has no journal of it or the journal does not end with
// the run completed or failed. A worker that died after its run ended
// but before publishing the result leaves such a journal: the next
// worker publishes the result from it instead of running the task again.
func (c *Cluster) EndedRun(ctx context.Context, run string) (*EndedRun, error) {
	var last journalLine
	var text string
	usage := map[string]int{}
	err := c.Replay(ctx, run, false, func(e Entry) error {
		last = journalLine{}
		if json.Unmarshal(e.Line, &last) != nil {
			return nil
		}
		if last.Type == "THOUGHT" {
			text = last.Content
			for k, v := range last.Usage {
				usage[k] += v
			}
		}
		return nil
	})
	if errors.Is(err, ErrNoRun) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if last.Type != "ENGINE_END" || (last.Status != "COMPLETED" && last.Status != "FAILED") {
		return nil, nil
	}
	out := &EndedRun{Status: ResultCompleted, Text: text}
	if last.Status == "FAILED" {
		out.Status = ResultFailed
	}
	out.Usage, _ = json.Marshal(usage)
	return out, nil
}
