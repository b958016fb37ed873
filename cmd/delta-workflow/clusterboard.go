package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow"
	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/natsstore"
)

// clusterBoard names a cluster whose copy of an instance's board a
// command uses instead of the files here. Only --cluster selects it (not
// DELTA_CLUSTER, which a worker sets for everything it starts): a command
// without it runs no cluster code and attempts no connection.
type clusterBoard struct {
	Cluster      string `name:"cluster" help:"Use the board of the instance kept in the cluster at URL (nats://HOST:PORT, see delta-cluster(7)) instead of the files here." placeholder:"URL"`
	ClusterCreds string `name:"cluster-creds" help:"A NATS credentials file for --cluster." type:"path" placeholder:"FILE"`
}

// connect connects to the cluster --cluster names.
func (cb clusterBoard) connect(ctx context.Context, who string) (*cluster.Cluster, error) {
	c, err := cluster.Connect(ctx, cluster.Options{URL: cb.Cluster, Creds: cb.ClusterCreds, Name: who})
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "start a node with `delta cluster serve`, or check the --cluster URL", err)
	}
	return c, nil
}

// openBoard opens the instance's board: in the cluster with --cluster,
// else the one the instance's files name (its own, or its cluster's).
func openBoard(cb clusterBoard, dir, instance string) (board.Provider, error) {
	if cb.Cluster == "" {
		d, err := instanceDir(dir, instance)
		if err != nil {
			return nil, err
		}
		return openInstance(d)
	}
	if dir != "" {
		return nil, cli.Errorf(cli.ExitUsage, "", "--dir names an instance's files, --cluster one in the cluster: give one of them")
	}
	if instance == "" {
		instance = "default"
	}
	return openClusterInstance(cb, instance)
}

// openClusterInstance opens instance's board in the cluster cb names; the
// provider's Close closes the connection too.
func openClusterInstance(cb clusterBoard, instance string) (board.Provider, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cluster.TransientWait+time.Minute)
	defer cancel()
	c, err := cb.connect(ctx, "delta workflow "+instance)
	if err != nil {
		return nil, err
	}
	p, err := natsstore.Open(ctx, c, instance, board.Config{})
	if err != nil {
		c.Close()
		hint := ""
		if errors.Is(err, board.ErrNotFound) {
			hint = "delta workflow start FILE --cluster URL --instance " + instance + " creates it"
		}
		return nil, cli.WithCode(runs.ExitFailed, hint, err)
	}
	return withConn{p, c}, nil
}

// withConn is a cluster board that closes its connection with it.
type withConn struct {
	board.Provider
	c *cluster.Cluster
}

func (w withConn) Close() error {
	err := w.Provider.Close()
	w.c.Close()
	return err
}

// controllerLease takes the cluster's lease of the instance's controller,
// so that two hosts never drive one instance (each would deliver every
// message again). A standby waits for the lease instead of being refused:
// it takes over when the controller stops or its lease lapses. It returns
// a context cancelled if the lease is lost (the cluster unreachable past
// its TTL: another controller may take over), and the lease's release.
func controllerLease(ctx context.Context, cl *cluster.Cluster, instance string, standby bool, stderr io.Writer) (context.Context, func(), error) {
	lease, err := acquireController(ctx, cl, instance, stderr)
	var held *cluster.HeldError
	for waited := false; standby && errors.As(err, &held); {
		if !waited {
			fmt.Fprintf(stderr, "delta-workflow: standby (pid %d): instance %s is driven by %s (pid %d); taking over when it stops or its lease lapses (within %s)\n",
				os.Getpid(), instance, held.Holder.Host, held.Holder.PID, held.Expires.Round(time.Second))
			waited = true
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(min(max(held.Expires, 100*time.Millisecond), time.Second)):
		}
		if lease, err = acquireController(ctx, cl, instance, stderr); err == nil {
			fmt.Fprintf(stderr, "delta-workflow: instance %s: took over as its controller\n", instance)
		}
	}
	if errors.As(err, &held) {
		return nil, nil, cli.Errorf(runs.ExitFailed,
			fmt.Sprintf("stop it there (delta workflow stop @%s on %s), use another --instance, or start this one as a standby (delta workflow start); a controller that died holds it for %s at most", instance, held.Holder.Host, held.Expires.Round(time.Second)),
			"%v: instance %s is driven by %s (pid %d) since %s", workflow.ErrInstanceBusy, instance, held.Holder.Host, held.Holder.PID, held.Holder.Since)
	}
	if err != nil {
		return nil, nil, cli.WithCode(runs.ExitFailed, "", fmt.Errorf("instance %s: the controller's lease: %w", instance, err))
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-lease.Lost():
			fmt.Fprintf(stderr, "delta-workflow: instance %s: the controller's lease was lost (%v): stopping\n", instance, lease.Err())
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel()
		rctx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = lease.Release(rctx)
	}, nil
}

// acquireController takes the controller's lease once; a lease held by a
// controller of this host that died (kill -9) is broken first, as it
// would block a restart for the rest of its TTL.
func acquireController(ctx context.Context, cl *cluster.Cluster, instance string, stderr io.Writer) (*cluster.Lease, error) {
	lease, err := cl.Acquire(ctx, cluster.WorkflowLeaseKey(instance), cluster.Holder{})
	var held *cluster.HeldError
	if errors.As(err, &held) && deadHere(held.Holder) {
		if broke, berr := cl.Break(ctx, held); berr == nil && broke {
			fmt.Fprintf(stderr, "delta-workflow: instance %s: the lease of its controller pid %d, which is gone, was released\n", instance, held.Holder.PID)
			lease, err = cl.Acquire(ctx, cluster.WorkflowLeaseKey(instance), cluster.Holder{})
		}
	}
	return lease, err
}

// deadHere reports whether h is a process of this host that no longer
// runs (gone, a zombie, or its pid now another program's). A pid reused
// by another delta-workflow counts as alive: the lease is then left to
// expire.
func deadHere(h cluster.Holder) bool {
	host, err := os.Hostname()
	if err != nil || h.Host != host || h.PID <= 0 {
		return false
	}
	alive, err := runs.Alive(&runs.Metadata{PID: h.PID, ProcessName: "delta-workflow"})
	return err == nil && !alive
}
