package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// PullCmd materialises a run's directory on this host from the cluster.
type PullCmd struct {
	ClusterFlags `embed:""`
	RunID        string `arg:"" name:"run" help:"The run to pull." placeholder:"RUN"`
	WorkDir      string `short:"w" name:"work-dir" default:"." help:"The workspace to put .delta/RUN/ in." type:"path" placeholder:"DIR"`
	Follow       bool   `short:"f" help:"Keep appending the run's events as the cluster stores them, until the run ends."`
}

// Run pulls the run: journal.jsonl from the journal stream (its hash
// chain checked), metadata.json from delta_runs, io/ from delta_io.
func (c *PullCmd) Run(std cli.Stdio) error {
	if err := cluster.CheckName("run id", c.RunID); err != nil {
		return cli.WithCode(cli.ExitUsage, "", err)
	}
	ctx, stop := interruptContext()
	defer stop()
	cl, err := c.connect(ctx, "delta pull "+c.RunID)
	if err != nil {
		return err
	}
	defer cl.Close()
	return c.pull(ctx, cl, std.Err)
}

// pull writes the run's copy into WorkDir through cl.
func (c *PullCmd) pull(ctx context.Context, cl *cluster.Cluster, stderr io.Writer) error {
	runDir := filepath.Join(c.WorkDir, runs.ControlDir, c.RunID)
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return fmt.Errorf("pull run %s: %w", c.RunID, err)
	}
	j, err := openPulled(filepath.Join(runDir, runs.JournalFile), c.RunID)
	if err != nil {
		return err
	}
	defer j.close()
	meta, err := cl.GetRun(ctx, c.RunID)
	if err != nil && !errors.Is(err, cluster.ErrNoRun) {
		return err
	}
	if meta != nil && (c.Follow || !pulledBefore(runDir)) {
		// Written first: a follower reading the copy needs it.
		if err := writePulledMetadata(runDir, meta); err != nil {
			return err
		}
	}
	if err := c.pullJournal(ctx, cl, j); err != nil {
		return err
	}
	if err := pullIO(ctx, cl, c.RunID, runDir); err != nil {
		fmt.Fprintf(stderr, "delta-cluster: warning: %v\n", err)
	}
	if meta, err = cl.GetRun(ctx, c.RunID); err == nil {
		return writePulledMetadata(runDir, meta)
	}
	if errors.Is(err, cluster.ErrNoRun) {
		fmt.Fprintf(stderr, "delta-cluster: warning: the cluster holds no metadata.json of run %s; only its journal was pulled\n", c.RunID)
		return nil
	}
	return err
}

// pullJournal appends the lines the local copy lacks; with --follow it
// goes on until the run ends (runEnded).
func (c *PullCmd) pullJournal(ctx context.Context, cl *cluster.Cluster, j *pulledJournal) error {
	write := func(e cluster.Entry) error { return j.add(e) }
	if !c.Follow {
		err := cl.Replay(ctx, c.RunID, false, write)
		if err == nil {
			err = j.check()
		}
		return pullError(c.RunID, err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var target atomic.Int64 // the last seq once the run ended, 0 before
	go func() {
		last, err := runEnded(fctx, cl, c.RunID)
		if err != nil {
			return
		}
		target.Store(int64(max(last, 1)))
		if j.seq() >= last {
			cancel()
		}
	}()
	err := cl.Replay(fctx, c.RunID, true, func(e cluster.Entry) error {
		if err := write(e); err != nil {
			return err
		}
		if t := target.Load(); t > 0 && int64(e.Seq) >= t {
			return cluster.ErrStop
		}
		return nil
	})
	if fctx.Err() != nil && ctx.Err() == nil {
		err = nil // the run ended with every line pulled
	}
	return pullError(c.RunID, err)
}

// pullError says what a failed pull means.
func pullError(run string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cluster.ErrNoRun):
		return cli.WithCode(runs.ExitFailed, "list the cluster's runs with: delta list-runs --cluster URL", err)
	case errors.Is(err, context.Canceled):
		return cli.WithCode(runs.ExitInterrupted, "", fmt.Errorf("pull of run %s stopped", run))
	}
	return cli.WithCode(runs.ExitFailed, "", fmt.Errorf("pull run %s: %w", run, err))
}

// pulledBefore reports whether runDir holds a metadata.json already.
func pulledBefore(runDir string) bool {
	_, err := os.Stat(filepath.Join(runDir, runs.MetadataFile))
	return err == nil
}

// writePulledMetadata writes the cluster's metadata.json of the run.
func writePulledMetadata(runDir string, meta []byte) error {
	if !bytes.HasSuffix(meta, []byte{'\n'}) {
		meta = append(meta, '\n')
	}
	if err := atomicfile.Write(filepath.Join(runDir, runs.MetadataFile), meta, 0o644); err != nil {
		return fmt.Errorf("write the pulled metadata.json: %w", err)
	}
	return nil
}
