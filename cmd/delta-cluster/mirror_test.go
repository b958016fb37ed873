package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
	"github.com/deltakit/delta/lib/mirror"
	"github.com/deltakit/delta/lib/runs"
)

// mirrorPipe is an in-process mirror and delta-run's end of its pipe.
type mirrorPipe struct {
	t    *testing.T
	to   *mirror.Writer
	from *mirror.Reader
	in   *io.PipeWriter
	done chan error
}

func startMirrorT(t *testing.T, url, run, runDir string) (*mirrorPipe, mirror.Frame) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cmd := &MirrorCmd{ClusterFlags: ClusterFlags{Cluster: url}, RunID: run, RunDir: runDir, PID: os.Getpid(), Timeout: 5 * time.Second, stderr: io.Discard}
	p := &mirrorPipe{t: t, to: mirror.NewWriter(inW), from: mirror.NewReader(outR), in: inW, done: make(chan error, 1)}
	go func() { err := cmd.mirror(inR, outW); outW.Close(); p.done <- err }()
	t.Cleanup(func() { inW.Close() })
	first, err := p.from.Read()
	if err != nil {
		t.Fatal(err)
	}
	return p, first
}

func (p *mirrorPipe) send(f mirror.Frame) {
	if err := p.to.Write(f); err != nil {
		p.t.Fatal(err)
	}
}

func (p *mirrorPipe) read() mirror.Frame {
	f, err := p.from.Read()
	if err != nil {
		p.t.Fatal(err)
	}
	return f
}

// close ends the mirror as delta-run does and waits for it.
func (p *mirrorPipe) close() {
	p.send(mirror.Frame{Verb: mirror.Close})
	p.in.Close()
	if err := <-p.done; err != nil {
		p.t.Fatal(err)
	}
}

func line(seq int, text string) []byte {
	return []byte(fmt.Sprintf(`{"type":"USER_MESSAGE","seq":%d,"timestamp":"2026-12-01T00:00:00Z","content":%q}`, seq, text))
}

func writeRun(t *testing.T, lines ...[]byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), runs.ControlDir, "r1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, runs.JournalFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m := runs.Metadata{RunID: "r1", Status: runs.Running, PID: os.Getpid()}
	if err := runs.WriteMetadata(dir, &m); err != nil {
		t.Fatal(err)
	}
	return dir
}

func replayed(t *testing.T, c *cluster.Cluster, run string) [][]byte {
	t.Helper()
	var got [][]byte
	if err := c.Replay(context.Background(), run, false, func(e cluster.Entry) error { got = append(got, e.Line); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestMirrorBackfillsAppendsSyncsAndReleases(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 2 * time.Second})
	c := clustertest.Connect(t, one.URL)
	dir := writeRun(t, line(1, "a"), line(2, "b"))
	p, first := startMirrorT(t, one.URL, "r1", dir)
	var info mirror.ReadyInfo
	if first.Verb != mirror.Ready || json.Unmarshal(first.Data, &info) != nil || info.Backfilled != 2 || info.ClusterLastSeq != 0 || info.Epoch == 0 {
		t.Fatalf("first frame %s %s", first.Verb, first.Data)
	}
	p.send(mirror.Frame{Verb: mirror.Append, N: 3, Data: line(3, "c")})
	p.send(mirror.Frame{Verb: mirror.Sync, N: 1})
	if f := p.read(); f.Verb != mirror.Synced || f.N != 1 {
		t.Fatalf("answer to sync 1: %s %d %s", f.Verb, f.N, f.Data)
	}
	if got := replayed(t, c, "r1"); len(got) != 3 || !bytes.Equal(got[2], line(3, "c")) {
		t.Fatalf("the cluster holds %q", got)
	}
	// Held: a second mirror of the run is refused, naming the holder.
	_, refused := startMirrorT(t, one.URL, "r1", dir)
	if refused.Verb != mirror.Refused || !strings.Contains(string(refused.Data), "run r1 is held by") {
		t.Fatalf("second mirror: %s %s", refused.Verb, refused.Data)
	}
	p.close()
	meta, err := c.GetRun(context.Background(), "r1")
	if err != nil || !strings.Contains(string(meta), `"lease_epoch"`) {
		t.Fatalf("metadata in the cluster: %s, %v", meta, err)
	}
	// Released: the run can be taken again, and the copies agree.
	p2, again := startMirrorT(t, one.URL, "r1", writeRun(t, line(1, "a"), line(2, "b"), line(3, "c")))
	if again.Verb != mirror.Ready {
		t.Fatalf("after release: %s %s", again.Verb, again.Data)
	}
	p2.close()
}

func TestMirrorRefusesAFork(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 2 * time.Second})
	c := clustertest.Connect(t, one.URL)
	w, err := c.OpenJournal(context.Background(), "r1", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"a", "other", "more"} {
		if err := w.Append(context.Background(), line(i+1, text), i+1); err != nil {
			t.Fatal(err)
		}
	}
	_, f := startMirrorT(t, one.URL, "r1", writeRun(t, line(1, "a"), line(2, "b")))
	if f.Verb != mirror.Refused || !strings.Contains(string(f.Data), "run r1 forked") || !strings.Contains(string(f.Data), "the cluster's copy is longer") {
		t.Fatalf("a forked run: %s %s", f.Verb, f.Data)
	}
}

