package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/mirror"
	"github.com/deltakit/delta/lib/runs"
)

// mirrorProc is a --cluster run's mirror process (delta-cluster mirror),
// spoken to over its stdin and stdout (lib/mirror).
type mirrorProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser // the mirror's stdin
	out   *mirror.Writer
	ready mirror.ReadyInfo
	// stopRun cancels the run (its tools are killed as on Ctrl-C) when
	// the mirror says the run must stop.
	stopRun func()

	mu      sync.Mutex
	cond    *sync.Cond
	syncID  uint64
	synced  uint64
	failure error // the first error or fenced frame, or the pipe's end
	fenced  bool
	done    chan struct{} // closed when the mirror's stdout ends
}

// startMirror starts the run's mirror and waits for it to hold the
// run's lease and agree with the local journal (it stores the lines the
// cluster lacks first). A refusal (the run held elsewhere, forked) is a
// configuration error; a cluster that cannot be reached fails the run's
// start.
func startMirror(f mirroredFlags, runID, runDir string, stderr io.Writer, stopRun func()) (*mirrorProc, error) {
	cmd, err := f.clusterCommand("mirror", "--run-id", runID, "--run-dir", runDir,
		"--pid", strconv.Itoa(os.Getpid()), "--timeout", f.ClusterTimeout.String())
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the cluster mirror: %w", err)
	}
	p := &mirrorProc{cmd: cmd, in: in, out: mirror.NewWriter(in), stopRun: stopRun, done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	r := mirror.NewReader(outPipe)
	first, err := r.Read()
	if err != nil || first.Verb != mirror.Ready {
		in.Close()
		_ = cmd.Wait()
		return nil, startRefusal(runID, first, err)
	}
	if err := json.Unmarshal(first.Data, &p.ready); err != nil {
		in.Close()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the cluster mirror answered %q: %w", first.Data, err)
	}
	go p.read(r)
	return p, nil
}

// startRefusal is the error of a mirror that did not get ready.
func startRefusal(runID string, f mirror.Frame, err error) error {
	switch {
	case err != nil:
		return cli.WithCode(runs.ExitFailed, "", fmt.Errorf("the cluster mirror of run %s ended before it was ready: %w", runID, err))
	case f.Verb == mirror.Refused:
		return cli.WithCode(runs.ExitConfig, "", errors.New(string(f.Data)))
	}
	return cli.WithCode(runs.ExitFailed, "check that the cluster runs (delta cluster status --cluster URL), or run without --cluster",
		fmt.Errorf("run %s cannot be mirrored: %s", runID, f.Data))
}

// read takes the mirror's answers until its stdout ends.
func (p *mirrorProc) read(r *mirror.Reader) {
	defer close(p.done)
	for {
		f, err := r.Read()
		if err != nil {
			p.fail(fmt.Errorf("the cluster mirror ended unexpectedly (%v): the cluster may not have stored the run's last events", err), false)
			return
		}
		switch f.Verb {
		case mirror.Synced:
			p.mu.Lock()
			p.synced = max(p.synced, f.N)
			p.cond.Broadcast()
			p.mu.Unlock()
		case mirror.Error:
			p.fail(errors.New(string(f.Data)), false)
		case mirror.Fenced:
			p.fail(errors.New(string(f.Data)), true)
		}
	}
}

