package clustertest

import (
	"context"
	"fmt"
	"time"

	"github.com/deltakit/delta/lib/cluster"
)

// poll calls try every 100 ms until it returns nil or ctx ends, and then
// returns try's last error.
func poll(ctx context.Context, what string, try func() error) error {
	for {
		err := try()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s within %s: %w", what, Budget, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// running lists the nodes that run now.
func (c *Three) running() []int {
	var out []int
	for j, m := range c.nodes {
		if m.server() != nil {
			out = append(out, j)
		}
	}
	return out
}

// runs reports whether the node named name runs now.
func (c *Three) runs(name string) bool {
	for _, m := range c.nodes {
		if m.name == name {
			return m.server() != nil
		}
	}
	return false
}

// dial connects to the running nodes for one of the harness's waits.
func (c *Three) dial(ctx context.Context, js ...int) (*cluster.Cluster, error) {
	if len(js) == 0 {
		js = c.running()
	}
	return cluster.Connect(ctx, cluster.Options{URL: c.URLs(js...), Name: "clustertest"})
}

// waitJetStream waits until each node named answers a JetStream request
// itself: the meta leader is elected and the node knows it.
func (c *Three) waitJetStream(ctx context.Context, js ...int) error {
	for _, j := range js {
		cl, err := c.dial(ctx, j)
		if err != nil {
			return err
		}
		// Each try is bounded: a request made before the meta leader
		// exists may get no answer at all.
		err = poll(ctx, "JetStream to answer", func() error {
			actx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			_, err := cl.JS.AccountInfo(actx)
			return err
		})
		cl.Close()
		if err != nil {
			return fmt.Errorf("node %s: %w", c.nodes[j].name, err)
		}
	}
	return nil
}

// initWithRetry runs Init until it succeeds: right after forming, the
// cluster may answer "JetStream system temporarily unavailable".
func (c *Three) initWithRetry(ctx context.Context, s cluster.Settings) error {
	cl, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	return poll(ctx, "initialise the cluster", func() error {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return cl.Init(actx, s)
	})
}

// WaitCurrent waits until every Delta stream, bucket and object store has
// a leader and all its replicas on running nodes, current.
func (c *Three) WaitCurrent(ctx context.Context) error {
	if err := c.waitJetStream(ctx, c.running()...); err != nil {
		return err
	}
	cl, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	for _, r := range cluster.Inventory() {
		err := poll(ctx, "all replicas of "+r.Stream+" current", func() error {
			actx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			s, err := cl.JS.Stream(actx, r.Stream)
			if err != nil {
				return err
			}
			ci := s.CachedInfo().Cluster
			if ci == nil || ci.Leader == "" {
				return fmt.Errorf("no leader")
			}
			for _, p := range ci.Replicas {
				if !c.runs(p.Name) {
					continue // killed: it catches up when restarted
				}
				if !p.Current || p.Offline {
					return fmt.Errorf("replica %s not current (lag %d)", p.Name, p.Lag)
				}
			}
			if want := s.CachedInfo().Config.Replicas - 1; len(ci.Replicas) != want {
				return fmt.Errorf("%d followers, want %d", len(ci.Replicas), want)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// StreamLeader returns the index of the node that leads stream name,
// waiting until it has a leader.
func (c *Three) StreamLeader(name string) int {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Budget)
	defer cancel()
	cl, err := c.dial(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	defer cl.Close()
	leader := -1
	err = poll(ctx, "find the leader of "+name, func() error {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		s, err := cl.JS.Stream(actx, name)
		if err != nil {
			return err
		}
		if ci := s.CachedInfo().Cluster; ci != nil {
			for j, m := range c.nodes {
				if m.name == ci.Leader {
					leader = j
					return nil
				}
			}
		}
		return fmt.Errorf("no leader yet")
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return leader
}
