package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// runningIn reports whether a run's metadata.json says it is RUNNING.
func runningIn(meta []byte) bool {
	var m struct {
		Status runs.Status `json:"status"`
	}
	return json.Unmarshal(meta, &m) == nil && m.Status == runs.Running
}

// pulledJournal is the local copy of a run's journal being pulled: the
// lines it holds already must be the cluster's first lines (an earlier
// pull); the cluster's further lines are appended.
type pulledJournal struct {
	run   string
	path  string
	f     *os.File
	have  [][]byte // the local lines not yet matched against the cluster's
	lines int      // lines matched or appended
}

func openPulled(path, run string) (*pulledJournal, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read the local copy of run %s: %w", run, err)
	}
	var have [][]byte
	for _, l := range bytes.SplitAfter(data, []byte{'\n'}) {
		if len(l) > 0 {
			have = append(have, bytes.TrimSuffix(l, []byte{'\n'}))
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pull run %s: %w", run, err)
	}
	return &pulledJournal{run: run, path: path, f: f, have: have}, nil
}

// add takes the cluster's next line.
func (j *pulledJournal) add(e cluster.Entry) error {
	if len(j.have) > 0 {
		if !bytes.Equal(j.have[0], e.Line) {
			return j.differs(fmt.Sprintf("they differ from line %d", j.lines+1))
		}
		j.have = j.have[1:]
		j.lines++
		return nil
	}
	if _, err := j.f.Write(append(e.Line[:len(e.Line):len(e.Line)], '\n')); err != nil {
		return fmt.Errorf("write %s: %w", j.path, err)
	}
	j.lines++
	return nil
}

// check refuses a local copy longer than the cluster's once every
// cluster line was read.
func (j *pulledJournal) check() error {
	if len(j.have) > 0 {
		return j.differs("the local copy has lines the cluster's lacks")
	}
	return nil
}

func (j *pulledJournal) differs(how string) error {
	local := j.lines + len(j.have)
	longer := "the cluster's copy is longer or as long"
	if len(j.have) > 0 && how == "the local copy has lines the cluster's lacks" {
		longer = "the local copy is longer"
	}
	return fmt.Errorf("%s already holds another copy of run %s (%d lines; %s; %s): move it away to pull the cluster's",
		filepath.Dir(j.path), j.run, local, how, longer)
}

func (j *pulledJournal) seq() int { return j.lines }

func (j *pulledJournal) close() {
	_ = j.f.Sync()
	j.f.Close()
}

// runEnded returns the run's last seq once it has ended: no process
// holds its lease and its metadata says it is not RUNNING (its holder
// stores the last metadata.json before it releases the lease).
func runEnded(ctx context.Context, cl *cluster.Cluster, run string) (int, error) {
	leases, err := cl.JS.KeyValue(ctx, cluster.LeaseBucket)
	if err != nil {
		return 0, err
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		_, lerr := leases.Get(ctx, cluster.LeaseKey(run))
		if errors.Is(lerr, jetstream.ErrKeyNotFound) {
			if meta, err := cl.GetRun(ctx, run); err == nil && !runningIn(meta) {
				w, err := cl.OpenJournal(ctx, run, 0) // never written: it reads where the journal ends
				if err == nil {
					return w.LastSeq(), nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-t.C:
		}
	}
}

// pullIO fetches the run's io/ records the local copy lacks.
func pullIO(ctx context.Context, cl *cluster.Cluster, run, runDir string) error {
	store, err := cl.JS.ObjectStore(ctx, cluster.IOStore)
	if err != nil {
		return fmt.Errorf("io/ records of run %s: %w", run, err)
	}
	list, err := store.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("io/ records of run %s: %w", run, err)
	}
	prefix := run + "/"
	for _, info := range list {
		rel, ok := strings.CutPrefix(info.Name, prefix)
		if !ok || info.Deleted || !strings.HasPrefix(rel, ioDir+"/") || strings.Contains(rel, "..") {
			continue
		}
		path := filepath.Join(runDir, filepath.FromSlash(rel))
		if fi, err := os.Stat(path); err == nil && uint64(fi.Size()) == info.Size {
			continue
		}
		if err := fetchObject(ctx, store, info.Name, path); err != nil {
			return err
		}
	}
	return nil
}

func fetchObject(ctx context.Context, store jetstream.ObjectStore, name, path string) error {
	r, err := store.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", name, err)
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
