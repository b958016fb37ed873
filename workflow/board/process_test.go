package board

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMain lets the test binary act as one of many processes sharing a
// context: SHARED_TEST_HELPER names the role, SHARED_TEST_DIR the
// instance directory.
func TestMain(m *testing.M) {
	if role := os.Getenv("SHARED_TEST_HELPER"); role != "" {
		if err := helper(role, os.Getenv("SHARED_TEST_DIR"), os.Getenv("SHARED_TEST_NAME")); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const perProcess = 40

func helper(role, dir, name string) error {
	p, err := OpenFile(dir, Config{})
	if err != nil {
		return err
	}
	defer p.Close()
	ctx := context.Background()
	switch role {
	case "writer": // append, ack its inbox and vote, all at once with others
		for i := range perProcess {
			if _, err := p.Append(ctx, name, fmt.Sprintf("%s %d @boss", name, i)); err != nil {
				return err
			}
		}
		last, err := p.LastSeq(ctx)
		if err != nil {
			return err
		}
		if err := p.Ack(ctx, name, last); err != nil {
			return err
		}
		_, err = p.Vote(ctx, name, "p1", "go", "")
		return err
	case "one": // one message
		_, err := p.Append(ctx, name, "@boss hello from another process")
		return err
	case "forever": // until killed: append, rewrite a document, ack
		for i := 0; ; i++ {
			if _, err := p.Append(ctx, name, strings.Repeat("x", i%500)+" @boss"); err != nil {
				return err
			}
			if err := p.WriteDocument(ctx, name, "state.md", strings.Repeat(strconv.Itoa(i)+"\n", 200)); err != nil {
				return err
			}
			if err := p.Ack(ctx, "boss", int64(i)); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unknown role %q", role)
}

func start(t *testing.T, role, dir, name string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SHARED_TEST_HELPER="+role, "SHARED_TEST_DIR="+dir, "SHARED_TEST_NAME="+name)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// Several processes append, acknowledge and vote at once: no entry is
// lost or numbered twice, every vote counts, the result is announced once.
func TestConcurrentProcesses(t *testing.T) {
	const procs = 6
	dir := t.TempDir()
	var agents []string
	for i := range procs {
		agents = append(agents, fmt.Sprintf("w%d", i))
	}
	p, err := OpenFile(dir, Config{Agents: append(agents, "boss"), DocumentOwner: "boss"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.CreateProposal(bg, "boss", ProposalSpec{Type: Decision, Title: "Go?", Options: []Option{{ID: "go"}, {ID: "stop"}},
		Resolution: Resolution{Quorum: procs}, Timeout: -1}); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for _, a := range agents {
		cmds = append(cmds, start(t, "writer", dir, a))
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}

	entries, err := p.Read(bg, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	votes, resolved := 0, 0
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Fatalf("entry %d has seq %d", i+1, e.Seq)
		}
		switch {
		case strings.HasPrefix(e.Message, "[VOTE:p1]"):
			votes++
		case strings.HasPrefix(e.Message, "[RESOLVED:p1]"):
			resolved++
		case strings.HasPrefix(e.Message, "[PROPOSAL:p1]"):
		default:
			if seen[e.Message] {
				t.Errorf("message %q appended twice", e.Message)
			}
			seen[e.Message] = true
		}
	}
	if len(seen) != procs*perProcess || votes != procs || resolved != 1 {
		t.Errorf("got %d messages, %d votes, %d results; want %d, %d, 1", len(seen), votes, resolved, procs*perProcess, procs)
	}
	pr, err := p.Proposal(bg, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if pr.Status != StatusResolved || pr.Result.Counts["go"] != procs {
		t.Errorf("p1 = %s with %v, want resolved with %d votes for go", pr.Status, pr.Result.Counts, procs)
	}
	for _, a := range agents {
		if cur, _ := p.Cursor(bg, a); cur < perProcess {
			t.Errorf("cursor of %s = %d, want at least %d", a, cur, perProcess)
		}
	}
	// channel.md was kept in step, entry by entry, in seq order.
	md, err := os.ReadFile(filepath.Join(dir, "channel.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, e := range entries {
		want.WriteString(Render(e))
	}
	if diff := cmp.Diff(want.String(), string(md)); diff != "" {
		t.Errorf("channel.md is not the rendering of channel.jsonl (-want +got):\n%s", diff)
	}
	// Every message, and the result of boss's proposal.
	if in, _ := p.Inbox(bg, "boss"); len(in) != procs*perProcess+1 {
		t.Errorf("boss's inbox = %d messages, want %d", len(in), procs*perProcess+1)
	}
}

// A process killed at any moment leaves every file whole: the channel's
// entries are numbered without a gap, the document is one complete version,
// and the next process carries on.
func TestKilledWriter(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"w", "boss"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for round := range 3 {
		cmd := start(t, "forever", dir, "w")
		// Let it work a while; its progress is the channel.
		last, _ := p.LastSeq(bg)
		ctx, cancel := context.WithTimeout(bg, 2*time.Minute)
		_, err := p.Wait(ctx, last+20+int64(round*7))
		cancel()
		if err != nil {
			t.Fatalf("waiting for the writer: %v", err)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		q, err := OpenFile(dir, Config{})
		if err != nil {
			t.Fatalf("open after kill: %v", err)
		}
		entries, err := q.Read(bg, ReadOptions{})
		if err != nil {
			t.Fatalf("read after kill: %v", err)
		}
		for i, e := range entries {
			if e.Seq != int64(i+1) {
				t.Fatalf("after kill %d: entry %d has seq %d", round, i+1, e.Seq)
			}
		}
		doc, err := q.ReadDocument(bg, "state.md")
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
		if doc != "" && (len(lines) != 200 || strings.Count(doc, lines[0]+"\n") != 200) {
			t.Fatalf("after kill %d: the document is not one whole version: %d lines", round, len(lines))
		}
		e, err := q.Append(bg, "boss", "still here")
		if err != nil || e.Seq != int64(len(entries)+1) {
			t.Fatalf("append after kill = seq %d, %v; want %d", e.Seq, err, len(entries)+1)
		}
		q.Close()
	}
	// No temporary file is left where readers look.
	docs, err := p.ListDocuments(bg)
	if err != nil || !cmp.Equal(docs, []string{"state.md"}) {
		t.Errorf("documents after kills = %v, %v", docs, err)
	}
}

// A crash of the machine mid-append leaves a torn last line: readers skip
// it, the next open saves it beside the channel and cuts it off.
func TestTornChannelTail(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	must[Entry](t)(p.Append(bg, "a", "one"))
	must[Entry](t)(p.Append(bg, "a", "two"))
	p.Close()
	log := filepath.Join(dir, "channel.jsonl")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":3,"timestamp":"2025-01-`)
	f.Close()

	p, err = OpenFile(dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := messages(t, p); !cmp.Equal(got, []string{"a: one", "a: two"}) {
		t.Errorf("entries after a torn tail = %v", got)
	}
	saved, _ := filepath.Glob(log + ".torn-*")
	if len(saved) != 1 {
		t.Fatalf("torn tail saved to %v, want one file", saved)
	}
	if b, _ := os.ReadFile(saved[0]); string(b) != `{"seq":3,"timestamp":"2025-01-` {
		t.Errorf("saved tail = %q", b)
	}
	if e := must[Entry](t)(p.Append(bg, "a", "three")); e.Seq != 3 {
		t.Errorf("next seq = %d, want 3", e.Seq)
	}
}

// channel.md is rebuilt when it fell behind (a kill between the two
// writes) or was edited.
func TestChannelMarkdownRebuilt(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	must[Entry](t)(p.Append(bg, "a", "one"))
	e := must[Entry](t)(p.Append(bg, "a", "two"))
	p.Close()
	md := filepath.Join(dir, "channel.md")
	os.WriteFile(md, []byte("garbage"), 0o644)
	p, err = OpenFile(dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	b, _ := os.ReadFile(md)
	if !strings.HasSuffix(string(b), "### "+e.Timestamp.Format("15:04:05")+" [a]\ntwo\n\n") || !strings.Contains(string(b), "[a]\none\n") {
		t.Errorf("rebuilt channel.md = %q", b)
	}
}

// failingStore fails channel appends while fail is set, as a process
// killed between saving a proposal and announcing it would leave things.
type failingStore struct {
	Store
	fail bool
}

func (f *failingStore) AppendEntry(e Entry) (Entry, bool, error) {
	if f.fail {
		return Entry{}, false, errors.New("killed")
	}
	return f.Store.AppendEntry(e)
}

// A vote saved but not yet announced is announced by the next proposal
// operation, exactly once.
func TestPendingAnnouncements(t *testing.T) {
	dir := t.TempDir()
	pv, err := OpenFile(dir, Config{Agents: []string{"a", "b"}, DocumentOwner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer pv.Close()
	fs := &failingStore{Store: pv.(*provider).s}
	p := newProvider(fs, pv.Config())
	must[Proposal](t)(p.CreateProposal(bg, "a", ProposalSpec{Type: Approval, Title: "Ship?"}))
	fs.fail = true
	if _, err := p.Vote(bg, "a", "p1", "yes", ""); err == nil {
		t.Fatal("vote with a failing channel succeeded")
	}
	fs.fail = false
	// The vote counts (it was saved) and a retry is idempotent.
	out := must[VoteOutcome](t)(pv.Vote(bg, "a", "p1", "yes", ""))
	if !out.Repeated {
		t.Errorf("retried vote: Repeated = false")
	}
	must[VoteOutcome](t)(pv.Vote(bg, "b", "p1", "yes", ""))
	want := []string{
		"system: [PROPOSAL:p1] Ship?\n@b\nType: approval | Resolution: plurality | advisory | Closes: " + must[Proposal](t)(pv.Proposal(bg, "p1")).ExpiresAt.Format(time.RFC3339) + "\nOptions: yes (Approve), no (Reject)\nVote with: vote({ proposal: 'p1', choice: '<option-id>' })",
		`a: [VOTE:p1] I vote for "Approve"`,
		`b: [VOTE:p1] I vote for "Approve"`,
		"system: [RESOLVED:p1] Ship?\nResult: Approve\nVotes: yes=2\ncc @a",
	}
	if diff := cmp.Diff(want, messages(t, pv)); diff != "" {
		t.Errorf("channel (-want +got):\n%s", diff)
	}
}

func TestOpenFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenFile(dir, Config{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("OpenFile of an empty dir = %v, want ErrNotFound", err)
	}
	for _, cfg := range []Config{
		{Agents: []string{"a", "a"}},
		{Agents: []string{"a b"}},
		{Agents: []string{"system"}},
		{Agents: []string{"a"}, DocumentOwner: "b"},
		{Agents: []string{"a"}, Document: "../x.md"},
		{Agents: []string{"a"}, Channel: "sub/c.md"},
	} {
		if _, err := OpenFile(dir, cfg); err == nil {
			t.Errorf("OpenFile(%+v) = nil error", cfg)
		}
	}
	p, err := OpenFile(dir, Config{Agents: []string{"a", "b"}, Document: "workspace.md", Channel: "discussion.md", DocumentOwner: "b"})
	if err != nil {
		t.Fatal(err)
	}
	must[Entry](t)(p.Append(bg, "a", "hi @b"))
	p.Close()
	q, err := OpenFile(dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	cfg := q.Config()
	cfg.Now = nil
	if diff := cmp.Diff(Config{Agents: []string{"a", "b"}, Document: "workspace.md", Channel: "discussion.md", DocumentOwner: "b"}, cfg); diff != "" {
		t.Errorf("saved config (-want +got):\n%s", diff)
	}
	for _, f := range []string{"discussion.jsonl", "discussion.md", "context.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// A symbolic link inside the documents folder cannot lead a write out.
func TestDocumentSymlinkEscape(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := os.Symlink(outside, filepath.Join(dir, DocumentsDir, "evil")); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteDocument(bg, "a", "evil/x.md", "pwned"); !errors.Is(err, ErrBadPath) {
		t.Errorf("write through a symlink out = %v, want ErrBadPath", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("files written outside: %v", ents)
	}
}

// A channel.md left behind by a writer killed between its two writes is
// caught up by the next append, without reopening.
func TestChannelMarkdownCaughtUp(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	must[Entry](t)(p.Append(bg, "a", "one"))
	// Another process appended "two" to the truth and died before channel.md.
	line := `{"seq":2,"timestamp":"2025-01-15T10:00:00Z","from":"a","message":"two","mentions":[]}` + "\n"
	f, err := os.OpenFile(filepath.Join(dir, "channel.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line)
	f.Close()
	must[Entry](t)(p.Append(bg, "a", "three"))
	md, _ := os.ReadFile(filepath.Join(dir, "channel.md"))
	var want strings.Builder
	for _, e := range must[[]Entry](t)(p.Read(bg, ReadOptions{})) {
		want.WriteString(Render(e))
	}
	if string(md) != want.String() || !strings.Contains(string(md), "\ntwo\n") {
		t.Errorf("channel.md = %q, want %q", md, want.String())
	}
}

// Wait returns when another process appends.
func TestWaitOtherProcess(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"w", "boss"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	done := make(chan int64, 1)
	go func() {
		seq, _ := p.Wait(bg, 0)
		done <- seq
	}()
	if err := start(t, "one", dir, "w").Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case seq := <-done:
		if seq != 1 {
			t.Errorf("Wait = %d, want 1", seq)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Wait did not return after another process appended")
	}
}

// A stray file among the proposals is not one.
func TestStrayProposalFile(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"a", "b"}, DocumentOwner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	must[Proposal](t)(p.CreateProposal(bg, "a", ProposalSpec{Type: Approval, Title: "Ship?"}))
	if err := os.WriteFile(filepath.Join(dir, "proposals", "README.txt"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ps := must[[]Proposal](t)(p.Proposals(bg, false)); len(ps) != 1 || ps[0].ID != "p1" {
		t.Errorf("Proposals = %+v, want p1 alone", ps)
	}
}

// The temporary file of a writer killed before its rename is removed by
// the next write in that folder; other hidden files are left alone.
func TestStaleDocumentTempRemoved(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenFile(dir, Config{Agents: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sub := filepath.Join(dir, DocumentsDir, "findings")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(sub, ".auth.md.tmp-0123456789ab")
	other := filepath.Join(sub, ".keep")
	elsewhere := filepath.Join(dir, DocumentsDir, ".notes.md.tmp-0123456789ab")
	for _, f := range []string{stale, other, elsewhere} {
		if err := os.WriteFile(f, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.WriteDocument(bg, "a", "findings/perf.md", "# Perf\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary file still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another hidden file was removed: %v", err)
	}
	if err := p.AppendDocument(bg, "a", "", "x\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(elsewhere); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary file of the top folder still there: %v", err)
	}
	ents, _ := os.ReadDir(sub)
	if len(ents) != 2 {
		t.Errorf("findings/ holds %d files, want perf.md and .keep", len(ents))
	}
}
