package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// EnvURL is the environment variable that names the cluster when no
// --cluster flag does.
const EnvURL = "DELTA_CLUSTER"

// Options says how to reach a cluster.
type Options struct {
	URL   string // nats://host:port[,nats://…]; tls:// for TLS
	Creds string // a NATS credentials file, "" for none
	Name  string // the connection's name, shown by the server
	// Timeout bounds the first connection; 0 means 5 s.
	Timeout time.Duration
}

// Cluster is a connection to a cluster and its JetStream context.
type Cluster struct {
	NC *nats.Conn
	JS jetstream.JetStream

	// leases is the lease bucket and its TTL, looked up once: every
	// Acquire needs them, and a workflow board takes a lease per write.
	leaseMu  sync.Mutex
	leaseKV  jetstream.KeyValue
	leaseTTL time.Duration
}

// Connect connects to the cluster o names. It fails at once, saying so,
// when no server answers: a command given --cluster never runs as if it
// had not been.
func Connect(ctx context.Context, o Options) (*Cluster, error) {
	if o.URL == "" {
		return nil, errors.New("no cluster named: pass --cluster nats://HOST:PORT or set DELTA_CLUSTER")
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	opts := []nats.Option{nats.Timeout(timeout), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}
	if o.Name != "" {
		opts = append(opts, nats.Name(o.Name))
	}
	if o.Creds != "" {
		if _, err := os.Stat(o.Creds); err != nil {
			return nil, fmt.Errorf("cluster credentials: %w", err)
		}
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to cluster %s: %w (is `delta cluster serve` running there?)", o.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster %s: %w", o.URL, err)
	}
	return &Cluster{NC: nc, JS: js}, nil
}

// Close drains nothing: pending publishes are the callers' to await.
func (c *Cluster) Close() { c.NC.Close() }

// Ready returns nil once the cluster's JetStream answers (a meta leader
// is elected and the account is enabled), polling until ctx ends.
func (c *Cluster) Ready(ctx context.Context) error {
	for {
		// Each try is bounded: a request made while the cluster has no
		// meta leader may get no answer at all, and would wait for all
		// of ctx.
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := c.JS.AccountInfo(actx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster JetStream not ready: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
