package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/mirror"
)

// MirrorCmd is the mirror process of a --cluster run: delta-run starts
// it and speaks lib/mirror's protocol with it over its stdin and stdout.
// It holds the run's lease, stores every journal line in the cluster
// before delta-run acts on it, keeps metadata.json and io/ in the
// cluster in the background, delivers messages sent from other hosts and
// answers stop requests.
type MirrorCmd struct {
	ClusterFlags `embed:""`
	RunID        string        `name:"run-id" required:"" help:"The run to mirror." placeholder:"ID"`
	RunDir       string        `name:"run-dir" required:"" type:"path" help:"Its run directory." placeholder:"DIR"`
	PID          int           `name:"pid" help:"The process driving the run (the lease names it; default: the parent)." placeholder:"PID"`
	Timeout      time.Duration `name:"timeout" env:"DELTA_CLUSTER_TIMEOUT" default:"30s" help:"How long an append may keep retrying while the cluster does not answer before the run is stopped."`

	stderr io.Writer // where the mirror's own warnings go (delta-run's engine.log)
}

// Run mirrors the run until delta-run closes the pipe.
func (c *MirrorCmd) Run(std cli.Stdio) error {
	c.stderr = std.Err
	// delta-run handles Ctrl-C for the two of them: the mirror lives
	// until delta-run says close, so the run's last events get stored.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP)
	if c.PID == 0 {
		c.PID = os.Getppid()
	}
	if err := c.mirror(std.In, std.Out); err != nil {
		// Said on the pipe: delta-run reports it.
		return &cli.Error{Code: 1, Silent: true, Err: err}
	}
	return nil
}

// mirror speaks the protocol on in and out until close.
func (c *MirrorCmd) mirror(in io.Reader, out io.Writer) error {
	m, err := c.start(mirror.NewWriter(out))
	if err != nil {
		return err
	}
	defer m.c.Close()
	m.serve(mirror.NewReader(in))
	return nil
}

// mirrorRun is one mirrored run, from ready to close.
type mirrorRun struct {
	cmd   *MirrorCmd
	c     *cluster.Cluster
	lease *cluster.Lease
	w     *cluster.JournalWriter
	out   *mirror.Writer

	mu     sync.Mutex
	failed bool // fenced or unreachable: nothing more is appended
	// fenced: another holder has the run; nothing of this process's may
	// reach the cluster any more (no metadata, no io/).
	fenced bool

	side *sideWork
	sync *mirrorSync // workspace snapshots (workspace_sync: git), or nil
}

