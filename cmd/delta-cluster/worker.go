package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// WorkerCmd is delta worker.
type WorkerCmd struct {
	ClusterFlags `embed:""`
	Queue        string        `required:"" help:"The queue to pull tasks from (delta batch submit --queue)." placeholder:"NAME"`
	Slots        int           `default:"1" help:"How many tasks run at once." placeholder:"N"`
	Root         string        `help:"Where task workspaces and agents go: ROOT/BATCH/RUN_ID/ (default: $$XDG_DATA_HOME/delta/worker, else ~/.local/share/delta/worker)." type:"path" placeholder:"DIR"`
	AckWait      time.Duration `name:"ack-wait" default:"60s" help:"How long a task stays with a worker that stopped heartbeating before the cluster gives it to another (the worker heartbeats every third of it). The queue's workers share it: the last started sets it." placeholder:"DUR"`
	Name         string        `help:"The worker's name in the cluster (default: HOST-PID)." placeholder:"NAME"`
}

// Run pulls tasks until SIGTERM (or SIGINT): the first stops pulling and
// lets the running tasks finish, a second interrupts them and hands
// their tasks back.
func (c *WorkerCmd) Run(std cli.Stdio) error {
	w, err := c.newWorker(std)
	if err != nil {
		return err
	}
	defer w.c.Close()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		<-sigs
		w.logf("draining: no new tasks; %d running finish (signal again to interrupt them)", w.busy.Load())
		close(w.drain)
		<-sigs
		w.logf("interrupting the running tasks; their tasks go back to the queue")
		w.interrupt()
	}()
	stopReg := w.register()
	w.logf("pulling from queue %s with %d slots (root %s)", w.queue, w.slots, w.root)
	w.loop()
	stopReg()
	w.logf("stopped")
	return nil
}

// worker is one delta worker process.
type worker struct {
	c                *cluster.Cluster
	cons             jetstream.Consumer
	std              cli.Stdio
	queue, name      string
	host, root       string
	slots            int
	ackWait, ttl     time.Duration
	clusterURL, cred string
	deltaRun         string

	busy      atomic.Int32
	busyMoved chan struct{} // a slot was taken or freed: renew the registration
	drain     chan struct{}
	interrupt context.CancelFunc
	stopped   context.Context // cancelled by a second signal: interrupt the tasks

	agentMu sync.Mutex // one unpack of an agent at a time
	logMu   sync.Mutex
}

