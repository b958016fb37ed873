package main

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// chaos injects random faults into a three-node cluster and its workers,
// from one seeded source, keeping a majority of nodes alive: at most one
// node is down or isolated at a time.
type chaos struct {
	t       *testing.T
	rng     *rand.Rand
	three   *clustertest.Three
	environ []string
	root    string
	queue   string

	workers  map[string]*proc // running workers by name
	dead     []string         // SIGKILLed workers not restarted yet
	down     int              // the killed node, -1: none
	isolated int              // the isolated node, -1: none
	faults   map[string]int   // injected faults and repairs by kind
}

func newChaos(t *testing.T, seed int64, three *clustertest.Three, environ []string, root, queue string) *chaos {
	return &chaos{t: t, rng: rand.New(rand.NewSource(seed)), three: three, environ: environ, root: root, queue: queue,
		workers: map[string]*proc{}, down: -1, isolated: -1, faults: map[string]int{}}
}

// startWorker starts worker name (again: same name, same root, as a
// restarted host's worker would be).
func (c *chaos) startWorker(name string) {
	c.workers[name] = start(c.t, c.environ, "worker", "--queue", c.queue, "--slots", "2", "--ack-wait", "3s",
		"--name", name, "--root", filepath.Join(c.root, name))
}

// step injects or repairs one fault, chosen at random.
func (c *chaos) step() {
	c.reap()
	switch c.rng.Intn(4) {
	case 0:
		c.nodeFault()
	case 1:
		if len(c.workers) > 0 {
			names := c.names()
			name := names[c.rng.Intn(len(names))]
			p := c.workers[name]
			// It may have exited by itself since reap: then the kill
			// finds it gone, which is as good.
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			p.wait(c.t)
			delete(c.workers, name)
			c.dead = append(c.dead, name)
			c.record("worker SIGKILL " + name)
		}
	case 2:
		if len(c.dead) > 0 {
			i := c.rng.Intn(len(c.dead))
			name := c.dead[i]
			c.dead = append(c.dead[:i], c.dead[i+1:]...)
			c.startWorker(name)
			c.record("worker restart " + name)
		}
	}
}

// nodeFault repairs the node fault in place, or makes one.
func (c *chaos) nodeFault() {
	switch {
	case c.down >= 0:
		c.three.Restart(c.down)
		c.record(fmt.Sprintf("node restart %s", c.three.Name(c.down)))
		c.down = -1
	case c.isolated >= 0:
		c.three.Heal()
		c.record(fmt.Sprintf("node heal %s", c.three.Name(c.isolated)))
		c.isolated = -1
	case c.rng.Intn(2) == 0:
		c.down = c.rng.Intn(3)
		c.three.Kill(c.down)
		c.record(fmt.Sprintf("node kill %s", c.three.Name(c.down)))
	default:
		c.isolated = c.rng.Intn(3)
		c.three.Isolate(c.isolated)
		c.record(fmt.Sprintf("node isolate %s", c.three.Name(c.isolated)))
	}
}

// reap moves the workers that exited by themselves to the dead ones
// (a worker started while its node is cut off from the majority gives
// up at once: JetStream answers 503 when it creates its consumer).
func (c *chaos) reap() {
	for _, name := range c.names() {
		p := c.workers[name]
		select {
		case <-p.done:
			delete(c.workers, name)
			c.dead = append(c.dead, name)
			why := strings.TrimSpace(p.Stderr())
			if i := strings.LastIndexByte(why, '\n'); i >= 0 {
				why = why[i+1:]
			}
			c.record(fmt.Sprintf("worker exited %s by itself (exit %d): %s", name, p.cmd.ProcessState.ExitCode(), why))
		default:
		}
	}
}

// restartDead restarts every dead worker.
func (c *chaos) restartDead() {
	for _, name := range c.dead {
		c.startWorker(name)
		c.record("worker restart " + name)
	}
	c.dead = nil
}

// repairAll heals and restarts everything.
func (c *chaos) repairAll() {
	for c.down >= 0 || c.isolated >= 0 {
		c.nodeFault()
	}
	c.reap()
	c.restartDead()
}

func (c *chaos) names() []string {
	var out []string
	for n := range c.workers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// record counts a fault by kind (its first two words) and logs it.
func (c *chaos) record(what string) {
	f := strings.Fields(what)
	c.faults[f[0]+" "+f[1]]++
	c.t.Logf("%s chaos: %s", time.Now().Format("15:04:05.000"), what)
}
