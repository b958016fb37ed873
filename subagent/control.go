package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/runs"
)

// send gives a child a message: into the inbox of a running one, else by
// continuing it.
func (t *Toolbox) send(ctx context.Context, run engine.RunInfo, raw json.RawMessage) (result, error) {
	var a idArgs
	if err := decode(raw, &a); err != nil {
		return result{}, err
	}
	if a.TimeoutMS != nil {
		return result{}, errors.New("bad arguments: send_input takes agent_id and message")
	}
	if strings.TrimSpace(a.Message) == "" {
		return result{}, errors.New("message is empty")
	}
	m, runDir, err := t.child(a.AgentID)
	if err != nil {
		return result{}, err
	}
	if p, err := runs.OpenProcess(m); err == nil {
		p.Close()
		msg, err := runs.Send(runDir, a.Message, false)
		if err != nil {
			return result{}, err
		}
		return result{text: fmt.Sprintf("agent_id: %s\nstatus: RUNNING\nMessage %s queued: the subagent sees it on its next model call.", m.RunID, msg.ID),
			agentID: m.RunID, status: string(runs.Running)}, nil
	} else if !errors.Is(err, runs.ErrNotRunning) {
		return result{}, err
	}
	// Its last process may still be on its way out (holding the run).
	t.reaped(m)
	argv := []string{"continue", "--run-id", m.RunID, "-w", m.WorkDir, "--format", "json"}
	stdin := ""
	if m.Status == runs.WaitingForInput {
		// The answer goes where continue reads it, for a question and
		// an approval ("approved", "denied: REASON") alike.
		resp := filepath.Join(runDir, runs.InteractionDir, runs.ResponseFile)
		if err := os.WriteFile(resp, []byte(a.Message+"\n"), 0o600); err != nil {
			return result{}, fmt.Errorf("answer subagent: %w", err)
		}
	} else {
		argv = append(argv, "-m", "-")
		stdin = a.Message
	}
	nm, err := t.start(ctx, m.RunID, argv, stdin)
	if err != nil {
		return result{}, err
	}
	return result{text: fmt.Sprintf("agent_id: %s\nstatus: %s\nThe subagent (it was %s) continues with your message: call wait for its result.", m.RunID, nm.Status, m.Status),
		agentID: m.RunID, status: string(nm.Status)}, nil
}

// reaped waits (briefly) until the child's last process is gone: a run
// records its outcome just before its process exits.
func (t *Toolbox) reaped(m *runs.Metadata) {
	deadline := time.Now().Add(StopTimeout)
	for time.Now().Before(deadline) {
		if alive, err := runs.Alive(m); err != nil || !alive {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// close stops a running child.
func (t *Toolbox) close(run engine.RunInfo, raw json.RawMessage) (result, error) {
	var a idArgs
	if err := decode(raw, &a); err != nil {
		return result{}, err
	}
	if a.Message != "" || a.TimeoutMS != nil {
		return result{}, errors.New("bad arguments: close_agent takes agent_id")
	}
	m, runDir, err := t.child(a.AgentID)
	if err != nil {
		return result{}, err
	}
	if _, err := runs.Interrupt(m, runDir, StopTimeout, true); err != nil && !errors.Is(err, runs.ErrNotRunning) {
		return result{}, err
	} else if err != nil {
		return result{text: fmt.Sprintf("agent_id: %s\nstatus: %s\nIt was not running.", m.RunID, m.Status), agentID: m.RunID, status: string(m.Status)}, nil
	}
	if m, err = runs.ReadMetadata(runDir); err != nil {
		return result{}, err
	}
	return result{text: fmt.Sprintf("agent_id: %s\nstatus: %s\nStopped; send_input continues it.", m.RunID, m.Status), agentID: m.RunID, status: string(m.Status)}, nil
}

// stopChildren stops, at once, every running child of the run and every
// delta-run this toolbox started that has not ended yet, and waits for
// them (killing what does not stop within StopTimeout).
func (t *Toolbox) stopChildren() {
	var wg sync.WaitGroup
	handled := map[string]bool{}
	kids, _ := runs.Children(t.o.Run.WorkDir, t.o.Run.RunID)
	for i := range kids {
		k := &kids[i]
		if k.Status != runs.Running {
			continue
		}
		handled[k.RunID] = true
		wg.Go(func() { runs.Interrupt(k, k.Dir(), StopTimeout, true) })
	}
	t.mu.Lock()
	for id, child := range t.procs {
		if !handled[id] {
			wg.Go(func() { child.Stop(StopTimeout) })
		}
	}
	t.mu.Unlock()
	wg.Wait()
}