func (c *WorkerCmd) newWorker(std cli.Stdio) (*worker, error) {
	if err := cluster.CheckName("queue", c.Queue); err != nil {
		return nil, cli.WithCode(cli.ExitUsage, "", fmt.Errorf("--queue: %w", err))
	}
	if c.Slots < 1 {
		return nil, cli.Errorf(cli.ExitUsage, "", "--slots %d: a worker needs at least 1 slot", c.Slots)
	}
	if c.AckWait < 3*time.Second/2 {
		return nil, cli.Errorf(cli.ExitUsage, "", "--ack-wait %s: give at least 1.5s (the worker heartbeats every third of it)", c.AckWait)
	}
	host, _ := os.Hostname()
	if c.Name == "" {
		c.Name = sanitizeName(host) + "-" + strconv.Itoa(os.Getpid())
	}
	if err := cluster.CheckName("worker name", c.Name); err != nil {
		return nil, cli.WithCode(cli.ExitUsage, "", fmt.Errorf("--name: %w", err))
	}
	root, err := workerRoot(c.Root)
	if err != nil {
		return nil, err
	}
	deltaRun, err := cli.FindCommand("delta-run")
	if err != nil {
		return nil, cli.Errorf(runs.ExitConfig, "install delta-run next to delta-cluster (make install does)", "delta worker runs tasks with delta-run: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := c.connect(ctx, "delta worker "+c.Name)
	if err != nil {
		return nil, err
	}
	w := &worker{c: cl, std: std, queue: c.Queue, name: c.Name, host: host, root: root, slots: c.Slots,
		ackWait: c.AckWait, clusterURL: c.Cluster, cred: c.ClusterCreds, deltaRun: deltaRun, drain: make(chan struct{}), busyMoved: make(chan struct{}, 1)}
	w.stopped, w.interrupt = context.WithCancel(context.Background())
	// A worker started while its node is cut off or just healed gets
	// "JetStream temporarily unavailable" (503): it waits that out as
	// every other cluster operation does, instead of exiting.
	if w.ttl, err = cluster.Retrying(ctx, cl.LeaseTTL); err == nil {
		w.cons, err = cluster.Retrying(ctx, w.consumer)
	}
	if err != nil {
		cl.Close()
		return nil, err
	}
	return w, nil
}

// consumer creates or updates the queue's durable pull consumer, which
// every worker of the queue shares.
func (w *worker) consumer(ctx context.Context) (jetstream.Consumer, error) {
	name := cluster.ConsumerName("worker", w.queue)
	pending := 1024 // enough for every slot of a fleet; raised, never lowered
	if old, err := w.c.JS.Consumer(ctx, cluster.TaskStream, name); err == nil {
		pending = max(pending, old.CachedInfo().Config.MaxAckPending)
	}
	cfg := jetstream.ConsumerConfig{
		Durable: name, FilterSubject: cluster.TaskSubject(w.queue),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: w.ackWait,
		MaxAckPending: max(pending, w.slots), MaxDeliver: -1,
	}
	cons, err := w.c.JS.CreateOrUpdateConsumer(ctx, cluster.TaskStream, cfg)
	if err != nil {
		return nil, fmt.Errorf("create the consumer of queue %s: %w", w.queue, err)
	}
	return cons, nil
}

// loop fetches one task per free slot until drained, then waits for the
// running tasks.
func (w *worker) loop() {
	slots := make(chan struct{}, w.slots)
	var running sync.WaitGroup
	defer running.Wait()
	for {
		select {
		case slots <- struct{}{}:
		case <-w.drain:
			return
		}
		select {
		case <-w.drain:
			return
		default:
		}
		batch, err := w.cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			w.logf("fetch: %v (retrying)", err)
			<-slots
			w.pause(time.Second)
			continue
		}
		got := false
		for m := range batch.Messages() {
			got = true
			select {
			case <-w.drain: // fetched while draining: hand it straight back
				_ = m.Nak()
				<-slots
				continue
			default:
			}
			running.Add(1)
			w.setBusy(1)
			go func() {
				defer func() { w.setBusy(-1); <-slots; running.Done() }()
				w.handle(m)
			}()
		}
		if !got {
			<-slots
		}
	}
}

// setBusy counts a slot taken (+1) or freed (-1) and has the worker's
// registration say so.
func (w *worker) setBusy(delta int32) {
	w.busy.Add(delta)
	select {
	case w.busyMoved <- struct{}{}:
	default:
	}
}

// pause waits d or until draining starts.
func (w *worker) pause(d time.Duration) {
	select {
	case <-time.After(d):
	case <-w.drain:
	}
}

// register keeps the worker's record in WorkerBucket renewed every TTL/3
// until the returned function deletes it.
func (w *worker) register() (stop func()) {
	info := func() cluster.WorkerInfo {
		return cluster.WorkerInfo{Name: w.name, Host: w.host, Queue: w.queue, Slots: w.slots, Busy: int(w.busy.Load()), PID: os.Getpid()}
	}
	put := func() {
		ctx, cancel := context.WithTimeout(context.Background(), w.ttl/3)
		defer cancel()
		if err := w.c.PutWorker(ctx, info()); err != nil {
			w.logf("%v", err)
		}
	}
	put()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(w.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			case <-w.busyMoved:
			}
			put()
		}
	}()
	return func() {
		close(done)
		<-finished
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.c.DeleteWorker(ctx, w.queue, w.name); err != nil {
			w.logf("%v", err)
		}
	}
}

func (w *worker) logf(format string, args ...any) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	fmt.Fprintf(w.std.Err, "delta worker %s: %s\n", w.name, fmt.Sprintf(format, args...))
}

// workerRoot is --root, or the default under the XDG data directory.
func workerRoot(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "delta", "worker"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no --root and no home directory for the default root: give --root DIR")
	}
	return filepath.Join(home, ".local", "share", "delta", "worker"), nil
}

// sanitizeName keeps a host name usable in a cluster name.
func sanitizeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
	if s == "" {
		return "worker"
	}
	return s
}
