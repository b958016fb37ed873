package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/node"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/jsonl"
	"github.com/deltakit/delta/lib/runs"
)

// TestMirrorScripts drives delta-run --cluster and the remote verbs with
// the real binaries against an in-process node each script starts
// (startcluster), on loopback.
func TestMirrorScripts(t *testing.T) {
	p := clitest.Params(t, "testdata/script")
	for name, cmd := range map[string]func(*testscript.TestScript, bool, []string){
		"startcluster": cmdStartCluster, "stopcluster": cmdStopCluster, "signaltree": cmdSignalTree,
		"takeover": cmdTakeover, "waitfor": cmdWaitFor,
	} {
		p.Cmds[name] = cmd
	}
	p.Setup = withNodeSlot(p.Setup)
	testscript.Run(t, p)
}

const nodeKey = "delta-cluster-node"

// scriptNode is the node a script started; Values holds it.
type scriptNode struct{ srv *server.Server }

func withNodeSlot(setup func(*testscript.Env) error) func(*testscript.Env) error {
	return func(env *testscript.Env) error {
		env.Values[nodeKey] = &scriptNode{}
		return setup(env)
	}
}

// cmdStartCluster is `startcluster [LEASE-TTL]`: one node on a free
// loopback port, initialised, its URL in $CLUSTER.
func cmdStartCluster(ts *testscript.TestScript, neg bool, args []string) {
	ttl := 2 * time.Second
	if len(args) == 1 {
		d, err := time.ParseDuration(args[0])
		ts.Check(err)
		ttl = d
	}
	srv, err := node.Start(node.Config{Name: "n1", Listen: "127.0.0.1:0", StoreDir: ts.MkAbs(".nats"), Quiet: true})
	ts.Check(err)
	ts.Defer(srv.Shutdown)
	ts.Value(nodeKey).(*scriptNode).srv = srv
	c := connectT(ts, srv.ClientURL())
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ts.Check(c.Ready(ctx))
	ts.Check(c.Init(ctx, cluster.Settings{LeaseTTL: ttl}))
	ts.Setenv("CLUSTER", srv.ClientURL())
}

func connectT(ts *testscript.TestScript, url string) *cluster.Cluster {
	c, err := cluster.Connect(context.Background(), cluster.Options{URL: url, Name: "testscript"})
	ts.Check(err)
	return c
}

// cmdStopCluster is `stopcluster`: the node shuts down (a cluster gone).
func cmdStopCluster(ts *testscript.TestScript, neg bool, args []string) {
	n := ts.Value(nodeKey).(*scriptNode)
	if n.srv == nil {
		ts.Fatalf("stopcluster: no cluster started")
	}
	n.srv.Shutdown()
	n.srv.WaitForShutdown()
}

// cmdSignalTree is `signaltree STOP|CONT RUNDIR`: the signal to the run's
// process (metadata.json's pid) and every process below it (its mirror,
// its tools): a host that froze and thawed.
func cmdSignalTree(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: signaltree STOP|CONT RUNDIR")
	}
	sig := map[string]syscall.Signal{"STOP": syscall.SIGSTOP, "CONT": syscall.SIGCONT}[args[0]]
	if sig == 0 {
		ts.Fatalf("signaltree: unknown signal %s", args[0])
	}
	m, err := runs.ReadMetadata(ts.MkAbs(args[1]))
	ts.Check(err)
	for _, pid := range append([]int{m.PID}, descendants(m.PID)...) {
		_ = syscall.Kill(pid, sig)
	}
}

// descendants lists the processes below pid (from /proc).
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so cut after ')'.
		rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// cmdTakeover is `takeover RUN`: another holder takes RUN's lease once it
// expired (polling for up to a minute) and appends a line to its journal
// in the cluster, as a new host continuing the run would.
func cmdTakeover(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: takeover RUN")
	}
	run := args[0]
	c := connectT(ts, ts.Getenv("CLUSTER"))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var lease *cluster.Lease
	for lease == nil {
		l, err := c.Acquire(ctx, cluster.LeaseKey(run), cluster.Holder{Host: "other-host", PID: 1})
		if err == nil {
			lease = l
			break
		}
		if ctx.Err() != nil {
			ts.Fatalf("takeover: the lease of %s never expired: %v", run, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Defer(func() { _ = lease.Release(context.Background()) })
	w, err := c.OpenJournal(ctx, run, lease.Epoch())
	ts.Check(err)
	seq := w.LastSeq() + 1
	ev := journal.Event{Seq: int64(seq), Timestamp: time.Now().UTC(), Type: journal.UserMessage, Content: "taken over on other-host"}
	line, err := jsonl.Encode(&ev)
	ts.Check(err)
	line = bytes.TrimSuffix(line, []byte{'\n'})
	ts.Check(w.Append(ctx, line, seq))
	fmt.Fprintf(ts.Stdout(), "took over %s at seq %d\n", run, seq)
}

// cmdWaitFor is `waitfor PATH [TEXT]`: polls (up to two minutes) until
// the file exists and, with TEXT, holds it.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfor PATH [TEXT]")
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(2 * time.Minute)
	for {
		data, err := os.ReadFile(path)
		if err == nil && (len(args) == 1 || strings.Contains(string(data), args[1])) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor: %s never held %q (%d bytes)", args[0], strings.Join(args[1:], ""), len(data))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