// An append after another writer appended is fenced: the mirror says so
// and stores nothing more.
func TestMirrorAppendFenced(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 30 * time.Second})
	c := clustertest.Connect(t, one.URL)
	p, first := startMirrorT(t, one.URL, "r1", writeRun(t, line(1, "a")))
	if first.Verb != mirror.Ready {
		t.Fatalf("%s %s", first.Verb, first.Data)
	}
	intruder, err := c.OpenJournal(context.Background(), "r1", 99)
	if err != nil {
		t.Fatal(err)
	}
	if err := intruder.Append(context.Background(), line(2, "theirs"), 2); err != nil {
		t.Fatal(err)
	}
	// (io.Pipe does not buffer as an OS pipe does: each answer is read
	// before the next frame is sent.)
	p.send(mirror.Frame{Verb: mirror.Append, N: 2, Data: line(2, "mine")})
	if f := p.read(); f.Verb != mirror.Fenced || !strings.Contains(string(f.Data), "another holder took the run over") {
		t.Fatalf("after the intruder: %s %s", f.Verb, f.Data)
	}
	p.send(mirror.Frame{Verb: mirror.Append, N: 3, Data: line(3, "mine too")})
	p.send(mirror.Frame{Verb: mirror.Sync, N: 1}) // never answered: the run must stop
	p.close()
	if got := replayed(t, c, "r1"); len(got) != 2 || !bytes.Equal(got[1], line(2, "theirs")) {
		t.Fatalf("the cluster holds %q", got)
	}
}

// A message sent through the cluster arrives in the run's inbox with its
// id; a stop request signals the run's process.
func TestMirrorDeliversMessages(t *testing.T) {
	one := clustertest.StartSingle(t, cluster.Settings{LeaseTTL: 2 * time.Second})
	c := clustertest.Connect(t, one.URL)
	dir := writeRun(t, line(1, "a"))
	p, first := startMirrorT(t, one.URL, "r1", dir)
	if first.Verb != mirror.Ready {
		t.Fatalf("%s %s", first.Verb, first.Data)
	}
	m, _ := runs.NewMessage("use staging", false)
	body, _ := json.Marshal(m)
	if err := c.Send(context.Background(), "r1", m.ID, body); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		inbox, err := runs.Inbox(dir)
		if err == nil && len(inbox) == 1 && inbox[0].ID == m.ID && inbox[0].Content == "use staging" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the message never arrived: %v %v", inbox, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	rep, err := c.Control(context.Background(), "r1", cluster.ControlRequest{Op: "bogus"}, 10*time.Second)
	if err != nil || rep.OK || !strings.Contains(rep.Error, "unknown control op") || rep.Status != "RUNNING" {
		t.Fatalf("control reply %+v, %v", rep, err)
	}
	p.close()
	if _, err := c.Control(context.Background(), "r1", cluster.ControlRequest{Op: "stop"}, 10*time.Second); err == nil {
		t.Fatal("a stop request was answered after the mirror closed")
	}
}
