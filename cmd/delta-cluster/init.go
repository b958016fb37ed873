package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
)

// InitCmd creates (or brings to Delta's settings) the cluster's streams,
// buckets and object stores.
type InitCmd struct {
	ClusterFlags
	Replicas int           `help:"Copies of every stream and bucket (default: 3 when the server reports a cluster of 3 nodes or more, else 1)." placeholder:"N"`
	LeaseTTL time.Duration `name:"lease-ttl" help:"How long a run's lease outlives its holder's last renewal (default: the cluster's current TTL, 30s on a new cluster)." placeholder:"DUR"`
	Wait     time.Duration `default:"60s" help:"How long to wait for the cluster's JetStream to answer (a forming cluster elects its leader first)." placeholder:"DUR"`
}

// Help is the verb's manual text.
func (c *InitCmd) Help() string {
	return `Creates DELTA_JOURNAL, DELTA_INBOX, DELTA_TASKS and DELTA_RESULTS, the buckets delta_runs, delta_leases, delta_workers and delta_batches, and the object stores delta_io, delta_agents and delta_snapshots, on file storage with the given replicas. It is idempotent: run again, it changes nothing already right, and it can raise the replicas of an existing cluster. A single "delta cluster serve" runs it itself; a cluster of several nodes needs it once, after its nodes are up. It prints what it found and created as one JSON object.`
}

// initReport is what init prints.
type initReport struct {
	Replicas  int             `json:"replicas"`
	LeaseTTL  string          `json:"lease_ttl"`
	Resources []initResources `json:"resources"`
}

type initResources struct {
	cluster.Resource
	Created bool `json:"created"`
}

// Run connects, creates what is missing and prints the report.
func (c *InitCmd) Run(std cli.Stdio) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.Wait+30*time.Second)
	defer cancel()
	cl, err := adminConnect(ctx, c.ClusterFlags, "delta cluster init")
	if err != nil {
		return err
	}
	defer cl.Close()
	wctx, wcancel := context.WithTimeout(ctx, c.Wait)
	err = cl.Ready(wctx)
	wcancel()
	if err != nil {
		return cli.WithCode(cli.ExitUsage, "wait until every node of the cluster is up (or raise --wait), then run init again", err)
	}
	s := cluster.Settings{Replicas: c.Replicas, LeaseTTL: c.LeaseTTL}
	if s.Replicas == 0 {
		n := knownServers(cl)
		s.Replicas = 1
		if n >= 3 {
			s.Replicas = 3
		}
		fmt.Fprintf(std.Err, "delta-cluster: %d replicas: the cluster announces %d server(s) (--replicas N to choose)\n", s.Replicas, n)
	}
	if s.LeaseTTL == 0 {
		if ttl, err := cl.LeaseTTL(ctx); err == nil {
			s.LeaseTTL = ttl
		} else {
			s.LeaseTTL = cluster.DefaultLeaseTTL
		}
	}
	rep := initReport{Replicas: s.Replicas, LeaseTTL: s.LeaseTTL.String()}
	for _, r := range cluster.Inventory() {
		_, err := cl.JS.Stream(ctx, r.Stream)
		rep.Resources = append(rep.Resources, initResources{Resource: r, Created: err != nil})
	}
	if err := cl.Init(ctx, s); err != nil {
		return cli.WithCode(cli.ExitUsage, fmt.Sprintf("--replicas %d needs that many nodes with JetStream in the cluster; see `delta cluster status`", s.Replicas), err)
	}
	out, _ := json.Marshal(rep)
	_, err = fmt.Fprintf(std.Out, "%s\n", out)
	return err
}

// localNode is the URL of a `delta cluster serve` with its default --listen.
const localNode = "nats://127.0.0.1:4222"

// adminConnect connects to the cluster the flags name, for the cluster's
// own verbs (init, status); with none named, to a node serving on this
// host with the default address.
func adminConnect(ctx context.Context, f ClusterFlags, who string) (*cluster.Cluster, error) {
	if f.Cluster == "" {
		f.Cluster = localNode
	}
	return f.connect(ctx, who)
}

// knownServers counts the distinct servers this connection knows: the
// one it dialled and those the cluster announced (INFO connect_urls).
func knownServers(cl *cluster.Cluster) int {
	seen := map[string]bool{}
	for _, s := range cl.NC.Servers() {
		u, err := url.Parse(s)
		if err != nil {
			continue
		}
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil {
			continue
		}
		if host == "localhost" {
			host = "127.0.0.1"
		}
		seen[net.JoinHostPort(host, port)] = true
	}
	return len(seen)
}
