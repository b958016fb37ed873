// Package clustertest starts in-process NATS servers for tests, ready
// when they return: one node (StartSingle), or three whose routes pass
// through relays a test can cut (StartThree: Kill, Restart, Isolate,
// Heal). CLUSTERTEST_LOG=1 prints the three nodes' logs.
package clustertest

import (
	"context"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/node"
	"github.com/nats-io/nats-server/v2/server"
)

// Single is a one-node cluster for a test, initialised with settings.
type Single struct {
	Server *server.Server
	URL    string
}

// StartSingle starts one node on a free loopback port with its store in
// a temp directory, runs Init with s, and stops the node when the test ends.
func StartSingle(t testing.TB, s cluster.Settings) *Single {
	t.Helper()
	srv, err := node.Start(node.Config{Name: "n1", Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	one := &Single{Server: srv, URL: srv.ClientURL()}
	c := Connect(t, one.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Init(ctx, s); err != nil {
		t.Fatal(err)
	}
	return one
}

// Connect connects to url for the test and closes the connection when it ends.
func Connect(t testing.TB, url string) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Connect(context.Background(), cluster.Options{URL: url, Name: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
