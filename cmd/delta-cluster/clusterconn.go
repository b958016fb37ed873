package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// connect connects to the cluster the flags name. Every verb that cannot
// reach it fails the same way: exit 126 (nothing began), saying what to
// check.
func (f ClusterFlags) connect(ctx context.Context, name string) (*cluster.Cluster, error) {
	c, err := cluster.Connect(ctx, cluster.Options{URL: f.Cluster, Creds: f.ClusterCreds, Name: name})
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, "start a node with `delta cluster serve`, or name the cluster with --cluster nats://HOST:PORT (or DELTA_CLUSTER)", err)
	}
	return c, nil
}

// interruptContext is cancelled by SIGINT and SIGTERM.
func interruptContext() (context.Context, func()) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
