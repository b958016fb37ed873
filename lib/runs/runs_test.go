package runs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// createEnv makes the test binary try one Create and print the outcome
// (see TestMain), for the multi-process race test.
const createEnv = "DELTA_RUNS_TEST_CREATE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(fakeDeltaRun(mode))
	}
	if v := os.Getenv(createEnv); v != "" {
		dir, id, _ := strings.Cut(v, "|")
		if _, err := Create(dir, &Metadata{RunID: id}); err == nil {
			fmt.Print("won")
		} else if errors.Is(err, ErrRunExists) {
			fmt.Print("lost")
		} else {
			fmt.Print(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestValidateID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"20251013_143522_a1b2c3", true},
		{"9f1c0d1e-8a7b-4c3d-9e2f-0a1b2c3d4e5f", true},
		{"a", true},
		{"A.b_c-d", true},
		{strings.Repeat("x", 128), true},
		{strings.Repeat("x", 129), false},
		{"", false},
		{".hidden", false},
		{"..", false},
		{"-flag", false},
		{"a/b", false},
		{"a b", false},
		{"é", false},
	}
	for _, tt := range tests {
		err := ValidateID(tt.id)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidRunID)) {
			t.Errorf("ValidateID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
	}
}

func TestNewID(t *testing.T) {
	re := regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{6}$`)
	a, b := NewID(), NewID()
	if !re.MatchString(a) || ValidateID(a) != nil {
		t.Errorf("NewID() = %q, want YYYYMMDD_HHMMSS_<6 hex>", a)
	}
	if a == b {
		t.Errorf("NewID() twice = %q both times", a)
	}
}

func TestCreate(t *testing.T) {
	work := t.TempDir()
	runDir, err := Create(work, &Metadata{RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(work, ".delta", "r1"); runDir != want {
		t.Errorf("Create() = %s, want %s", runDir, want)
	}
	for _, sub := range []string{"io/invocations", "io/tool_executions", "io/hooks"} {
		if fi, err := os.Stat(filepath.Join(runDir, sub)); err != nil || !fi.IsDir() {
			t.Errorf("missing %s: %v", sub, err)
		}
	}
	if v, _ := os.ReadFile(filepath.Join(work, ".delta", "VERSION")); string(v) != "1\n" {
		t.Errorf("VERSION = %q, want %q", v, "1\n")
	}
	// A second Create of the ID fails and touches nothing.
	os.WriteFile(filepath.Join(runDir, "journal.jsonl"), []byte("keep\n"), 0o644)
	os.Remove(filepath.Join(runDir, "io", "hooks"))
	if _, err := Create(work, &Metadata{RunID: "r1"}); !errors.Is(err, ErrRunExists) {
		t.Errorf("Create(existing) error = %v, want ErrRunExists", err)
	}
	if data, _ := os.ReadFile(filepath.Join(runDir, "journal.jsonl")); string(data) != "keep\n" {
		t.Errorf("existing journal changed to %q", data)
	}
	if _, err := os.Stat(filepath.Join(runDir, "io", "hooks")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Create(existing) recreated io/hooks")
	}
	if _, err := Create(work, &Metadata{RunID: "../escape"}); !errors.Is(err, ErrInvalidRunID) {
		t.Errorf("Create(../escape) error = %v, want ErrInvalidRunID", err)
	}
}

func TestFind(t *testing.T) {
	work := t.TempDir()
	runDir, _ := Create(work, &Metadata{RunID: "r1"})
	if got, err := Find(work, "r1"); got != runDir || err != nil {
		t.Errorf("Find(r1) = %q, %v; want %q", got, err, runDir)
	}
	if _, err := Find(work, "r2"); !errors.Is(err, ErrNoRun) {
		t.Errorf("Find(r2) error = %v, want ErrNoRun", err)
	}
	if _, err := Find(t.TempDir(), "r1"); !errors.Is(err, ErrNoRun) {
		t.Errorf("Find in empty workspace error = %v, want ErrNoRun", err)
	}
}

// TestFindFrom: a subagent's tool, in a subdirectory of the workspace,
// finds its run in the workspace's .delta.
func TestFindFrom(t *testing.T) {
	work := t.TempDir()
	runDir, _ := Create(work, &Metadata{RunID: "p.sub1"})
	sub := filepath.Join(work, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{work, sub} {
		if got, err := FindFrom(dir, "p.sub1"); got != runDir || err != nil {
			t.Errorf("FindFrom(%s, p.sub1) = %q, %v; want %q", dir, got, err, runDir)
		}
	}
	if _, err := FindFrom(sub, "other"); !errors.Is(err, ErrNoRun) {
		t.Errorf("FindFrom(other) error = %v, want ErrNoRun", err)
	}
	if _, err := FindFrom(sub, "../x"); !errors.Is(err, ErrInvalidRunID) {
		t.Errorf("FindFrom(../x) error = %v, want ErrInvalidRunID", err)
	}
}

func TestCreateRaceGoroutines(t *testing.T) {
	work := t.TempDir()
	var wg sync.WaitGroup
	results := make(chan error, 10)
	for range 10 {
		wg.Go(func() {
			_, err := Create(work, &Metadata{RunID: "same"})
			results <- err
		})
	}
	wg.Wait()
	close(results)
	won, lost := 0, 0
	for err := range results {
		switch {
		case err == nil:
			won++
		case errors.Is(err, ErrRunExists):
			lost++
		default:
			t.Errorf("Create: %v", err)
		}
	}
	if won != 1 || lost != 9 {
		t.Errorf("10 goroutines: %d won, %d lost; want 1 and 9", won, lost)
	}
}

func TestCreateRaceProcesses(t *testing.T) {
	work := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), createEnv+"="+work+"|same")
		out := &strings.Builder{}
		cmd.Stdout = out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	counts := map[string]int{}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		counts[outs[i].String()]++
	}
	if diff := cmp.Diff(map[string]int{"won": 1, "lost": 9}, counts); diff != "" {
		t.Errorf("10 processes (-want +got):\n%s", diff)
	}
}

func TestMetadataRoundTrip(t *testing.T) {
	dir := t.TempDir()
	end := time.Date(2025, 10, 13, 14, 40, 15, 456e6, time.UTC)
	msg := "boom"
	m := &Metadata{
		RunID: "r", WorkspaceID: "W001", AgentName: "a", Status: Failed,
		CreatedAt: end.Add(-time.Minute), UpdatedAt: end, EndTime: &end, Error: &msg,
		Iterations: 3, MaxIterations: 30, PID: 42, ProcessStartTicks: 99,
	}
	m.Usage.InputTokens = 7
	if err := WriteMetadata(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMetadata(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("ReadMetadata mismatch (-want +got):\n%s", diff)
	}
	// While running, end_time and error are JSON null.
	running := &Metadata{RunID: "r", Status: Running}
	WriteMetadata(dir, running)
	data, _ := os.ReadFile(filepath.Join(dir, "metadata.json"))
	for _, want := range []string{`"end_time": null`, `"error": null`, `"status": "RUNNING"`, `"start_time_unix": 0`, `"input_tokens": 0`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("metadata.json lacks %s:\n%s", want, data)
		}
	}
}

// TestMetadataAtomic: readers never see a half-written file while a writer
// keeps replacing it, and no temp files are left behind.
func TestMetadataAtomic(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 64<<10)
	WriteMetadata(dir, &Metadata{RunID: "r", InitialMessage: long})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			if err := WriteMetadata(dir, &Metadata{RunID: "r", Iterations: i, InitialMessage: long}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		m, err := ReadMetadata(dir)
		if err != nil || m.InitialMessage != long {
			t.Fatalf("ReadMetadata during writes: %v", err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left in run dir: %v", entries)
	}
}

func TestList(t *testing.T) {
	work := t.TempDir()
	if got, err := List(work); got != nil || err != nil {
		t.Errorf("List(no .delta) = %v, %v; want nothing", got, err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"old", "new", "mid"} {
		dir, _ := Create(work, &Metadata{RunID: id})
		created := map[string]time.Time{"old": base, "new": base.Add(2 * time.Hour), "mid": base.Add(time.Hour)}[id]
		WriteMetadata(dir, &Metadata{RunID: id, CreatedAt: created, Iterations: i})
	}
	// A run still being created, under its temporary name, is not listed,
	// nor is a directory without metadata.
	tmp := filepath.Join(work, ControlDir, ".tmp-half-1-123")
	os.MkdirAll(tmp, 0o755)
	WriteMetadata(tmp, &Metadata{RunID: "half"})
	os.MkdirAll(filepath.Join(work, ControlDir, "no-metadata"), 0o755)
	got, err := List(work)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.RunID)
	}
	if diff := cmp.Diff([]string{"new", "mid", "old"}, ids); diff != "" {
		t.Errorf("List order (-want +got):\n%s", diff)
	}
	bad, _ := Create(work, &Metadata{RunID: "bad"})
	os.WriteFile(filepath.Join(bad, "metadata.json"), []byte("{"), 0o644)
	got, err = List(work)
	if err == nil || len(got) != 3 {
		t.Errorf("List with a corrupt run = %d runs, %v; want 3 runs and an error", len(got), err)
	}
}

func TestWorkspaces(t *testing.T) {
	home := t.TempDir()
	if last, err := LastUsed(home); last != "" || err != nil {
		t.Errorf("LastUsed(new agent) = %q, %v", last, err)
	}
	w1, err := NextWorkspace(home)
	if err != nil {
		t.Fatal(err)
	}
	w2, _ := NextWorkspace(home)
	if filepath.Base(w1) != "W001" || filepath.Base(w2) != "W002" {
		t.Errorf("NextWorkspace twice = %s, %s; want W001, W002", w1, w2)
	}
	if last, _ := LastUsed(home); last != w2 {
		t.Errorf("LastUsed() = %q, want %q", last, w2)
	}
	os.Mkdir(filepath.Join(home, "workspaces", "W999"), 0o755)
	os.Mkdir(filepath.Join(home, "workspaces", "notes"), 0o755)
	w, _ := NextWorkspace(home)
	if filepath.Base(w) != "W1000" {
		t.Errorf("NextWorkspace after W999 = %s, want W1000", w)
	}
	names, _ := ListWorkspaces(home)
	if diff := cmp.Diff([]string{"W001", "W002", "W999", "W1000"}, names); diff != "" {
		t.Errorf("ListWorkspaces (-want +got):\n%s", diff)
	}
}

func TestNextWorkspaceConcurrent(t *testing.T) {
	home := t.TempDir()
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			w, err := NextWorkspace(home)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			seen[w] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(seen) != 10 {
		t.Errorf("10 concurrent NextWorkspace gave %d distinct workspaces", len(seen))
	}
}

func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	release, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(dir); !errors.Is(err, ErrRunBusy) {
		t.Errorf("second Acquire error = %v, want ErrRunBusy", err)
	}
	release()
	release2, err := Acquire(dir)
	if err != nil {
		t.Errorf("Acquire after release: %v", err)
	} else {
		release2()
	}
}

// TestCreateIsWhole: a created run has its metadata, an empty journal and
// its io/ folders from the first moment it exists under its name; a
// temporary directory a dead process left behind is removed by the next
// Create, one of a live process is left alone.
func TestCreateIsWhole(t *testing.T) {
	work := t.TempDir()
	control := filepath.Join(work, ControlDir)
	os.MkdirAll(control, 0o755)
	dead := filepath.Join(control, ".tmp-x-2147483646-42") // no such pid
	live := filepath.Join(control, fmt.Sprintf(".tmp-y-%d-42", os.Getpid()))
	os.MkdirAll(dead, 0o755)
	os.MkdirAll(live, 0o755)
	runDir, err := Create(work, &Metadata{RunID: "r1", Status: Running})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadMetadata(runDir)
	if err != nil || m.RunID != "r1" || m.Status != Running || m.UpdatedAt.IsZero() {
		t.Errorf("ReadMetadata() = %+v, %v; want r1 RUNNING with updated_at", m, err)
	}
	if fi, err := os.Stat(filepath.Join(runDir, JournalFile)); err != nil || fi.Size() != 0 {
		t.Errorf("journal: %v, %v; want an empty file", fi, err)
	}
	for _, sub := range runSubdirs {
		if _, err := os.Stat(filepath.Join(runDir, sub)); err != nil {
			t.Errorf("%s: %v", sub, err)
		}
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead process's temporary run directory is still there (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live process's temporary run directory was removed (%v)", err)
	}
	// An empty directory of the same name (left by an older version) is
	// not replaced.
	os.MkdirAll(filepath.Join(control, "r2"), 0o755)
	if _, err := Create(work, &Metadata{RunID: "r2"}); !errors.Is(err, ErrRunExists) {
		t.Errorf("Create() over an empty directory = %v, want ErrRunExists", err)
	}
}