// fail records why the run must stop and stops it: its tools are
// killed as on Ctrl-C.
func (p *mirrorProc) fail(err error, fenced bool) {
	p.mu.Lock()
	first := p.failure == nil
	if first {
		p.failure, p.fenced = err, fenced
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	if first {
		p.stopRun()
	}
}

// state returns the failure so far and whether it is a fence.
func (p *mirrorProc) state() (error, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failure, p.fenced
}

// append hands one journal line (without its newline) to the mirror.
func (p *mirrorProc) append(line []byte, seq int64) {
	if err, _ := p.state(); err != nil {
		return
	}
	if err := p.out.Write(mirror.Frame{Verb: mirror.Append, N: uint64(seq), Data: line}); err != nil {
		p.fail(err, false)
	}
}

// sync returns once the cluster stored every line handed on so far, or
// the reason it will not.
func (p *mirrorProc) sync() error {
	p.mu.Lock()
	if p.failure != nil {
		defer p.mu.Unlock()
		return p.failure
	}
	p.syncID++
	id := p.syncID
	p.mu.Unlock()
	if err := p.out.Write(mirror.Frame{Verb: mirror.Sync, N: id}); err != nil {
		p.fail(err, false)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.synced < id && p.failure == nil {
		p.cond.Wait()
	}
	if p.synced >= id {
		return nil
	}
	return p.failure
}

// close tells the mirror the run ended and waits for it to store the
// run's last metadata and records and release the lease.
func (p *mirrorProc) close() {
	if p == nil {
		return
	}
	_ = p.out.Write(mirror.Frame{Verb: mirror.Close})
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(time.Minute): // io/ of a huge run, a cluster gone
		_ = p.cmd.Process.Kill()
	}
	_ = p.cmd.Wait()
}

// mirroredJournal is the run's journal when it runs with --cluster: each
// line is written to journal.jsonl exactly as without, and handed to the
// mirror; Sync makes it durable here and in the cluster. Once the run's
// lease is lost or an append fenced, nothing more is written here.
type mirroredJournal struct {
	*engine.FileJournal
	m *mirrorProc
}

// errFenced is what the engine's appends get once another holder has the
// run: it stops without writing.
var errFenced = errors.New("the run is no longer this process's to write (another holder took it over)")

func (j mirroredJournal) Append(ev *journal.Event) error {
	if _, fenced := j.m.state(); fenced {
		return errFenced
	}
	line, err := j.FileJournal.AppendLine(ev)
	if err != nil {
		return err
	}
	j.m.append(bytes.TrimSuffix(line, []byte{'\n'}), ev.Seq)
	return nil
}

func (j mirroredJournal) Sync() error {
	if err := j.FileJournal.Sync(); err != nil {
		return err
	}
	return j.m.sync()
}

// startMirror starts the run's mirror with --cluster (nil without);
// stopRun stops the run.
func (o driveOpts) startMirror(stopRun func()) (*mirrorProc, error) {
	if !o.cluster.on() {
		return nil, nil
	}
	return startMirror(o.cluster, o.meta.RunID, o.runDir, o.std.Err, stopRun)
}

// journal is the engine's journal: j itself without a mirror.
func (p *mirrorProc) journal(j *engine.FileJournal) engine.Journal {
	if p == nil {
		return j
	}
	return mirroredJournal{FileJournal: j, m: p}
}

// clusterStop is a run the mirror stopped.
type clusterStop struct {
	why    string
	fenced bool
}

// stopped returns why the mirror stopped the run, nil when it did not.
func (p *mirrorProc) stopped() *clusterStop {
	if p == nil {
		return nil
	}
	err, fenced := p.state()
	if err == nil {
		return nil
	}
	return &clusterStop{why: err.Error(), fenced: fenced}
}

// finish records the run INTERRUPTED here (whatever the engine made of
// its refused writes), prints the result and says why it stopped.
func (s *clusterStop) finish(o driveOpts, out engine.Outcome, started time.Time) error {
	out.Status = runs.Interrupted
	out.Error = &engine.RunError{Type: engine.ErrTypeInterrupted, Message: s.why}
	if err := o.finish(out, nil, started); err != nil {
		var ce *cli.Error
		if !errors.As(err, &ce) || ce.Code != runs.ExitInterrupted {
			return err
		}
	}
	id, ws := o.meta.RunID, o.meta.WorkDir
	if s.fenced {
		return &cli.Error{Code: runs.ExitInterrupted, Label: "interrupted",
			Err: fmt.Errorf("run %s stopped: %s; nothing more was written here: `delta pull %s --cluster URL -w DIR` shows the cluster's copy", id, s.why, id)}
	}
	return &cli.Error{Code: runs.ExitInterrupted, Label: "interrupted",
		Err: fmt.Errorf("run %s stopped: %s; no tool ran that the cluster had not stored. Resume with: delta continue --run-id %s -w %s --cluster URL", id, s.why, id, ws)}
}
