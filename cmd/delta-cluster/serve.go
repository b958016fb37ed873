package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/node"
	"github.com/nats-io/nats-server/v2/server"
)

// ServeCmd runs one cluster node in the foreground until SIGINT or SIGTERM.
type ServeCmd struct {
	Listen           string   `default:"127.0.0.1:4222" help:"The client address HOST:PORT (port 0: any free port). Anything but loopback needs --insecure: see SECURITY in delta-cluster(7)." placeholder:"HOST:PORT"`
	Name             string   `help:"The node's name, unique in its cluster (default: the host name)." placeholder:"N"`
	Store            string   `type:"path" help:"JetStream's directory, created if missing (default: $XDG_DATA_HOME/delta/cluster/NAME, else ~/.local/share/delta/cluster/NAME)." placeholder:"DIR"`
	ClusterListen    string   `name:"cluster-listen" help:"The route address HOST:PORT other nodes connect to, for a cluster of several nodes." placeholder:"HOST:PORT"`
	Routes           []string `sep:"," help:"The other nodes' route URLs (nats://HOST:PORT,…); needs --cluster-listen." placeholder:"URL,…"`
	ClusterAdvertise string   `name:"cluster-advertise" help:"The route address other nodes are told to use when it differs from --cluster-listen (a proxy, NAT)." placeholder:"HOST:PORT"`
	Insecure         bool     `help:"Listen beyond loopback without TLS or credentials (the embedded node has neither): anyone who reaches the port reads and writes every run."`
	Verbose          bool     `short:"v" help:"Print the server's log on stderr."`
}

// Help is the verb's manual text.
func (c *ServeCmd) Help() string {
	return `Starts an embedded NATS server with JetStream and Delta's settings (file storage, every write synced to disk before it is acknowledged) and keeps it running until SIGINT or SIGTERM, which shut it down cleanly (lame duck: leaders move to other nodes, clients are told to reconnect elsewhere) and exit 0.
When the node accepts clients it prints one JSON line on stdout: {"url":…,"name":…,"store":…}. A single node (no --cluster-listen, no --routes) creates the cluster's streams and buckets itself (one replica), so "delta cluster serve" alone is a working cluster. The nodes of a cluster of several do not: once all are up, run "delta cluster init --cluster URL" once (three replicas when three or more nodes answer).
The embedded node has no TLS and no credentials, so it refuses to listen beyond loopback unless --insecure is given: a cluster carries prompts, tool output and run records. Across machines, run a stock nats-server 2.11 or later with TLS and credentials instead (delta-cluster(7), SECURITY).`
}

// ready is the line serve prints once the node accepts clients.
type ready struct {
	URL     string `json:"url"`
	Name    string `json:"name"`
	Store   string `json:"store"`
	Cluster string `json:"cluster,omitempty"` // the route URL, several nodes only
}