// start connects, takes the lease and makes the cluster's copy agree
// with the local journal, then says ready. What refuses the run is said
// on the pipe (refused, error) and returned.
func (c *MirrorCmd) start(out *mirror.Writer) (*mirrorRun, error) {
	fail := func(verb string, err error) (*mirrorRun, error) {
		_ = out.Write(mirror.Frame{Verb: verb, Data: []byte(err.Error())})
		return nil, err
	}
	if err := cluster.CheckName("run id", c.RunID); err != nil {
		return fail(mirror.Refused, fmt.Errorf("run %s cannot be mirrored: %w", c.RunID, err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	cl, err := cluster.Connect(ctx, cluster.Options{URL: c.Cluster, Creds: c.ClusterCreds, Name: "delta-run " + c.RunID, Timeout: c.Timeout})
	if err != nil {
		return fail(mirror.Error, err)
	}
	host, _ := os.Hostname()
	lease, err := cl.Acquire(ctx, cluster.LeaseKey(c.RunID), cluster.Holder{Host: host, PID: c.PID})
	if err != nil {
		cl.Close()
		var held *cluster.HeldError
		if errors.As(err, &held) {
			return fail(mirror.Refused, fmt.Errorf("run %s is held by %s (pid %d) since %s; the lease expires %s after its holder stops renewing it: stop it there, or wait",
				c.RunID, held.Holder.Host, held.Holder.PID, held.Holder.Since, held.Expires.Round(time.Second)))
		}
		return fail(mirror.Error, err)
	}
	m := &mirrorRun{cmd: c, c: cl, lease: lease, out: out, sync: newMirrorSync(c.RunID, c.RunDir, c.stderr)}
	info, verb, err := m.agree(ctx)
	if err != nil {
		_ = lease.Release(context.Background())
		cl.Close()
		return fail(verb, err)
	}
	m.side = startSide(m)
	if err := out.WriteReady(info); err != nil {
		m.finish()
		cl.Close()
		return nil, err
	}
	go m.watchLease()
	return m, nil
}

// serve handles delta-run's frames until close or the end of the pipe.
// Frames are handled in order: a sync is answered once every append
// before it was stored.
func (m *mirrorRun) serve(in *mirror.Reader) {
	defer m.finish()
	for {
		f, err := in.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(m.cmd.stderr, "delta-cluster mirror: %v\n", err)
			}
			return // delta-run is gone: what it wrote is mirrored
		}
		switch f.Verb {
		case mirror.Append:
			m.append(f)
		case mirror.Sync:
			if !m.isFailed() {
				_ = m.out.Write(mirror.Frame{Verb: mirror.Synced, N: f.N})
			}
		case mirror.Close:
			return
		}
	}
}

// append stores one line; a refusal or a cluster that stays away is
// said once, and nothing after it is stored.
func (m *mirrorRun) append(f mirror.Frame) {
	if m.isFailed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.cmd.Timeout+5*time.Second)
	defer cancel()
	snap := m.sync.before(ctx, m.c, f.Data, int(f.N))
	err := m.w.Append(ctx, f.Data, int(f.N))
	switch {
	case err == nil:
		m.sync.stored(ctx, m.c, snap)
	case errors.Is(err, cluster.ErrFenced):
		m.fail(mirror.Fenced, fmt.Errorf("another holder took the run over: the cluster refused its event %d (%w)", f.N, cluster.ErrFenced))
	default:
		m.fail(mirror.Error, fmt.Errorf("the cluster at %s was unreachable for %s: %w", m.cmd.Cluster, m.cmd.Timeout, err))
	}
}

// watchLease stops the run when the lease is lost: taken over, or not
// renewed for so long that a challenger may hold it now.
func (m *mirrorRun) watchLease() {
	<-m.lease.Lost()
	m.mu.Lock()
	closing := m.side == nil
	m.mu.Unlock()
	if closing {
		return
	}
	err := m.lease.Err()
	if err == nil || err.Error() == "released" {
		return
	}
	m.fail(mirror.Fenced, fmt.Errorf("its lease in the cluster was lost, so another holder may take the run over (%v)", err))
}

// fail says why the mirror stops and stops storing anything.
func (m *mirrorRun) fail(verb string, err error) {
	m.mu.Lock()
	if m.failed {
		m.mu.Unlock()
		return
	}
	m.failed = true
	m.fenced = verb == mirror.Fenced
	m.mu.Unlock()
	_ = m.out.Write(mirror.Frame{Verb: verb, Data: []byte(err.Error())})
}

func (m *mirrorRun) isFailed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.failed
}

func (m *mirrorRun) isFenced() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fenced
}

// finish stores the run's last metadata and io/ records (unless another
// holder has the run) and releases the lease.
func (m *mirrorRun) finish() {
	m.mu.Lock()
	side := m.side
	m.side = nil
	m.mu.Unlock()
	if side != nil {
		side.stop(!m.isFenced())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if m.isFailed() {
		// The cluster is away or the run another's: stop renewing; the
		// lease expires by itself if it is still this process's.
		ctx, cancel = context.WithTimeout(ctx, time.Second)
		defer cancel()
		_ = m.lease.Release(ctx)
		return
	}
	if err := m.lease.Release(ctx); err != nil {
		fmt.Fprintf(m.cmd.stderr, "delta-cluster mirror: %v\n", err)
	}
}
