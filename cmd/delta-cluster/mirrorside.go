package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// sideEvery is how often the mirror looks for a changed metadata.json
// and new io/ records: off the critical path, so the run never waits.
const sideEvery = 200 * time.Millisecond

// sideWork is what the mirror does beside the journal: metadata.json to
// delta_runs and io/ to delta_io, messages from DELTA_INBOX into inbox/,
// stop requests on delta.ctl.<run>.
type sideWork struct {
	m      *mirrorRun
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ctl    *nats.Subscription
	inbox  jetstream.ConsumeContext

	lastMeta []byte
	uploaded map[string]fileStamp
	said     string // the last problem reported, said once
}

// warn reports a problem of the side work once, and none once the run
// stopped because of the cluster (that is said already).
func (s *sideWork) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.m.isFailed() || msg == s.said {
		return
	}
	s.said = msg
	fmt.Fprintf(s.m.cmd.stderr, "delta-cluster mirror: %s\n", msg)
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func startSide(m *mirrorRun) *sideWork {
	ctx, cancel := context.WithCancel(context.Background())
	s := &sideWork{m: m, ctx: ctx, cancel: cancel, uploaded: map[string]fileStamp{}}
	s.putMetadata()
	var err error
	if s.ctl, err = m.c.NC.Subscribe(cluster.ControlSubject(m.cmd.RunID), s.control); err != nil {
		fmt.Fprintf(m.cmd.stderr, "delta-cluster mirror: stop requests for run %s will not be answered: %v\n", m.cmd.RunID, err)
	}
	if s.inbox, err = s.consumeInbox(); err != nil {
		fmt.Fprintf(m.cmd.stderr, "delta-cluster mirror: messages sent to run %s from other hosts will not arrive: %v\n", m.cmd.RunID, err)
	}
	s.wg.Add(1)
	go s.poll()
	return s
}

// poll mirrors metadata.json and io/ as they change.
func (s *sideWork) poll() {
	defer s.wg.Done()
	t := time.NewTicker(sideEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		if s.m.isFenced() {
			return
		}
		s.putMetadata()
		s.uploadIO()
	}
}

// stop ends the side work; with last, metadata.json and io/ are stored
// once more, as the run left them.
func (s *sideWork) stop(last bool) {
	if s.ctl != nil {
		_ = s.ctl.Drain()
	}
	if s.inbox != nil {
		s.inbox.Stop()
	}
	s.cancel()
	s.wg.Wait()
	if last && !s.m.isFailed() {
		s.ctx = context.Background()
		s.uploadIO()
		s.putMetadata()
	}
}

// putMetadata stores metadata.json when it changed, with the lease epoch
// of its writer.
func (s *sideWork) putMetadata() {
	data, err := os.ReadFile(filepath.Join(s.m.cmd.RunDir, runs.MetadataFile))
	if err != nil || bytes.Equal(data, s.lastMeta) {
		return
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return // being replaced: the next look sees the new one
	}
	fields["lease_epoch"], _ = json.Marshal(s.m.lease.Epoch())
	stored, _ := json.MarshalIndent(fields, "", "  ")
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	if err := s.m.c.PutRun(ctx, s.m.cmd.RunID, stored); err != nil {
		s.warn("%v", err)
		return
	}
	s.lastMeta = data
}

// uploadIO stores the io/ records written or grown since the last look
// in delta_io, as RUN/io/PATH.
func (s *sideWork) uploadIO() {
	dir := filepath.Join(s.m.cmd.RunDir, ioDir)
	store, err := s.m.c.JS.ObjectStore(s.ctx, cluster.IOStore)
	if err != nil {
		return
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.m.cmd.RunDir, path)
		stamp := fileStamp{fi.Size(), fi.ModTime()}
		if s.uploaded[rel] == stamp {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		if _, err := store.Put(s.ctx, jetstream.ObjectMeta{Name: IOObject(s.m.cmd.RunID, rel)}, f); err != nil {
			s.warn("store %s in the cluster: %v", rel, err)
			return nil
		}
		s.uploaded[rel] = stamp
		return nil
	})
}

// IOObject is the name of a run's io/ file in delta_io; rel is its path
// in the run directory (io/…).
func IOObject(run, rel string) string { return run + "/" + filepath.ToSlash(rel) }

// consumeInbox delivers the messages queued for the run (delta send
// --cluster from any host) into its inbox/, keeping their ids, and acks
// each once its file is written. A message written twice (an ack lost)
// is one message: the engine journals an id once.
func (s *sideWork) consumeInbox() (jetstream.ConsumeContext, error) {
	run := s.m.cmd.RunID
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	cons, err := s.m.c.JS.CreateOrUpdateConsumer(ctx, cluster.InboxStream, jetstream.ConsumerConfig{
		Durable: cluster.ConsumerName("inbox", run), FilterSubject: cluster.InboxSubject(run), AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		return nil, err
	}
	return cons.Consume(func(msg jetstream.Msg) {
		var m runs.Message
		if err := json.Unmarshal(msg.Data(), &m); err != nil {
			fmt.Fprintf(s.m.cmd.stderr, "delta-cluster mirror: a message for run %s is not a message (%v); dropped\n", run, err)
			_ = msg.Term()
			return
		}
		if err := runs.Queue(s.m.cmd.RunDir, m); err != nil {
			fmt.Fprintf(s.m.cmd.stderr, "delta-cluster mirror: %v\n", err)
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// control answers a stop request as delta stop does on the run's host:
// SIGINT to the run's process ("kill": SIGKILL, and the run marked
// INTERRUPTED, as stop --force does).
func (s *sideWork) control(msg *nats.Msg) {
	host, _ := os.Hostname()
	reply := cluster.ControlReply{Host: host}
	var req cluster.ControlRequest
	meta, err := runs.ReadMetadata(s.m.cmd.RunDir)
	switch {
	case json.Unmarshal(msg.Data, &req) != nil:
		reply.Error = fmt.Sprintf("not a control request: %q", msg.Data)
	case err != nil:
		reply.Error = err.Error()
	default:
		reply.Status = string(meta.Status)
		reply.Error = stopProcess(meta, s.m.cmd.RunDir, req.Op)
	}
	reply.OK = reply.Error == ""
	data, _ := json.Marshal(reply)
	_ = msg.Respond(data)
}

// stopProcess does op to the run's process and returns what went wrong.
func stopProcess(meta *runs.Metadata, runDir, op string) string {
	switch op {
	case "stop":
		p, err := runs.OpenProcess(meta)
		if err != nil {
			return err.Error()
		}
		defer p.Close()
		if err := p.Signal(syscall.SIGINT); err != nil {
			return err.Error()
		}
	case "kill":
		if _, err := runs.Interrupt(meta, runDir, 0, true); err != nil {
			return err.Error()
		}
	default:
		return fmt.Sprintf("unknown control op %q (stop or kill)", op)
	}
	return ""
}

// ioDir is the run directory's io/, where every record kind lives.
var ioDir = filepath.Dir(runs.InvocationsDir)