// Run starts the node, prints its line, and serves until a signal.
func (c *ServeCmd) Run(std cli.Stdio) error {
	cfg, err := c.config()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.StoreDir, 0o700); err != nil {
		return cli.WithCode(cli.ExitUsage, "give a writable --store DIR", fmt.Errorf("create the node's store: %w", err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := node.Start(cfg)
	if err != nil {
		return err
	}
	single := cfg.ClusterListen == ""
	if single {
		if err := initSingle(ctx, srv, dialURL(srv)); err != nil {
			srv.Shutdown()
			return err
		}
	}
	line := ready{URL: dialURL(srv), Name: cfg.Name, Store: cfg.StoreDir}
	if a := srv.ClusterAddr(); !single && a != nil {
		line.Cluster = "nats://" + a.String() // what other nodes' --routes name
	}
	out, _ := json.Marshal(line)
	fmt.Fprintf(std.Out, "%s\n", out)
	if !single {
		fmt.Fprintf(std.Err, "delta-cluster: node %s is one node of a cluster: once every node is up, run `delta cluster init --cluster %s` once\n", cfg.Name, line.URL)
	}
	select {
	case <-ctx.Done():
		fmt.Fprintf(std.Err, "delta-cluster: node %s shutting down\n", cfg.Name)
		srv.LameDuckShutdown()
	case <-shutdown(srv):
		return fmt.Errorf("cluster node %s stopped by itself (run with -v for its log)", cfg.Name)
	}
	srv.WaitForShutdown()
	return nil
}

// config checks the flags and turns them into the node's configuration.
func (c *ServeCmd) config() (node.Config, error) {
	name := c.Name
	if name == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			return node.Config{}, cli.Errorf(cli.ExitUsage, "give the node a name with --name N", "no host name to name the node after: %v", err)
		}
		name = strings.SplitN(host, ".", 2)[0]
	}
	if strings.ContainsAny(name, " \t\n/\\") {
		return node.Config{}, cli.Errorf(cli.ExitUsage, "use letters, digits, '.', '_' and '-'", "node name %q holds a space or a slash", name)
	}
	for _, a := range []struct{ flag, addr string }{{"--listen", c.Listen}, {"--cluster-listen", c.ClusterListen}} {
		if a.addr != "" && !c.Insecure && !loopback(a.addr) {
			return node.Config{}, cli.Errorf(cli.ExitUsage,
				"listen on 127.0.0.1, or run a stock nats-server (2.11 or later) with TLS and credentials (delta-cluster(7), SECURITY), or pass --insecure on a network you trust",
				"%s %s is not a loopback address and the embedded node has no TLS or credentials: anyone who reaches it could read and write every run's prompts and tool output", a.flag, a.addr)
		}
	}
	store := c.Store
	if store == "" {
		var err error
		if store, err = defaultStoreDir(name); err != nil {
			return node.Config{}, err
		}
	}
	return node.Config{
		Name: name, Listen: c.Listen, StoreDir: store,
		ClusterListen: c.ClusterListen, Routes: c.Routes, ClusterAdvertise: c.ClusterAdvertise,
		Quiet: !c.Verbose,
	}, nil
}

// defaultStoreDir is $XDG_DATA_HOME/delta/cluster/NAME, else
// ~/.local/share/delta/cluster/NAME: a node's data outlives its runs.
func defaultStoreDir(name string) (string, error) {
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", cli.WithCode(cli.ExitUsage, "give a --store DIR or set XDG_DATA_HOME", fmt.Errorf("find the node's store: %w", err))
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "delta", "cluster", name), nil
}

// loopback reports whether addr (HOST:PORT) listens on loopback only. An
// empty host or 0.0.0.0 listens everywhere.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// dialURL is the node's client URL as a client on this host dials it: an
// address listening everywhere is reached on loopback.
func dialURL(srv *server.Server) string {
	u, err := url.Parse(srv.ClientURL())
	if err != nil {
		return srv.ClientURL()
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err == nil && (host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified()) {
		u.Host = net.JoinHostPort("127.0.0.1", port)
	}
	return u.String()
}

// initSingle creates a single node's streams and buckets, keeping a
// lease TTL an earlier `delta cluster init --lease-ttl` chose.
func initSingle(ctx context.Context, srv *server.Server, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c, err := cluster.Connect(ctx, cluster.Options{URL: url, Name: "delta cluster serve"})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Ready(ctx); err != nil {
		return fmt.Errorf("node %s: %w", srv.Name(), err)
	}
	ttl, err := c.LeaseTTL(ctx)
	if err != nil {
		ttl = 0 // a new store: Init's default
	}
	if err := c.Init(ctx, cluster.Settings{Replicas: 1, LeaseTTL: ttl}); err != nil {
		return fmt.Errorf("node %s: %w", srv.Name(), err)
	}
	return nil
}

// shutdown is closed when srv stops without being asked to.
func shutdown(srv *server.Server) <-chan struct{} {
	done := make(chan struct{})
	go func() { srv.WaitForShutdown(); close(done) }()
	return done
}
