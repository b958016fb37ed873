package main

import (
	"encoding/json"
	"os"
	"os/exec"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// clusterBoard names a cluster whose copy of an instance's board the
// context commands use instead of the files here. Only --cluster selects
// it (not DELTA_CLUSTER, which a worker sets for everything it starts): a
// command without it touches no cluster. The cluster's side is
// delta-cluster board, which this command runs: only delta-cluster links
// the cluster client.
type clusterBoard struct {
	Cluster      string `name:"cluster" help:"Use the board of the instance kept in the cluster at URL (nats://HOST:PORT, see delta-cluster(1)) instead of the files here." placeholder:"URL"`
	ClusterCreds string `name:"cluster-creds" help:"A NATS credentials file for --cluster." type:"path" placeholder:"FILE"`
}

// boardCommand is delta-cluster board VERB for instance as who, with args.
func (cb clusterBoard) boardCommand(dir, instance, who, verb string, args ...string) (*exec.Cmd, error) {
	if dir != "" {
		return nil, cli.Errorf(cli.ExitUsage, "", "--dir names an instance's files, --cluster one in the cluster: give one of them")
	}
	if instance == "" {
		instance = "default"
	}
	bin, err := cli.FindCommand("delta-cluster")
	if err != nil {
		return nil, cli.Errorf(runs.ExitConfig, "install delta-cluster beside delta-workflow (make build puts both in bin/)",
			"--cluster needs delta-cluster, which was not found: %v", err)
	}
	argv := []string{"board", verb, "--cluster", cb.Cluster, "--instance", instance, "--as", who}
	if cb.ClusterCreds != "" {
		argv = append(argv, "--cluster-creds", cb.ClusterCreds)
	}
	cmd := exec.Command(bin, append(argv, args...)...)
	cmd.Env = os.Environ()
	return cmd, nil
}

// clusterCall runs one tool on the cluster's board and returns its text;
// delta-cluster's messages go to stderr as they are.
func (w where) clusterCall(std cli.Stdio, tool string, args map[string]any) (string, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	cmd, err := w.boardCommand(w.Dir, w.Instance, w.As, "call", tool, string(raw))
	if err != nil {
		return "", err
	}
	cmd.Stderr = std.Err
	out, err := cmd.Output()
	return string(out), cli.ChildExit("delta-cluster board call", err)
}
