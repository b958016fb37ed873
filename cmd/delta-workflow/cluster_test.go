package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/natsstore"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestClusterScripts runs the testdata/cluster/*.txtar scenarios against
// the real binaries and one in-process cluster node, which $CLUSTER names
// (each script uses instances of its own). mkboard INSTANCE AGENT...
// creates an instance's board in it, as a controller starting it would.
func TestClusterScripts(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 10 * time.Second})
	c := clustertest.Connect(t, one.URL)
	p := clitest.Params(t, "testdata/cluster")
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if setup != nil {
			if err := setup(env); err != nil {
				return err
			}
		}
		env.Setenv("CLUSTER", one.URL)
		return nil
	}
	p.Cmds["waitfile"] = waitFile
	p.Cmds["waitgrep"] = waitGrep
	p.Cmds["mkboard"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: mkboard INSTANCE AGENT...")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pv, err := natsstore.Open(ctx, c, args[0], board.Config{Agents: args[1:]})
		ts.Check(err)
		ts.Check(pv.Close())
	}
	p.Cmds["waitchannel"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: waitchannel INSTANCE TEXT")
		}
		waitChannel(ts, c, args[0], args[1])
	}
	testscript.Run(t, p)
}

// waitChannel waits until a message of instance's channel in the cluster
// contains text.
func waitChannel(ts *testscript.TestScript, c *cluster.Cluster, instance, text string) {
	ctx, cancel := context.WithTimeout(context.Background(), waitDeadline)
	defer cancel()
	pv, err := natsstore.Open(ctx, c, instance, board.Config{})
	ts.Check(err)
	defer pv.Close()
	var last []board.Entry
	for ctx.Err() == nil {
		if last, err = pv.Read(ctx, board.ReadOptions{}); err == nil {
			for _, e := range last {
				if strings.Contains(e.Message, text) {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("waitchannel: no message of %s holds %q within %s; the channel: %v", instance, text, waitDeadline, last)
}
