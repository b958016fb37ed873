package workflow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/workflow/board"
	"github.com/google/go-cmp/cmp"
)

// fakeBackend is an in-process agent: act is called for each attempt with
// the job, and what it returns is the attempt's outcome.
type fakeBackend struct {
	mu       sync.Mutex
	attempts map[string]int
	act      func(ctx context.Context, job Job, attempt int) Result
}

func (f *fakeBackend) Mark(*AgentDef) (int64, error) { return 0, nil }
func (f *fakeBackend) Usage(*AgentDef) llm.Usage     { return llm.Usage{} }
func (f *fakeBackend) Run(ctx context.Context, job Job) Result {
	f.mu.Lock()
	if f.attempts == nil {
		f.attempts = map[string]int{}
	}
	f.attempts[job.Agent.Name]++
	n := f.attempts[job.Agent.Name]
	f.mu.Unlock()
	return f.act(ctx, job, n)
}

func (f *fakeBackend) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts[name]
}

// writeFile writes a workflow file into a temp dir and loads it.
func loadTestFile(t *testing.T, src string) *File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wf.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return f
}

func runTest(t *testing.T, f *File, p board.Provider, b Backend) *Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	backends := map[string]Backend{}
	for _, a := range f.Agents {
		backends[a.Name] = b
	}
	s, err := Run(ctx, Options{File: f, Workspace: t.TempDir(), Dir: t.TempDir(), Provider: p, Backends: backends,
		Poll: 50 * time.Millisecond, Debounce: 200 * time.Millisecond, Retry: Retry{Backoff: time.Millisecond}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return s
}

const twoAgents = `
agents:
  reviewer:
    model: openai/gpt-4o-mini
  coder:
    model: openai/gpt-4o-mini
context:
  provider: memory
  documentOwner: reviewer
kickoff: "@reviewer please review"
`

// The inbox is acknowledged only after the agent's run succeeded: while it
// runs, its message is still unread.
func TestAckAfterSuccess(t *testing.T) {
	f := loadTestFile(t, twoAgents)
	p := board.NewMemory(board.Config{Agents: f.AgentNames(), DocumentOwner: "reviewer"})
	var unreadDuringRun []int
	b := &fakeBackend{act: func(ctx context.Context, job Job, n int) Result {
		inbox, err := p.Inbox(ctx, job.Agent.Name)
		if err != nil {
			t.Error(err)
		}
		unreadDuringRun = append(unreadDuringRun, len(inbox))
		if job.Agent.Name == "reviewer" && n == 1 {
			if !strings.Contains(job.Prompt, "@reviewer please review") {
				t.Errorf("reviewer's digest lacks the kickoff:\n%s", job.Prompt)
			}
			p.Append(ctx, "reviewer", "@coder please fix")
		}
		return Result{Outcome: Succeeded, Started: true}
	}}
	s := runTest(t, f, p, b)
	if s.Status != SummaryCompleted {
		t.Errorf("status = %s, want completed", s.Status)
	}
	if diff := cmp.Diff([]int{1, 1}, unreadDuringRun); diff != "" {
		t.Errorf("unread messages during the runs (-want +got):\n%s", diff)
	}
	for _, name := range []string{"reviewer", "coder"} {
		if inbox, _ := p.Inbox(context.Background(), name); len(inbox) != 0 {
			t.Errorf("%s has %d unread after success, want 0", name, len(inbox))
		}
	}
	got := map[string]int{}
	for _, a := range s.Agents {
		got[a.Name] = a.Runs
	}
	if diff := cmp.Diff(map[string]int{"reviewer": 1, "coder": 1}, got); diff != "" {
		t.Errorf("runs per agent (-want +got):\n%s", diff)
	}
}

// A failing agent is tried MaxAttempts times, then its message stays
// unread; the other agent works meanwhile, and run ends failed.
func TestFailureRetriedThenLeftUnread(t *testing.T) {
	f := loadTestFile(t, strings.Replace(twoAgents, `"@reviewer please review"`, `"@reviewer and @coder, go"`, 1))
	p := board.NewMemory(board.Config{Agents: f.AgentNames(), DocumentOwner: "reviewer"})
	b := &fakeBackend{act: func(ctx context.Context, job Job, n int) Result {
		if job.Agent.Name == "coder" {
			if !strings.Contains(job.Prompt, "attempt") && n > 1 {
				t.Errorf("attempt %d's digest does not say it is a retry", n)
			}
			return Result{Outcome: Failed, Err: "model down", Started: true}
		}
		return Result{Outcome: Succeeded, Started: true}
	}}
	s := runTest(t, f, p, b)
	if s.Status != SummaryFailed {
		t.Errorf("status = %s, want failed", s.Status)
	}
	if n := b.count("coder"); n != 3 {
		t.Errorf("coder attempts = %d, want 3", n)
	}
	if n := b.count("reviewer"); n != 1 {
		t.Errorf("reviewer attempts = %d, want 1", n)
	}
	for _, a := range s.Agents {
		switch a.Name {
		case "coder":
			if a.Status != StatusFailed || a.Unread != 1 || a.Error != "model down" {
				t.Errorf("coder = %+v, want failed, 1 unread, error model down", a)
			}
		case "reviewer":
			if a.Status != StatusIdle || a.Unread != 0 {
				t.Errorf("reviewer = %+v, want idle, nothing unread", a)
			}
		}
	}
}

// A failure a retry cannot fix (delta-run's exit 126: a configuration or
// permission error) fails the agent at once, saying why; the other agent
// works meanwhile, and a transient failure is still retried.
func TestPermanentFailureNotRetried(t *testing.T) {
	f := loadTestFile(t, strings.Replace(twoAgents, `"@reviewer please review"`, `"@reviewer and @coder, go"`, 1))
	p := board.NewMemory(board.Config{Agents: f.AgentNames(), DocumentOwner: "reviewer"})
	var stderr clitest.Buffer
	b := &fakeBackend{act: func(ctx context.Context, job Job, n int) Result {
		if job.Agent.Name == "coder" {
			return Result{Outcome: Failed, Err: "delta-run run exited with status 126: agent.yaml:3:1: unknown key", Started: true, Permanent: true}
		}
		return Result{Outcome: Succeeded, Started: true}
	}}
	backends := map[string]Backend{"reviewer": b, "coder": b}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Run(ctx, Options{File: f, Workspace: t.TempDir(), Dir: t.TempDir(), Provider: p, Backends: backends,
		Poll: 50 * time.Millisecond, Debounce: 200 * time.Millisecond, Retry: Retry{Backoff: time.Millisecond},
		Stderr: &stderr})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if s.Status != SummaryFailed {
		t.Errorf("status = %s, want failed", s.Status)
	}
	if n := b.count("coder"); n != 1 {
		t.Errorf("coder attempts = %d, want 1 (a configuration error is not retried)", n)
	}
	for _, a := range s.Agents {
		if a.Name != "coder" {
			continue
		}
		want := "configuration or permission error, not retried: delta-run run exited with status 126: agent.yaml:3:1: unknown key"
		if a.Status != StatusFailed || a.Unread != 1 || a.Error != want {
			t.Errorf("coder = %+v, want failed, 1 unread, error %q", a, want)
		}
	}
	if log := stderr.String(); !strings.Contains(log, "delta-workflow: coder: not retried: a configuration or permission error fails every attempt the same way") {
		t.Errorf("the progress log does not say why coder was not retried:\n%s", log)
	}
}

// An agent waiting for a human is not idle: run waits, and goes on when it
// is answered.
func TestWaitingAgentKeepsRunGoing(t *testing.T) {
	f := loadTestFile(t, twoAgents)
	p := board.NewMemory(board.Config{Agents: f.AgentNames(), DocumentOwner: "reviewer"})
	b := &fakeBackend{act: func(ctx context.Context, job Job, n int) Result {
		if n < 4 {
			return Result{Outcome: Waiting}
		}
		return Result{Outcome: Succeeded}
	}}
	s := runTest(t, f, p, b)
	if s.Status != SummaryCompleted || b.count("reviewer") != 4 {
		t.Errorf("status %s after %d calls, want completed after 4", s.Status, b.count("reviewer"))
	}
}

// A delivery recorded by a runner that died is finished first, with the
// messages it covered and no others.
func TestInterruptedDeliveryFinishedFirst(t *testing.T) {
	f := loadTestFile(t, twoAgents)
	p := board.NewMemory(board.Config{Agents: f.AgentNames(), DocumentOwner: "reviewer"})
	ctx := context.Background()
	p.Append(ctx, board.System, "@reviewer please review") // the kickoff, posted before the crash
	p.Append(ctx, "user", "@reviewer one more thing")
	dir := t.TempDir()
	if err := WriteState(dir, &State{Workflow: "wf", Instance: "default", SetupDone: true, ElectionStarted: true, KickoffDone: true, KickoffSeq: 1}); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(dir, AgentsDir, "reviewer", deliveryF), Delivery{UpTo: 1, Mark: 0, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	var prompts []string
	var mu sync.Mutex
	b := &fakeBackend{act: func(ctx context.Context, job Job, n int) Result {
		mu.Lock()
		defer mu.Unlock()
		if job.Agent.Name == "reviewer" {
			prompts = append(prompts, job.Prompt)
		}
		return Result{Outcome: Succeeded}
	}}
	s, err := Run(ctx, Options{File: f, Workspace: t.TempDir(), Dir: dir, Provider: p, Backends: map[string]Backend{"reviewer": b, "coder": b},
		Poll: 50 * time.Millisecond, Debounce: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Entries != 2 {
		t.Errorf("channel has %d entries, want 2 (no second kickoff)", s.Entries)
	}
	if len(prompts) != 2 {
		t.Fatalf("reviewer got %d deliveries, want 2", len(prompts))
	}
	if !strings.Contains(prompts[0], "## Inbox (1 message for you)") || strings.Contains(prompts[0], "#2 from") {
		t.Errorf("first delivery should hold the recorded message only:\n%s", prompts[0])
	}
	if !strings.Contains(prompts[1], "#2 from @user") {
		t.Errorf("second delivery should hold the newer message:\n%s", prompts[1])
	}
}

// Memory is refused without a provider: agents that are processes cannot
// reach it.
func TestMemoryProviderNeedsInProcessAgents(t *testing.T) {
	f := loadTestFile(t, twoAgents)
	_, err := Run(context.Background(), Options{File: f, Workspace: t.TempDir(), Dir: t.TempDir()})
	if !errors.Is(err, ErrMemoryProvider) {
		t.Errorf("Run = %v, want ErrMemoryProvider", err)
	}
}

func TestRetryDelay(t *testing.T) {
	r := Retry{}.withDefaults()
	got := []time.Duration{r.delay(1), r.delay(2), r.delay(3)}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, got); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	if r.MaxAttempts != 3 {
		t.Errorf("MaxAttempts = %d, want 3", r.MaxAttempts)
	}
}

// The failure names the whole line the success rule matched.
func TestDetectErrorLine(t *testing.T) {
	got := detectError("working\nAPI Error: 529 overloaded\nbye\n", "", 0)
	if want := `error in the command's output: "API Error: 529 overloaded"`; got != want {
		t.Errorf("detectError = %q, want %q", got, want)
	}
}

func TestDetectError(t *testing.T) {
	for _, tc := range []struct {
		name, stdout, stderr string
		code                 int
		fails                bool
	}{
		{"clean", "All done.", "", 0, false},
		{"exit status", "ok", "", 2, true},
		{"error pattern", "Error: no key", "", 0, true},
		{"rate limit on stderr", "", "hit the Rate Limit", 0, true},
		{"word error alone", "no errors found", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detectError(tc.stdout, tc.stderr, tc.code) != ""; got != tc.fails {
				t.Errorf("detectError(%q, %q, %d) fails = %v, want %v", tc.stdout, tc.stderr, tc.code, got, tc.fails)
			}
		})
	}
}

// A command the shell could not run (127 not found, 126 not executable)
// is named by the shell's last line of stderr, and is not worth retrying.
func TestDetectErrorCannotRun(t *testing.T) {
	for _, tc := range []struct {
		name, stderr string
		code         int
		want         string
		permanent    bool
	}{
		{"not found", "sh: 1: claude: not found\n", 127, "the command exited with status 127: sh: 1: claude: not found", true},
		{"not executable", "sh: 1: ./cli.sh: Permission denied\n", 126, "the command exited with status 126: sh: 1: ./cli.sh: Permission denied", true},
		{"not found, silent", "", 127, "the command exited with status 127: a command it runs was not found", true},
		{"other failure", "boom\n", 1, "the command exited with status 1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detectError("", tc.stderr, tc.code); got != tc.want {
				t.Errorf("detectError(\"\", %q, %d) = %q, want %q", tc.stderr, tc.code, got, tc.want)
			}
			if got := cannotRun(tc.code); got != tc.permanent {
				t.Errorf("cannotRun(%d) = %v, want %v", tc.code, got, tc.permanent)
			}
		})
	}
}

