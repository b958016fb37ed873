package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"
)

// Workspace policies: how a run whose holder died continues elsewhere.
const (
	// SyncNone: it does not; its task starts a fresh attempt.
	SyncNone = "none"
	// SyncGit: the holder stores the workspace's change against the
	// task's base commit after each ACTION_RESULT; the next holder
	// clones the base, applies the last snapshot and continues the run.
	SyncGit = "git"
	// SyncShared: the workspace is on storage every worker mounts at
	// the same path; the next holder continues the run where it is.
	SyncShared = "shared"
)

// CheckSync refuses a workspace policy that is not one of the three
// ("" is none).
func CheckSync(policy string) error {
	switch policy {
	case "", SyncNone, SyncGit, SyncShared:
		return nil
	}
	return fmt.Errorf("workspace_sync %q: use none, git or shared", policy)
}

// Environment of a delta-run whose workspace is synchronised through git:
// its mirror (delta-cluster mirror) snapshots the workspace after each
// ACTION_RESULT when EnvSync is "git", diffing against EnvSyncBase.
const (
	EnvSync     = "DELTA_WORKSPACE_SYNC"
	EnvSyncBase = "DELTA_WORKSPACE_SYNC_BASE"
)

// snapshotName is the object holding run's snapshot at journal seq.
func snapshotName(run string, seq int) string { return run + "/" + strconv.Itoa(seq) }

// PutSnapshot stores patch, run's workspace change at journal seq (the
// seq of the ACTION_RESULT it follows).
func (c *Cluster) PutSnapshot(ctx context.Context, run string, seq int, patch []byte) error {
	obs, err := c.snapshotStore(ctx)
	if err != nil {
		return err
	}
	if _, err := obs.PutBytes(ctx, snapshotName(run, seq), patch); err != nil {
		return fmt.Errorf("store the workspace snapshot of run %s at event %d: %w", run, seq, err)
	}
	return nil
}

// GetSnapshot returns run's snapshot at seq; found is false when there is
// none (the holder died before storing it, or its storing failed).
func (c *Cluster) GetSnapshot(ctx context.Context, run string, seq int) (patch []byte, found bool, err error) {
	obs, err := c.snapshotStore(ctx)
	if err != nil {
		return nil, false, err
	}
	patch, err = obs.GetBytes(ctx, snapshotName(run, seq))
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("fetch the workspace snapshot of run %s at event %d: %w", run, seq, err)
	}
	return patch, true, nil
}

// DeleteSnapshot removes run's snapshot at seq, once a later one is
// stored and the journal holds the event that later one follows.
func (c *Cluster) DeleteSnapshot(ctx context.Context, run string, seq int) error {
	obs, err := c.snapshotStore(ctx)
	if err != nil {
		return err
	}
	err = obs.Delete(ctx, snapshotName(run, seq))
	if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("delete the workspace snapshot of run %s at event %d: %w", run, seq, err)
	}
	return nil
}

func (c *Cluster) snapshotStore(ctx context.Context) (jetstream.ObjectStore, error) {
	obs, err := c.JS.ObjectStore(ctx, SnapshotStore)
	if err != nil {
		return nil, fmt.Errorf("cluster object store %s: %w (run `delta cluster init` again: this store is newer than the cluster)", SnapshotStore, err)
	}
	return obs, nil
}
