package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
)

// served is one `delta-cluster serve` process started by a test.
type served struct {
	cmd   *exec.Cmd
	ready ready
}

// startServe runs delta-cluster serve with args and waits for its ready
// line (the process is killed when the test ends, if still running).
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	cmd := exec.Command(filepath.Join(clitest.BinDir(t), "delta-cluster"), append([]string{"serve"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Wait()
		t.Fatalf("serve printed no ready line: %v; stderr:\n%s", err, stderr.String())
	}
	s := &served{cmd: cmd}
	if err := json.Unmarshal([]byte(line), &s.ready); err != nil || !strings.HasPrefix(s.ready.URL, "nats://127.0.0.1:") {
		t.Fatalf("ready line %q: %v", line, err)
	}
	return s
}

// stop sends sig and returns the exit code.
func (s *served) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// deltaCluster runs delta-cluster args and decodes its JSON stdout into v.
func deltaCluster(t *testing.T, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(clitest.BinDir(t), "delta-cluster"), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("delta-cluster %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("delta-cluster %s printed %q: %v", strings.Join(args, " "), out, err)
	}
}

// One `serve` is a usable cluster at once: its streams exist (init after
// it creates nothing), status names it as every stream's leader, and
// SIGTERM stops it with exit 0; started again on its store it keeps what
// it had.
func TestServeSingleNode(t *testing.T) {
	store := t.TempDir()
	s := startServe(t, "--listen", "127.0.0.1:0", "--name", "s1", "--store", store)
	if s.ready.Name != "s1" || s.ready.Store != store {
		t.Fatalf("ready line %+v", s.ready)
	}
	var init initReport
	deltaCluster(t, &init, "init", "--cluster", s.ready.URL, "--lease-ttl", "5s")
	if init.Replicas != 1 || init.LeaseTTL != "5s" || len(init.Resources) != len(cluster.Inventory()) {
		t.Fatalf("init after serve: %+v", init)
	}
	for _, r := range init.Resources {
		if r.Created {
			t.Errorf("init after serve created %s: serve should have", r.Name)
		}
	}
	var st statusReport
	deltaCluster(t, &st, "status", "--cluster", s.ready.URL, "--json")
	if len(st.Nodes) != 1 || st.Nodes[0].Name != "s1" || st.Nodes[0].Leads != len(cluster.Inventory()) {
		t.Fatalf("status nodes: %+v", st.Nodes)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("serve exited %d on SIGTERM, want 0", code)
	}
	// Restarted on the same store, serve keeps the TTL init chose.
	s = startServe(t, "--listen", "127.0.0.1:0", "--name", "s1", "--store", store)
	deltaCluster(t, &init, "init", "--cluster", s.ready.URL)
	if init.LeaseTTL != "5s" {
		t.Fatalf("lease TTL after a restart: %s, want 5s", init.LeaseTTL)
	}
	if code := s.stop(t, syscall.SIGINT); code != 0 {
		t.Fatalf("serve exited %d on SIGINT, want 0", code)
	}
}

// Three serve processes form a cluster; none creates streams by itself,
// and init then picks three replicas.
func TestServeClusterOfThree(t *testing.T) {
	// Every node gets the same route list, its own address included, as
	// delta-cluster(7) says; route ports are fixed, so picked first.
	var addrs, routes []string
	for range 3 {
		a := freePort(t)
		addrs, routes = append(addrs, a), append(routes, "nats://"+a)
	}
	var nodes []*served
	for i, name := range []string{"a", "b", "c"} {
		nodes = append(nodes, startServe(t, "--listen", "127.0.0.1:0", "--name", name, "--store", t.TempDir(),
			"--cluster-listen", addrs[i], "--routes", strings.Join(routes, ",")))
	}
	if nodes[0].ready.Cluster != routes[0] {
		t.Fatalf("node a's ready line names route %q, want %q", nodes[0].ready.Cluster, routes[0])
	}
	waitAnnounced(t, nodes[1].ready.URL, 3)
	var init initReport
	deltaCluster(t, &init, "init", "--cluster", nodes[1].ready.URL, "--lease-ttl", "2s")
	if init.Replicas != 3 {
		t.Fatalf("init on three nodes chose %d replicas", init.Replicas)
	}
	for _, r := range init.Resources {
		if !r.Created {
			t.Errorf("%s existed before init: a node of a cluster must not create it", r.Name)
		}
	}
	var st statusReport
	deltaCluster(t, &st, "status", "--cluster", nodes[2].ready.URL, "--json")
	if len(st.Nodes) != 3 {
		t.Fatalf("status shows nodes %+v, want a, b and c", st.Nodes)
	}
	for _, s := range st.Streams {
		if s.Leader == "" || len(s.Replicas) != 2 {
			t.Errorf("stream %s: leader %q, followers %+v", s.Name, s.Leader, s.Replicas)
		}
	}
	for _, n := range nodes {
		if code := n.stop(t, syscall.SIGTERM); code != 0 {
			t.Fatalf("node %s exited %d on SIGTERM", n.ready.Name, code)
		}
	}
}

// waitAnnounced waits until the node at url announces n servers to its
// clients: the cluster has formed, as a user checks with status first.
func waitAnnounced(t *testing.T, url string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := cluster.Connect(ctx, cluster.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for knownServers(cl) < n {
		select {
		case <-ctx.Done():
			t.Fatalf("%s announces %v, want %d servers", url, cl.NC.Servers(), n)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freePort returns a free loopback address on a port below the kernel's
// ephemeral range, so no port-0 listener of another test can take it
// between this check and the node's listen.
func freePort(t *testing.T) string {
	t.Helper()
	for p := 20000 + rand.IntN(10000); ; p = 20000 + rand.IntN(10000) {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
}