// A runner killed between posting the kickoff and recording it finds the
// kickoff on the channel and does not post it again.
func TestKickoffPostedOnce(t *testing.T) {
	f := loadTestFile(t, twoAgents)
	p := board.NewMemory(board.Config{Agents: f.AgentNames(), DocumentOwner: "reviewer"})
	ctx := context.Background()
	p.Append(ctx, board.System, "@reviewer please review")
	dir := t.TempDir()
	if err := WriteState(dir, &State{Workflow: "wf", Instance: "default", SetupDone: true, ElectionStarted: true}); err != nil {
		t.Fatal(err)
	}
	b := &fakeBackend{act: func(context.Context, Job, int) Result { return Result{Outcome: Succeeded} }}
	s, err := Run(ctx, Options{File: f, Workspace: t.TempDir(), Dir: dir, Provider: p, Backends: map[string]Backend{"reviewer": b, "coder": b},
		Poll: 50 * time.Millisecond, Debounce: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Entries != 1 {
		t.Errorf("channel has %d entries, want 1", s.Entries)
	}
	st, err := ReadState(dir)
	if err != nil || !st.KickoffDone || st.KickoffSeq != 1 {
		t.Errorf("state = %+v, %v; want the kickoff recorded as entry 1", st, err)
	}
}

func TestResolveDir(t *testing.T) {
	f := loadTestFile(t, "agents: {a: {model: openai/x}}\ncontext:\n  config:\n    dir: ctx/${{ workflow.name }}-${{ workflow.instance }}\n")
	ws := t.TempDir()
	got, err := ResolveDir(f, "pr-1", "", ws)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(ws, "ctx", "wf-pr-1"); got != want {
		t.Errorf("ResolveDir = %s, want %s", got, want)
	}
	if got, _ := ResolveDir(f, "pr-1", filepath.Join(ws, "elsewhere"), ws); got != filepath.Join(ws, "elsewhere") {
		t.Errorf("ResolveDir with a dir = %s, want the dir", got)
	}
}

// context: false: the answer of a delivery is posted once, even when the
// runner is started again after posting it but before acknowledging.
func TestAnswerPostedOnce(t *testing.T) {
	f := loadTestFile(t, strings.Replace(twoAgents, "context:\n  provider: memory\n  documentOwner: reviewer\n", "context: false\n", 1))
	if f.Context.Enabled {
		t.Fatal("context: false was not read")
	}
	p := board.NewMemory(board.Config{Agents: f.AgentNames()})
	ctx := context.Background()
	p.Append(ctx, board.System, "@reviewer please review")
	p.Append(ctx, "reviewer", "LGTM") // posted by a runner that died before the ack
	dir := t.TempDir()
	if err := WriteState(dir, &State{Workflow: "wf", Instance: "default", SetupDone: true, ElectionStarted: true, KickoffDone: true, KickoffSeq: 1}); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(dir, AgentsDir, "reviewer", deliveryF), Delivery{UpTo: 1, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	b := &fakeBackend{act: func(context.Context, Job, int) Result { return Result{Outcome: Succeeded, Answer: "LGTM"} }}
	s, err := Run(ctx, Options{File: f, Workspace: t.TempDir(), Dir: dir, Provider: p, Backends: map[string]Backend{"reviewer": b, "coder": b},
		Poll: 50 * time.Millisecond, Debounce: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s.Entries != 2 {
		t.Errorf("channel has %d entries, want 2 (the answer once)", s.Entries)
	}
	if inbox, _ := p.Inbox(ctx, "reviewer"); len(inbox) != 0 {
		t.Errorf("reviewer has %d unread, want 0", len(inbox))
	}
}
