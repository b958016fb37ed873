// Package node embeds a NATS server with Delta's profile: JetStream on
// file storage, every write synced to disk before it is acknowledged.
// It is the one package that links the NATS server; only `delta cluster
// serve` and the cluster tests import it.
package node

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Config is one node of a cluster.
type Config struct {
	Name     string // the server's name, unique in the cluster
	Listen   string // client address HOST:PORT; port 0: any free port
	StoreDir string // JetStream's directory
	// Cluster: the route address this node listens on for other nodes
	// (HOST:PORT, "" for a single node), the other nodes' route URLs, and
	// the cluster's name (default "delta").
	ClusterListen string
	Routes        []string
	ClusterName   string
	// ClusterAdvertise is the route address other nodes are told to
	// use, when it differs from ClusterListen (a proxy, a NAT).
	ClusterAdvertise string
	// Quiet turns the server's own log off.
	Quiet bool
	// LameDuck is how long a lame-duck shutdown takes to close the
	// node's clients (0: 5 s); the server's 2 min default suits a fleet
	// behind a load balancer, not a node stopped with Ctrl-C.
	LameDuck time.Duration
}

// Options turns c into the NATS server's options.
func (c Config) Options() (*server.Options, error) {
	host, port, err := hostPort(c.Listen, 4222)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", c.Listen, err)
	}
	o := &server.Options{
		ServerName: c.Name, Host: host, Port: port,
		JetStream: true, StoreDir: c.StoreDir,
		// Acknowledged means on disk: the default syncs every two
		// minutes, and a power loss of a majority would lose what it
		// acknowledged since.
		SyncAlways: true,
		NoSigs:     true, NoLog: c.Quiet,
	}
	o.LameDuckDuration = c.LameDuck
	if o.LameDuckDuration <= 0 {
		o.LameDuckDuration = 5 * time.Second
	}
	// Clients get a moment to notice the lame duck and move to another
	// node before their connections are closed.
	o.LameDuckGracePeriod = o.LameDuckDuration / 5
	if c.ClusterListen != "" && len(c.Routes) == 0 {
		// JetStream refuses to start clustered with nothing to route to.
		return nil, fmt.Errorf("a node of a cluster needs routes to the others (--routes nats://HOST:PORT,…); the same list, this node's own address included, can be given to every node")
	}
	if c.ClusterListen != "" {
		ch, cp, err := hostPort(c.ClusterListen, 6222)
		if err != nil {
			return nil, fmt.Errorf("cluster address %q: %w", c.ClusterListen, err)
		}
		o.Cluster.Name, o.Cluster.Host, o.Cluster.Port = c.ClusterName, ch, cp
		if o.Cluster.Name == "" {
			o.Cluster.Name = "delta"
		}
		o.Cluster.Advertise = c.ClusterAdvertise
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("route %q: want nats://HOST:PORT", r)
			}
			o.Routes = append(o.Routes, u)
		}
	} else if len(c.Routes) > 0 {
		return nil, fmt.Errorf("routes need a cluster address for this node too (--cluster-listen HOST:PORT)")
	}
	return o, nil
}

// Start starts the node and waits until it accepts clients.
func Start(c Config) (*server.Server, error) {
	o, err := c.Options()
	if err != nil {
		return nil, err
	}
	s, err := server.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("start cluster node: %w", err)
	}
	if !c.Quiet {
		s.ConfigureLogger()
	}
	s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("cluster node %s did not accept connections within 30 s", c.Name)
	}
	return s, nil
}

func hostPort(addr string, defPort int) (string, int, error) {
	if addr == "" {
		return "127.0.0.1", defPort, nil
	}
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("port %q is not a number", p)
	}
	if port == 0 {
		port = -1 // the server's "any free port"
	}
	return h, port, nil
}
