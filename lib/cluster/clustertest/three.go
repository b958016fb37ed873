package clustertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/node"
	"github.com/nats-io/nats-server/v2/server"
)

// Budget bounds every wait of the three-node harness: forming a cluster
// takes seconds on a loaded machine, and a test polls rather than sleeps.
const Budget = 60 * time.Second

// Three is an in-process cluster of three nodes whose routes pass through
// cuttable relays, for tests that kill, restart and partition nodes.
type Three struct {
	t     testing.TB
	nodes [3]*member

	mu       sync.Mutex
	isolated [3]bool
}

// member is one node: its fixed addresses (kept across restarts), its
// store, its relay and, while it runs, its server.
type member struct {
	name, store  string
	client       string // client HOST:PORT, fixed after the first start
	route        string // the real route HOST:PORT the relay forwards to
	relay        *relay
	mu           sync.Mutex
	srv          *server.Server
	routeAllowed func(string) bool
}

// StartThree starts three nodes n1..n3 in temp directories, waits until
// they form a cluster with a JetStream leader, runs Init with s (three
// replicas unless s says otherwise), waits until every Delta stream has
// all its replicas current, and stops everything when the test ends.
func StartThree(t testing.TB, s cluster.Settings) *Three {
	t.Helper()
	c := &Three{t: t}
	for i := range c.nodes {
		m := &member{name: "n" + strconv.Itoa(i+1), store: t.TempDir()}
		r, err := newRelay(m.routeAddr, c.allowFor(i))
		if err != nil {
			t.Fatal(err)
		}
		m.relay = r
		c.nodes[i] = m
	}
	t.Cleanup(c.stop)
	for i := range c.nodes {
		if err := c.start(i); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), Budget)
	defer cancel()
	if err := c.waitJetStream(ctx, 0, 1, 2); err != nil {
		t.Fatal(err)
	}
	if s.Replicas == 0 {
		s.Replicas = 3
	}
	if err := c.initWithRetry(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

func (m *member) routeAddr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.srv == nil {
		return ""
	}
	return m.route
}

func (m *member) server() *server.Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.srv
}

// allowFor says which route connections node i's relay lets through: none
// while i is isolated, none dialled by an isolated node.
func (c *Three) allowFor(i int) func(string) bool {
	return func(dialer string) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.isolated[i] {
			return false
		}
		for j, m := range c.nodes {
			if c.isolated[j] && m.id() == dialer {
				return false
			}
		}
		return true
	}
}

func (m *member) id() string {
	if s := m.server(); s != nil {
		return s.ID()
	}
	return ""
}

// start starts node i: on free ports the first time, on the same ports
// and store afterwards.
func (c *Three) start(i int) error {
	m := c.nodes[i]
	var routes []string
	for j, o := range c.nodes {
		if j != i {
			routes = append(routes, "nats://"+o.relay.addr())
		}
	}
	listen, clusterListen := m.client, m.route
	if listen == "" {
		listen, clusterListen = "127.0.0.1:0", "127.0.0.1:0"
	}
	srv, err := node.Start(node.Config{
		Name: m.name, Listen: listen, StoreDir: m.store, Quiet: os.Getenv("CLUSTERTEST_LOG") == "",
		ClusterListen: clusterListen, Routes: routes,
		// Other nodes learn the relay's address, never the real one.
		ClusterAdvertise: m.relay.addr(),
		LameDuck:         time.Second,
	})
	if err != nil {
		return fmt.Errorf("start %s: %w", m.name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.srv = srv
	m.client = strings.TrimPrefix(srv.ClientURL(), "nats://")
	if a := srv.ClusterAddr(); a != nil {
		m.route = net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return nil
}

func (c *Three) stop() {
	for _, m := range c.nodes {
		if s := m.server(); s != nil {
			s.Shutdown()
		}
		m.relay.close()
	}
}

// Name is node j's server name (n1, n2, n3).
func (c *Three) Name(j int) string { return c.nodes[j].name }

// URL is node j's client URL.
func (c *Three) URL(j int) string { return "nats://" + c.nodes[j].client }

// URLs is a client URL list naming the given nodes (all three when none).
func (c *Three) URLs(js ...int) string {
	if len(js) == 0 {
		js = []int{0, 1, 2}
	}
	var out []string
	for _, j := range js {
		out = append(out, c.URL(j))
	}
	return strings.Join(out, ",")
}

// Server is node j's running server, nil while it is killed.
func (c *Three) Server(j int) *server.Server { return c.nodes[j].server() }

// Kill shuts node j down at once (no lame duck), keeping its store.
func (c *Three) Kill(j int) {
	m := c.nodes[j]
	m.mu.Lock()
	srv := m.srv
	m.srv = nil
	m.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
	m.relay.cut(nil)
}

// Restart starts node j again on its ports and store and waits until
// every Delta stream has all its replicas current again.
func (c *Three) Restart(j int) {
	c.t.Helper()
	if err := c.start(j); err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Budget)
	defer cancel()
	if err := c.WaitCurrent(ctx); err != nil {
		c.t.Fatal(err)
	}
}

// Isolate cuts node j off from the other two: its relay refuses and
// closes every route, and the other relays close the routes j dialled.
// Its clients stay connected to it.
func (c *Three) Isolate(j int) {
	c.mu.Lock()
	c.isolated[j] = true
	c.mu.Unlock()
	id := c.nodes[j].id()
	for i, m := range c.nodes {
		if i == j {
			m.relay.cut(nil)
		} else {
			m.relay.cut(func(dialer string) bool { return dialer == id })
		}
	}
}

// Heal lets every route through again; the nodes reconnect by themselves.
func (c *Three) Heal() {
	c.mu.Lock()
	c.isolated = [3]bool{}
	c.mu.Unlock()
}
