package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// chaosAgent's tool appends "RUN CALL" to $MARKER and sleeps a little;
// the script calls it twice, so a run has two calls a fault can land in.
var chaosAgent = map[string]string{
	"agent.yaml": `name: chaos
llm:
  provider: scripted
  script: script.yaml
tools:
  - name: mark
    exec: "${AGENT_HOME}/mark.sh"
`,
	"mark.sh": `#!/bin/sh
echo "$DELTA_RUN_ID $DELTA_CALL_ID" >> "$MARKER"
sleep 0.3
`,
	"script.yaml": `turns:
  - tool_calls:
      - name: mark
        args: {}
  - tool_calls:
      - name: mark
        args: {}
  - content: done
`,
}

const chaosTasks = 6 // tasks per batch

// TestChaos is the randomized fault run (make chaos; never in make test
// or CI): for DELTA_CHAOS_DURATION (default 3m) it keeps batches running
// on three workers over a three-node cluster while killing, isolating
// and restarting nodes and SIGKILLing workers, from the seed
// DELTA_CHAOS_SEED (printed; default: the clock). Then it repairs
// everything, waits for the batches and checks the invariants: every
// mirrored journal's seq 1..n with an unbroken hash chain, each tool call
// run at most once, each batch task exactly one result.
func TestChaos(t *testing.T) {
	if os.Getenv("DELTA_CHAOS") != "1" {
		t.Skip("the randomized fault run: DELTA_CHAOS=1 (make chaos)")
	}
	duration, seed := chaosSettings(t)
	fmt.Fprintf(os.Stderr, "chaos: seed %d, duration %s (replay with DELTA_CHAOS_SEED=%d)\n", seed, duration, seed)
	t.Logf("chaos: seed %d, duration %s", seed, duration)
	three := clustertest.StartThree(t, cluster.Settings{LeaseTTL: 6 * time.Second})
	url := three.URLs()
	environ := env(t, url)
	root := t.TempDir()
	marker := filepath.Join(root, "marker")
	c := newChaos(t, seed, three, environ, root, "qc")
	for _, name := range []string{"w1", "w2", "w3"} {
		c.startWorker(name)
	}
	f := &feeder{environ: environ, bin: filepath.Join(clitest.BinDir(t), "delta-cluster"), agent: writeAgent(t, chaosAgent), marker: marker, tmp: t.TempDir(), cl: clustertest.Connect(t, url),
		base: gitBase(t), sync: map[string]string{}}
	stop := make(chan struct{})
	var fed sync.WaitGroup
	fed.Add(1)
	go func() { defer fed.Done(); f.feed(stop) }()
	end := time.Now().Add(duration)
	for time.Now().Before(end) {
		// The pause between faults is the schedule, not a readiness wait.
		time.Sleep(time.Duration(1000+c.rng.Intn(4000)) * time.Millisecond)
		c.step()
	}
	close(stop)
	fed.Wait()
	c.repairAll()
	batches := f.submitted()
	for _, b := range batches {
		poll(t, "batch "+b+" to finish", func() bool {
			// A worker restarted just after a heal may still have
			// given up on the cluster: start it again.
			c.reap()
			c.restartDead()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := f.cl.Status(ctx, b)
			return err == nil && s.Done == s.Total
		})
	}
	sum := chaosCheck(t, f.cl, environ, batches, marker, f.sync)
	t.Logf("chaos summary: seed %d; faults %v; submit errors %d; %s", seed, c.faults, f.errors(), sum)
}

func chaosSettings(t *testing.T) (time.Duration, int64) {
	duration := 3 * time.Minute
	if s := os.Getenv("DELTA_CHAOS_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			t.Fatalf("DELTA_CHAOS_DURATION=%q: give a positive duration such as 60s or 3m", s)
		}
		duration = d
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("DELTA_CHAOS_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DELTA_CHAOS_SEED=%q: give the integer a failed run printed", s)
		}
		seed = n
	}
	return duration, seed
}

// feeder keeps two batches unfinished at any time while the faults run.
// It runs on its own goroutine, so it reports errors instead of failing.
type feeder struct {
	environ             []string
	bin, agent, marker  string
	tmp                 string
	cl                  *cluster.Cluster
	base                string            // the git repository git-synced tasks clone
	sync                map[string]string // each batch's workspace policy
	mu                  sync.Mutex
	batches             []string
	failedSubmits, next int
}

func (f *feeder) feed(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(500 * time.Millisecond):
		}
		if f.unfinished() >= 2 {
			continue
		}
		f.next++
		b := fmt.Sprintf("c%03d", f.next)
		// A submit that fails during a fault is retried with the same
		// batch id, which queues only what it did not queue before.
		for !f.submit(b) {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// chaosSyncs are the workspace policies batches take in turn: a dead
// worker's task starts afresh (none) or its run is continued (git, shared).
var chaosSyncs = []string{"none", "git", "shared"}

func (f *feeder) submit(b string) bool {
	policy := chaosSyncs[f.next%len(chaosSyncs)]
	var tasks strings.Builder
	for i := 1; i <= chaosTasks; i++ {
		fmt.Fprintf(&tasks, `{"id":"t%d","message":"mark","env":{"MARKER":%q},"workspace":{"git":%q}}`+"\n", i, f.marker, f.base)
	}
	file := filepath.Join(f.tmp, b+".jsonl")
	if err := os.WriteFile(file, []byte(tasks.String()), 0o644); err != nil {
		return false
	}
	cmd := exec.Command(f.bin, "batch", "submit", file, "--agent", f.agent,
		"--queue", "qc", "--batch", b, "--max-attempts", "20", "--workspace-sync", policy)
	cmd.Env = f.environ
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := cmd.Run(); err != nil {
		f.failedSubmits++
		return false
	}
	if len(f.batches) == 0 || f.batches[len(f.batches)-1] != b {
		f.batches = append(f.batches, b)
		f.sync[b] = policy
	}
	return true
}

func (f *feeder) unfinished() int {
	n := 0
	for _, b := range f.submitted() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, err := f.cl.Status(ctx, b)
		cancel()
		if err != nil || s.Done < s.Total {
			n++
		}
	}
	return n
}

func (f *feeder) submitted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.batches...)
}

func (f *feeder) errors() int { f.mu.Lock(); defer f.mu.Unlock(); return f.failedSubmits }
