package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/observe"
	"github.com/deltakit/delta/lib/runs"
)

type idArgs struct {
	AgentID   string `json:"agent_id"`
	Message   string `json:"message"`
	TimeoutMS *int64 `json:"timeout_ms"`
}

// waitPoll is how often wait checks for ctx and its timeout while the
// child's process runs (the process's end itself wakes it at once).
const waitPoll = 200 * time.Millisecond

// wait blocks until the child stops running, its timeout passes, or the
// run is interrupted.
func (t *Toolbox) wait(ctx context.Context, run engine.RunInfo, raw json.RawMessage) (result, error) {
	var a idArgs
	if err := decode(raw, &a); err != nil {
		return result{}, err
	}
	if a.Message != "" {
		return result{}, errors.New("bad arguments: wait takes agent_id and timeout_ms (send_input sends a message)")
	}
	if a.TimeoutMS != nil && *a.TimeoutMS < 0 {
		return result{}, errors.New("timeout_ms must not be negative")
	}
	m, runDir, err := t.child(a.AgentID)
	if err != nil {
		return result{}, err
	}
	var deadline time.Time
	if a.TimeoutMS != nil {
		deadline = time.Now().Add(time.Duration(*a.TimeoutMS) * time.Millisecond)
	}
	for {
		if m.Status != runs.Running {
			return t.report(run, m, runDir, "")
		}
		p, err := runs.OpenProcess(m)
		if errors.Is(err, runs.ErrNotRunning) {
			// Ended between the two reads, or gone without a word.
			if m, err = runs.ReadMetadata(runDir); err != nil {
				return result{}, err
			}
			if m.Status == runs.Running {
				return t.report(run, m, runDir, "its process is gone (killed?) without recording an outcome: send_input continues it")
			}
			continue
		}
		if err != nil {
			return result{}, err
		}
		for ended := false; !ended; {
			step := waitPoll
			if !deadline.IsZero() {
				left := time.Until(deadline)
				if left <= 0 {
					p.Close()
					return result{text: fmt.Sprintf("agent_id: %s\nstatus: RUNNING\nStill running after %d ms; wait again for its result, or close_agent to stop it.", m.RunID, *a.TimeoutMS),
						agentID: m.RunID, status: string(runs.Running)}, nil
				}
				step = min(step, left)
			}
			if ended, err = p.Wait(step); err != nil {
				p.Close()
				return result{}, err
			}
			if !ended && ctx.Err() != nil {
				p.Close()
				return result{}, fmt.Errorf("interrupted while waiting for subagent %s", m.RunID)
			}
		}
		p.Close()
		if m, err = runs.ReadMetadata(runDir); err != nil {
			return result{}, err
		}
	}
}

// report is the result of a child that stopped running: its status and
// result, error or question, the result cut to observe.SubagentLimits.
func (t *Toolbox) report(run engine.RunInfo, m *runs.Metadata, runDir, note string) (result, error) {
	status := string(m.Status)
	var head strings.Builder
	fmt.Fprintf(&head, "agent_id: %s\nstatus: %s\n", m.RunID, status)
	if note != "" {
		fmt.Fprintf(&head, "note: %s\n", note)
	}
	events, _ := journal.ReadFile(filepath.Join(runDir, runs.JournalFile))
	fmt.Fprintf(&head, "turns_used: %d\n", engine.CountThoughts(events))
	fmt.Fprintf(&head, "journal: %s\n", fromToolDir(run, filepath.Join(runDir, runs.JournalFile)))
	var body string
	switch m.Status {
	case runs.Completed:
		head.WriteString("success: true\n")
		body, _ = runs.FinalAnswer(events)
	case runs.Failed:
		head.WriteString("success: false\n")
		if m.Error != nil {
			body = "error: " + *m.Error
		}
	case runs.WaitingForInput:
		head.WriteString("success: false\n")
		if q, err := runs.ReadRequest(runDir); err == nil {
			if runs.IsApproval(q.InputType) {
				body = "It waits for an approval: " + q.Prompt + "\nAnswer with send_input: \"approved\", or \"denied: REASON\"."
			} else {
				body = "It asks: " + q.Prompt + "\nAnswer with send_input."
			}
		}
	default:
		head.WriteString("success: false\n")
		body = "It was stopped before it finished; send_input continues it."
	}
	r := result{agentID: m.RunID, status: status}
	whole := observe.Whole{Bytes: int64(len(body)), Lines: int64(strings.Count(body, "\n") + 1)}
	if !observe.Fits(body, observe.SubagentLimits, whole) {
		r.full = body
		body = observe.Cut(body, observe.SubagentLimits, whole, fullMarker)
	}
	if body != "" {
		head.WriteString("\n" + body)
	}
	r.text = strings.TrimRight(head.String(), "\n")
	return r, nil
}

// child finds agent id among the run's children.
func (t *Toolbox) child(id string) (*runs.Metadata, string, error) {
	if id == "" {
		return nil, "", errors.New("agent_id is empty: give the agent_id spawn_agent returned")
	}
	runDir, err := runs.Find(t.o.Run.WorkDir, id)
	var m *runs.Metadata
	if err == nil {
		m, err = runs.ReadMetadata(runDir)
	}
	if err != nil || m.ParentRunID != t.o.Run.RunID {
		kids, _ := runs.Children(t.o.Run.WorkDir, t.o.Run.RunID)
		var ids []string
		for _, k := range kids {
			ids = append(ids, k.RunID)
		}
		if len(ids) == 0 {
			return nil, "", fmt.Errorf("no subagent %q: this run has spawned none", id)
		}
		return nil, "", fmt.Errorf("no subagent %q of this run (its subagents: %s)", id, strings.Join(ids, ", "))
	}
	return m, runDir, nil
}
