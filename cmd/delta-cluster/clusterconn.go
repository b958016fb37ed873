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

// connectCluster connects to the cluster the flags name; a cluster that
// does not answer fails the command (exit 1), saying so.
func connectCluster(ctx context.Context, f ClusterFlags, name string) (*cluster.Cluster, error) {
	c, err := cluster.Connect(ctx, cluster.Options{URL: f.Cluster, Creds: f.ClusterCreds, Name: name})
	if err != nil {
		return nil, cli.WithCode(runs.ExitFailed, "", err)
	}
	return c, nil
}

// interruptContext is cancelled by SIGINT and SIGTERM.
func interruptContext() (context.Context, func()) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
