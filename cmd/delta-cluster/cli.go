package main

import (
	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/cli"
)

// CLI is delta-cluster's grammar. Each verb's type lives in its own file.
type CLI struct {
	cli.ManFlag

	Serve  ServeCmd  `cmd:"" help:"Run a cluster node: an embedded NATS server with JetStream and Delta's settings."`
	Init   InitCmd   `cmd:"" help:"Create the cluster's streams and buckets (idempotent)."`
	Status StatusCmd `cmd:"" help:"Show the cluster's nodes, stream leaders, workers and their slots."`

	Worker WorkerCmd `cmd:"" help:"Pull tasks from a queue and run each as an ordinary delta run."`
	Batch  BatchCmd  `cmd:"" help:"Submit a batch of tasks, follow it, collect its results."`

	Mirror   MirrorCmd   `cmd:"" hidden:"" help:"Internal: mirror a --cluster run for delta-run (not for users)."`
	Pull     PullCmd     `cmd:"" help:"Materialise a run's directory on this host from the cluster."`
	Send     SendCmd     `cmd:"" help:"Give a run anywhere in the cluster a message."`
	Stop     StopCmd     `cmd:"" help:"Stop a run anywhere in the cluster, as Ctrl-C does."`
	ListRuns ListRunsCmd `cmd:"" name:"list-runs" help:"List the runs the cluster holds."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-cluster runs Delta on more than one machine, on NATS JetStream. See delta-cluster(7) for what the cluster holds and what it guarantees.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "run Delta on more than one machine (NATS JetStream)"
	return nil
}

// ClusterFlags name the cluster; every verb but serve takes them.
type ClusterFlags struct {
	Cluster      string `name:"cluster" env:"DELTA_CLUSTER" help:"The cluster: nats://HOST:PORT[,nats://…] (tls:// for TLS)." placeholder:"URL"`
	ClusterCreds string `name:"cluster-creds" env:"DELTA_CLUSTER_CREDS" help:"A NATS credentials file for the cluster." type:"path" placeholder:"FILE"`
}
