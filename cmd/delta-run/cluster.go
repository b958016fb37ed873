package main

import (
	"os"
	"os/exec"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// clusterFlags name the cluster a command works through. Without them
// (and without DELTA_CLUSTER) nothing of the cluster runs: no mirror is
// started, no connection attempted.
type clusterFlags struct {
	Cluster      string `name:"cluster" env:"DELTA_CLUSTER" help:"Work through the cluster at URL (nats://HOST:PORT[,nats://…], tls:// for TLS; see delta-cluster(1)): the run may be on any host." placeholder:"URL"`
	ClusterCreds string `name:"cluster-creds" env:"DELTA_CLUSTER_CREDS" help:"A NATS credentials file for --cluster." type:"path" placeholder:"FILE"`
}

// mirroredFlags are run's and continue's cluster flags: the run is
// mirrored to the cluster while it runs here.
type mirroredFlags struct {
	clusterFlags   `embed:""`
	ClusterTimeout time.Duration `name:"cluster-timeout" env:"DELTA_CLUSTER_TIMEOUT" default:"30s" help:"With --cluster: how long the run waits for an unreachable cluster to store an event before it stops INTERRUPTED (it never runs a tool the cluster has not stored)."`
}

func (f clusterFlags) on() bool { return f.Cluster != "" }

// args are the flags that pass the cluster on to delta-cluster.
func (f clusterFlags) args() []string {
	a := []string{"--cluster", f.Cluster}
	if f.ClusterCreds != "" {
		a = append(a, "--cluster-creds", f.ClusterCreds)
	}
	return a
}

// clusterCommand is delta-cluster VERB with the cluster flags and args,
// found beside delta-run first (as the tool host is).
func (f clusterFlags) clusterCommand(verb string, args ...string) (*exec.Cmd, error) {
	bin, err := cli.FindCommand("delta-cluster")
	if err != nil {
		return nil, cli.Errorf(runs.ExitConfig, "install delta-cluster beside delta-run (make build puts both in bin/)",
			"--cluster needs delta-cluster, which was not found: %v", err)
	}
	cmd := exec.Command(bin, append(append([]string{verb}, f.args()...), args...)...)
	cmd.Env = os.Environ()
	return cmd, nil
}

// runClusterVerb runs delta-cluster VERB with the command's stdio and
// returns its exit as delta-run's: it prints the shapes the local verb
// prints and its own messages.
func (f clusterFlags) runClusterVerb(std cli.Stdio, verb string, args ...string) error {
	cmd, err := f.clusterCommand(verb, args...)
	if err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = std.In, std.Out, std.Err
	return cli.ChildExit("delta-cluster "+verb, cmd.Run())
}
