package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
)

// stopClusterRuns stops the runs of the instance's agents that a cluster
// holds (agents on a queue, run by a worker): stopping the controller
// only stops its waiting for their tasks, and a worker's run would go
// on. It asks each run's holder through the cluster's control path, as
// `delta stop --run-id ID --cluster URL` does, and waits until the run is
// no longer RUNNING. The run ends INTERRUPTED; the worker records its
// task interrupted, so the next start of the instance continues the run
// (the interrupted tool call journaled as such, never run again). It
// returns the agents whose run it stopped. An instance whose board is not
// in a cluster has none.
func stopClusterRuns(dir string, agents []string, timeout time.Duration, stderr io.Writer) ([]string, error) {
	st, err := workflow.ReadState(dir)
	if err != nil || st.Cluster == "" {
		return nil, err
	}
	if agents == nil {
		ents, _ := os.ReadDir(filepath.Join(dir, workflow.AgentsDir))
		for _, e := range ents {
			if e.IsDir() {
				agents = append(agents, e.Name())
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+opTimeout)
	defer cancel()
	cl, err := (clusterBoard{Cluster: st.Cluster, ClusterCreds: os.Getenv("DELTA_CLUSTER_CREDS")}).connect(ctx, "delta workflow stop @"+st.Instance)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var stopped []string
	var errs []error
	for _, a := range agents {
		run := workflow.RunID(a, st.Instance)
		ok, err := stopClusterRun(ctx, cl, run, timeout)
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %s: %w", a, err))
			continue
		}
		if ok {
			fmt.Fprintf(stderr, "delta-workflow: run %s stopped on its worker\n", run)
			stopped = append(stopped, a)
		}
	}
	return stopped, errors.Join(errs...)
}

// stopClusterRun asks run's holder to stop it (SIGINT on its host) and
// waits up to timeout until the cluster's record of it is no longer
// RUNNING. It reports false when nobody holds the run now.
func stopClusterRun(ctx context.Context, cl *cluster.Cluster, run string, timeout time.Duration) (bool, error) {
	reply, err := cl.Control(ctx, run, cluster.ControlRequest{Op: "stop"}, 10*time.Second)
	if errors.Is(err, cluster.ErrNoHolder) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !reply.OK {
		if reply.Status != "" && reply.Status != string(runs.Running) {
			return false, nil // its holder is ending it already
		}
		return false, fmt.Errorf("run %s on %s: %s", run, reply.Host, reply.Error)
	}
	deadline := time.Now().Add(timeout)
	for {
		var m runs.Metadata
		data, err := cl.GetRun(ctx, run)
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err == nil && m.Status != runs.Running {
			return true, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return true, fmt.Errorf("run %s on %s did not stop within %s (delta stop --run-id %s --cluster URL --force kills it)", run, reply.Host, timeout, run)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
