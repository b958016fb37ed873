package workflow

import (
	"errors"
	"fmt"
	"time"
)

// Queued is a Delta agent whose deliveries run on a cluster queue's
// workers instead of the controller's host.
type Queued struct {
	Agent *AgentDef
	// Queue is the agent's queue (its own, else the file's).
	Queue string
	// Local is the backend that would run the agent here: its workspace
	// is the one every worker mounts, so it reads the run's state.
	Local *DeltaBackend
	// AgentDir is the agent's Delta agent directory.
	AgentDir string
	// Workflow is the workflow's name; Created the instance's creation.
	Workflow string
	Created  time.Time
}

// ErrQueue: an agent's queue cannot be served as configured.
var ErrQueue = errors.New("agent on a queue")

// queueOf is the queue a's deliveries go to ("": this host).
func (r *runner) queueOf(a *AgentDef) string {
	if a.Backend != BackendDelta {
		return ""
	}
	if a.Queue != "" {
		return a.Queue
	}
	return r.f.Queue
}

// syncOf is a's workspace policy.
func (r *runner) syncOf(a *AgentDef) string {
	switch {
	case r.o.WorkspaceSync != "":
		return r.o.WorkspaceSync
	case a.WorkspaceSync != "":
		return a.WorkspaceSync
	case r.f.WorkspaceSync != "":
		return r.f.WorkspaceSync
	}
	return SyncNone
}

// checkQueues refuses, before anything of the instance runs, agents on
// queues that cannot be served as configured.
func (r *runner) checkQueues() error {
	for _, a := range r.f.Agents {
		if q := r.queueOf(a); q != "" {
			if err := r.checkQueue(a, q); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *runner) checkQueue(a *AgentDef, queue string) error {
	if r.o.Dispatch == nil {
		return fmt.Errorf("%w: agent %s has queue %s, and queues are a cluster's: run the workflow with --cluster URL (or remove queue:)", ErrQueue, a.Name, queue)
	}
	if sync := r.syncOf(a); sync != SyncShared {
		return fmt.Errorf("%w: agent %s has queue %s with workspace_sync %s: a workflow agent's run continues on whichever worker takes its next delivery, which needs the workspace on storage every worker mounts at the same path (workspace_sync: shared); none and git are not supported for workflow agents yet", ErrQueue, a.Name, queue, sync)
	}
	return nil
}

// queued returns the backend of an agent on a queue.
func (r *runner) queued(a *AgentDef, queue string, local *DeltaBackend) (Backend, error) {
	if err := r.checkQueue(a, queue); err != nil {
		return nil, err
	}
	return r.o.Dispatch(Queued{Agent: a, Queue: queue, Local: local, AgentDir: r.deltaAgentDir(a), Workflow: r.f.Name, Created: r.state.CreatedAt})
}
