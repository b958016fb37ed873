package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/mirror"
	"github.com/deltakit/delta/lib/runs"
)

// agree compares the cluster's copy of the run with the local journal
// and opens the writer that appends after it: a cluster copy that is a
// prefix of the local journal (none at all for a run that was local so
// far, a shorter one for a run stopped while the cluster was away) gets
// the missing lines first; one with more or other lines is a fork, which
// is refused. It returns the verb to refuse with on error.
func (m *mirrorRun) agree(ctx context.Context) (mirror.ReadyInfo, string, error) {
	run := m.cmd.RunID
	local, err := localLines(filepath.Join(m.cmd.RunDir, runs.JournalFile))
	if err != nil {
		return mirror.ReadyInfo{}, mirror.Refused, err
	}
	remote, err := clusterLines(ctx, m.c, run)
	if err != nil {
		return mirror.ReadyInfo{}, mirror.Error, err
	}
	if i := firstDifference(local, remote); i < len(remote) {
		return mirror.ReadyInfo{}, mirror.Refused, forkError(run, len(local), len(remote), i)
	}
	w, err := m.c.OpenJournal(ctx, run, m.lease.Epoch())
	if err != nil {
		return mirror.ReadyInfo{}, mirror.Error, err
	}
	w.Retry = m.cmd.Timeout
	if w.LastSeq() != len(remote) {
		return mirror.ReadyInfo{}, mirror.Refused, fmt.Errorf("run %s: the cluster's copy changed while it was read (another writer without the lease?): `delta pull %s` shows it", run, run)
	}
	m.w = w
	for i := len(remote); i < len(local); i++ {
		if err := w.Append(ctx, local[i], i+1); err != nil {
			return mirror.ReadyInfo{}, mirror.Error, fmt.Errorf("store the run's line %d in the cluster: %w", i+1, err)
		}
	}
	return mirror.ReadyInfo{Epoch: m.lease.Epoch(), ClusterLastSeq: len(remote), Backfilled: len(local) - len(remote)}, "", nil
}

// localLines reads the complete lines of a journal (a torn last line was
// repaired by delta-run before), checking that line i holds seq i+1.
func localLines(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the local journal: %w", err)
	}
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // a torn last line is not the run's yet
		}
		line := data[:i]
		data = data[i+1:]
		ev, err := journal.ParseLine(line)
		if err != nil {
			return nil, fmt.Errorf("local journal %s line %d: %w", path, len(lines)+1, err)
		}
		if ev.Seq != int64(len(lines)+1) {
			return nil, fmt.Errorf("local journal %s: line %d holds seq %d", path, len(lines)+1, ev.Seq)
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// clusterLines reads the cluster's copy of run, checking its chain.
func clusterLines(ctx context.Context, c *cluster.Cluster, run string) ([][]byte, error) {
	var lines [][]byte
	err := c.Replay(ctx, run, false, func(e cluster.Entry) error {
		lines = append(lines, e.Line)
		return nil
	})
	if errors.Is(err, cluster.ErrNoRun) {
		return nil, nil
	}
	return lines, err
}

// firstDifference is the index of the first line where a and b differ,
// or the length of the shorter when one is a prefix of the other.
func firstDifference(a, b [][]byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if !bytes.Equal(a[i], b[i]) {
			return i
		}
	}
	return n
}

// forkError says the two copies of a run went apart and which is longer.
func forkError(run string, local, remote, differ int) error {
	longer := "the cluster's copy is longer"
	switch {
	case local > remote:
		longer = "the local copy is longer"
	case local == remote:
		longer = "both have as many lines"
	}
	how := fmt.Sprintf("they differ from line %d", differ+1)
	if differ == local {
		how = "the cluster has lines the local journal lacks"
	}
	return fmt.Errorf("run %s forked: the local journal has %d lines, the cluster's copy %d; %s (%s). `delta pull %s -w DIR` shows the cluster's copy in another directory",
		run, local, remote, how, longer, run)
}
