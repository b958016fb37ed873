// Package cluster is Delta's port onto NATS JetStream: the names of the
// streams, buckets and subjects a cluster holds, the connection, and the
// few operations the commands build on — a run's mirrored journal with
// its fence, run leases, the runs bucket, inbox and control subjects, and
// the task and result streams of batches.
//
// Only the cluster commands (delta-cluster) link this package; delta-run
// talks to its mirror through lib/mirror's pipe protocol, so a run
// without --cluster runs no NATS code and links none.
//
// A run is named by its run id alone across the cluster (subjects and
// keys hold it verbatim), so two runs with one id cannot both be in one
// cluster: the second one's lease is refused.
package cluster

import (
	"fmt"
	"strings"
)

// Streams, buckets and object stores Delta keeps in a cluster (Init
// creates them).
const (
	JournalStream = "DELTA_JOURNAL" // every mirrored run's journal, subject per run
	InboxStream   = "DELTA_INBOX"   // messages for runs (delta send), a work queue
	TaskStream    = "DELTA_TASKS"   // batch tasks, a work queue per queue name
	ResultStream  = "DELTA_RESULTS" // batch results, one per task

	RunsBucket   = "delta_runs"    // metadata.json of each mirrored run
	LeaseBucket  = "delta_leases"  // who holds a run (bucket TTL = lease TTL)
	WorkerBucket = "delta_workers" // live workers and their slots
	BatchBucket  = "delta_batches" // one record per submitted batch
	IOStore      = "delta_io"      // io/ records of mirrored runs
	AgentStore   = "delta_agents"  // agent directories of batches, by content hash
	// SnapshotStore holds the workspace snapshots of runs whose tasks
	// carry their workspace in git (workspace_sync: git).
	SnapshotStore = "delta_snapshots"
)

// objectStores are the object stores Init creates, in order.
var objectStores = []string{IOStore, AgentStore, SnapshotStore}

// Subjects. Run ids, batch ids, task ids and queue names hold only
// [A-Za-z0-9._-]; a dot splits a subject into tokens, which keeps every
// name usable in a subject as it is (CheckName refuses empty tokens).
const (
	journalPrefix = "delta.j."
	inboxPrefix   = "delta.in."
	controlPrefix = "delta.ctl."
	taskPrefix    = "delta.task."
	resultPrefix  = "delta.res."
)

// JournalSubject is the subject of run's mirrored journal.
func JournalSubject(run string) string { return journalPrefix + run }

// InboxSubject is the subject messages for run are queued on.
func InboxSubject(run string) string { return inboxPrefix + run }

// ControlSubject is the subject run's holder answers stop requests on.
func ControlSubject(run string) string { return controlPrefix + run }

// TaskSubject is the subject of queue's tasks.
func TaskSubject(queue string) string { return taskPrefix + queue }

// ResultSubject is the subject of task's result in batch.
func ResultSubject(batch, task string) string { return resultPrefix + batch + "." + task }

// ResultsOf is the subject filter of every result of batch. A task id is
// one token (CheckTaskID), so "*" keeps out the results of a batch whose
// id extends this one's ("b1.x").
func ResultsOf(batch string) string { return resultPrefix + batch + ".*" }

// A workflow instance's board (its channel, inbox cursors, proposals and
// documents) lives in a stream and a key-value bucket of its own, created
// by the controller that starts it, so that deleting an instance deletes
// two things. Instance names hold only [A-Za-z0-9_-] (board.ValidName),
// usable as they are in stream, bucket and subject names.

// BoardStream is the stream of instance's channel: one message per
// entry, the stream sequence being the entry's seq.
func BoardStream(instance string) string { return "DELTA_BOARD_" + instance }

// BoardSubject is the subject of instance's channel entries.
func BoardSubject(instance string) string { return "delta.board." + instance }

// BoardBucket is the bucket of instance's configuration, state records
// and documents.
func BoardBucket(instance string) string { return "delta_board_" + instance }

// BoardLockKey is the key in LeaseBucket of one of instance's locks.
func BoardLockKey(instance, lock string) string { return "board." + instance + "." + lock }

// WorkflowLeaseKey is the key in LeaseBucket of the lease the controller
// of a workflow instance whose board is in the cluster holds: one
// controller per instance, whatever host it runs on.
func WorkflowLeaseKey(instance string) string { return "workflow." + instance }

// LeaseKey is the key of run's lease in LeaseBucket.
func LeaseKey(run string) string { return "run." + run }

// CheckName returns an error when name cannot be a run id, batch id,
// task id or queue name in a cluster: empty, a character outside
// [A-Za-z0-9._-], or a dot at either end or two in a row (an empty
// subject token).
func CheckName(kind, name string) error {
	if name == "" {
		return fmt.Errorf("%s is empty", kind)
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return fmt.Errorf("%s %q holds %q: use only letters, digits, '.', '_' and '-'", kind, name, c)
		}
	}
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return fmt.Errorf("%s %q has an empty part between dots: a cluster name cannot start or end with '.' or hold '..'", kind, name)
	}
	return nil
}
