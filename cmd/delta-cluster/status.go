package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/nats-io/nats.go/jetstream"
)

// StatusCmd reports on a cluster: its nodes, each Delta stream's leader
// and size, the registered workers and the leases held.
type StatusCmd struct {
	ClusterFlags
	JSON bool `name:"json" help:"Print one JSON object instead of the tables."`
}

// Help is the verb's manual text.
func (c *StatusCmd) Help() string {
	return `Shows the nodes (the server this connection reached, the servers the cluster announces, and the peers of each stream, with the streams each leads and any replica that is offline or lagging), every Delta stream, bucket and object store (messages, leader, replicas current), the workers registered in delta_workers (name, host, queue, slots, busy) and the leases held in delta_leases (runs and tasks, and who holds them). Without --cluster it asks a node serving on this host at the default address.`
}

type statusReport struct {
	Connected string         `json:"connected"` // the server this connection reached
	Cluster   string         `json:"cluster,omitempty"`
	Servers   []string       `json:"servers"` // client URLs the cluster announces (INFO connect_urls)
	Nodes     []nodeStatus   `json:"nodes"`
	Streams   []streamStatus `json:"streams"`
	Workers   []workerStatus `json:"workers"`
	Leases    []leaseStatus  `json:"leases"`
}

type nodeStatus struct {
	Name    string `json:"name"`
	Leads   int    `json:"leads"`   // Delta streams it is the leader of
	Lagging int    `json:"lagging"` // replicas it holds that are not current
	Offline bool   `json:"offline,omitempty"`
}

type streamStatus struct {
	cluster.Resource
	Missing  bool          `json:"missing,omitempty"` // not created: run init
	Messages uint64        `json:"messages"`
	Bytes    uint64        `json:"bytes"`
	Leader   string        `json:"leader,omitempty"`
	Replicas []replicaInfo `json:"replicas,omitempty"` // the followers
}

type replicaInfo struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	Offline bool   `json:"offline,omitempty"`
	Lag     uint64 `json:"lag,omitempty"`
}

// workerStatus is a delta_workers entry as `delta worker` writes it.
type workerStatus struct {
	Key   string `json:"key"`
	Name  string `json:"name"`
	Host  string `json:"host"`
	Queue string `json:"queue"`
	Slots int    `json:"slots"`
	Busy  int    `json:"busy"`
	PID   int    `json:"pid"`
	Raw   string `json:"raw,omitempty"` // a value that is not that JSON
}

type leaseStatus struct {
	Key string `json:"key"`
	cluster.Holder
	Age string `json:"age"` // since the last renewal
	Raw string `json:"raw,omitempty"`
}

// Run gathers the report and prints it.
func (c *StatusCmd) Run(std cli.Stdio) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := adminConnect(ctx, c.ClusterFlags, "delta cluster status")
	if err != nil {
		return err
	}
	defer cl.Close()
	rep := statusReport{Connected: cl.NC.ConnectedServerName(), Cluster: cl.NC.ConnectedClusterName(), Servers: cl.NC.Servers()}
	for _, r := range cluster.Inventory() {
		st, err := streamOf(ctx, cl, r)
		if err != nil {
			return err
		}
		rep.Streams = append(rep.Streams, st)
	}
	rep.Nodes = nodesOf(rep, cl.NC.ConnectedServerName())
	if rep.Workers, err = workersOf(ctx, cl); err != nil {
		return err
	}
	if rep.Leases, err = leasesOf(ctx, cl); err != nil {
		return err
	}
	if c.JSON {
		out, _ := json.Marshal(rep)
		_, err = fmt.Fprintf(std.Out, "%s\n", out)
		return err
	}
	return printStatus(std.Out, rep, knownServers(cl))
}

// streamOf reads one resource's stream info.
func streamOf(ctx context.Context, cl *cluster.Cluster, r cluster.Resource) (streamStatus, error) {
	out := streamStatus{Resource: r}
	s, err := cl.JS.Stream(ctx, r.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		out.Missing = true
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("cluster status: stream %s: %w", r.Stream, err)
	}
	info := s.CachedInfo()
	out.Messages, out.Bytes = info.State.Msgs, info.State.Bytes
	if ci := info.Cluster; ci != nil {
		out.Leader = ci.Leader
		for _, p := range ci.Replicas {
			out.Replicas = append(out.Replicas, replicaInfo{Name: p.Name, Current: p.Current, Offline: p.Offline, Lag: p.Lag})
		}
	}
	return out, nil
}

// nodesOf collects the nodes the streams name (leaders and followers)
// and the one this connection reached.
func nodesOf(rep statusReport, connected string) []nodeStatus {
	byName := map[string]*nodeStatus{}
	get := func(name string) *nodeStatus {
		if byName[name] == nil {
			byName[name] = &nodeStatus{Name: name}
		}
		return byName[name]
	}
	if connected != "" {
		get(connected)
	}
	for _, s := range rep.Streams {
		if s.Leader != "" {
			get(s.Leader).Leads++
		}
		for _, r := range s.Replicas {
			n := get(r.Name)
			if r.Offline {
				n.Offline = true
			} else if !r.Current {
				n.Lagging++
			}
		}
	}
	var out []nodeStatus
	for _, n := range byName {
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// workersOf lists delta_workers: every live worker, as it registered.
func workersOf(ctx context.Context, cl *cluster.Cluster) ([]workerStatus, error) {
	var out []workerStatus
	err := eachKey(ctx, cl, cluster.WorkerBucket, func(e jetstream.KeyValueEntry) {
		w := workerStatus{Key: e.Key()}
		if json.Unmarshal(e.Value(), &w) != nil {
			w.Raw = string(e.Value())
		}
		w.Key = e.Key()
		out = append(out, w)
	})
	return out, err
}

// leasesOf lists delta_leases: the runs and tasks held now.
func leasesOf(ctx context.Context, cl *cluster.Cluster) ([]leaseStatus, error) {
	var out []leaseStatus
	err := eachKey(ctx, cl, cluster.LeaseBucket, func(e jetstream.KeyValueEntry) {
		l := leaseStatus{Key: e.Key(), Age: time.Since(e.Created()).Round(time.Second).String()}
		if json.Unmarshal(e.Value(), &l.Holder) != nil {
			l.Raw = string(e.Value())
		}
		out = append(out, l)
	})
	return out, err
}

// eachKey calls fn with the latest entry of every key of bucket; a
// bucket not created yet has none.
func eachKey(ctx context.Context, cl *cluster.Cluster, bucket string, fn func(jetstream.KeyValueEntry)) error {
	kv, err := cl.JS.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cluster status: bucket %s: %w", bucket, err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return fmt.Errorf("cluster status: list %s: %w", bucket, err)
	}
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue // expired or deleted since it was listed
		}
		fn(e)
	}
	return nil
}
