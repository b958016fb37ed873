package runs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/sys"
)

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestJanitor(t *testing.T) {
	host, _ := os.Hostname()
	self := Self()
	tests := []struct {
		name       string
		meta       Metadata
		force      bool
		wantStatus Status
		wantErr    error
	}{
		{"dead pid", Metadata{Status: Running, PID: deadPID(t), Hostname: host, ProcessStartTicks: 1}, false, Interrupted, nil},
		{"live pid, matching ticks", Metadata{Status: Running, PID: self.PID, Hostname: host, ProcessStartTicks: self.StartTicks}, false, Running, ErrStillRunning},
		{"reused pid: live, wrong ticks", Metadata{Status: Running, PID: self.PID, Hostname: host, ProcessStartTicks: self.StartTicks + 1}, false, Interrupted, nil},
		{"no ticks, name matches", Metadata{Status: Running, PID: self.PID, Hostname: host, ProcessName: self.Name}, false, Running, ErrStillRunning},
		{"no ticks, name differs", Metadata{Status: Running, PID: self.PID, Hostname: host, ProcessName: "node"}, false, Interrupted, nil},
		{"no pid recorded", Metadata{Status: Running, Hostname: host}, false, Interrupted, nil},
		{"other host", Metadata{Status: Running, PID: self.PID, Hostname: "host-a", ProcessStartTicks: self.StartTicks}, false, Running, ErrOtherHost},
		{"other host, forced", Metadata{Status: Running, PID: self.PID, Hostname: "host-a", ProcessStartTicks: self.StartTicks}, true, Interrupted, nil},
		{"not running: untouched", Metadata{Status: Completed, PID: deadPID(t), Hostname: "host-a"}, false, Completed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.meta
			m.RunID = "r1"
			err := Janitor(&m, tt.force)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Janitor() error = %v, want %v", err, tt.wantErr)
			}
			if m.Status != tt.wantStatus {
				t.Errorf("Janitor() status = %s, want %s", m.Status, tt.wantStatus)
			}
		})
	}
}

func TestJanitorMessages(t *testing.T) {
	host, _ := os.Hostname()
	self := Self()
	m := &Metadata{RunID: "20251014_0430_aaaa", Status: Running, PID: self.PID, Hostname: "host-a"}
	var re *RunError
	if err := Janitor(m, false); !errors.As(err, &re) ||
		!strings.Contains(re.Msg, "'host-a'") || !strings.Contains(re.Msg, "'"+host+"'") ||
		!strings.Contains(re.Msg, "20251014_0430_aaaa") || !strings.Contains(re.Hint, "--force") {
		t.Errorf("cross-host error = %v (hint %q), want both hosts, the run and --force", err, re.Hint)
	}
	m.Hostname = host
	want := "run 20251014_0430_aaaa is still active (PID " + strconv.Itoa(self.PID) + "); cannot continue while original process is running"
	if err := Janitor(m, false); err == nil || err.Error() != want {
		t.Errorf("live error = %v, want %q", err, want)
	}
}

func TestAliveZombie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	// Until Wait reaps it the child is a zombie once it exits; poll its
	// state rather than racing it.
	for {
		st, err := sys.Stat(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if st.Zombie {
			break
		}
		time.Sleep(time.Millisecond)
	}
	alive, err := Alive(&Metadata{PID: cmd.Process.Pid})
	if alive || err != nil {
		t.Errorf("Alive(zombie) = %v, %v; want false", alive, err)
	}
}

func TestSelf(t *testing.T) {
	p := Self()
	if p.PID != os.Getpid() || p.StartTicks == 0 || p.Name == "" || p.Hostname == "" || p.StartTimeUnix <= 0 {
		t.Errorf("Self() = %+v, want every field set", p)
	}
	var m Metadata
	m.SetProcess(p)
	if alive, err := Alive(&m); !alive || err != nil {
		t.Errorf("Alive(self) = %v, %v; want true", alive, err)
	}
}

// TestCleanUpServe: a delta mcp serve session whose process is gone
// becomes INTERRUPTED on disk, dated by its journal's last write; a live
// one, one of another host and an ordinary run are left alone.
func TestCleanUpServe(t *testing.T) {
	host, _ := os.Hostname()
	self := Self()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lastCall := created.Add(time.Hour)
	tests := []struct {
		name        string
		meta        Metadata
		journalTime time.Time // zero: leave the journal as Create made it (newer than created)
		wantClean   bool
		wantStatus  Status
		wantUpdated time.Time // zero: not checked
	}{
		{"dead session", Metadata{MCPServe: true, Status: Running, PID: deadPID(t), Hostname: host, ProcessStartTicks: 1},
			lastCall, true, Interrupted, lastCall},
		{"dead session, journal older than updated_at", Metadata{MCPServe: true, Status: Running, PID: deadPID(t), Hostname: host, ProcessStartTicks: 1},
			created.Add(-time.Hour), true, Interrupted, created},
		{"reused pid: live, wrong ticks", Metadata{MCPServe: true, Status: Running, PID: self.PID, Hostname: host, ProcessStartTicks: self.StartTicks + 1},
			lastCall, true, Interrupted, lastCall},
		{"no ticks, name differs", Metadata{MCPServe: true, Status: Running, PID: self.PID, Hostname: host, ProcessName: "node"},
			lastCall, true, Interrupted, lastCall},
		{"live session", Metadata{MCPServe: true, Status: Running, PID: self.PID, Hostname: host, ProcessStartTicks: self.StartTicks},
			lastCall, false, Running, created},
		{"live session, no ticks, name matches", Metadata{MCPServe: true, Status: Running, PID: self.PID, Hostname: host, ProcessName: self.Name},
			lastCall, false, Running, created},
		{"session of another host", Metadata{MCPServe: true, Status: Running, PID: deadPID(t), Hostname: "host-a", ProcessStartTicks: 1},
			lastCall, false, Running, created},
		{"ordinary run: continue's business", Metadata{Status: Running, PID: deadPID(t), Hostname: host, ProcessStartTicks: 1},
			lastCall, false, Running, created},
		{"finished session", Metadata{MCPServe: true, Status: Completed, PID: deadPID(t), Hostname: host, ProcessStartTicks: 1},
			lastCall, false, Completed, created},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.meta
			m.RunID, m.CreatedAt = "mcp-1", created
			dir, err := Create(t.TempDir(), &m)
			if err != nil {
				t.Fatal(err)
			}
			m.UpdatedAt = created // Create dates it now
			if err := WriteMetadata(dir, &m); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(filepath.Join(dir, JournalFile), tt.journalTime, tt.journalTime); err != nil {
				t.Fatal(err)
			}
			got, cleaned, err := CleanUpServe(dir)
			if err != nil || cleaned != tt.wantClean {
				t.Fatalf("CleanUpServe() = %v, %v; want cleaned %v", cleaned, err, tt.wantClean)
			}
			onDisk, err := ReadMetadata(dir)
			if err != nil {
				t.Fatal(err)
			}
			for what, m := range map[string]*Metadata{"returned": got, "on disk": onDisk} {
				if m.Status != tt.wantStatus || !m.UpdatedAt.Equal(tt.wantUpdated) {
					t.Errorf("CleanUpServe(): %s status %s, updated_at %s; want %s, %s", what, m.Status, m.UpdatedAt, tt.wantStatus, tt.wantUpdated)
				}
			}
		})
	}
}

// TestCleanUpServeBusy: a session another process holds is not touched.
func TestCleanUpServeBusy(t *testing.T) {
	host, _ := os.Hostname()
	m := Metadata{RunID: "mcp-1", MCPServe: true, Status: Running, PID: deadPID(t), Hostname: host, ProcessStartTicks: 1}
	dir, err := Create(t.TempDir(), &m)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, _, err := CleanUpServe(dir); !errors.Is(err, ErrRunBusy) {
		t.Errorf("CleanUpServe(held run) error = %v, want ErrRunBusy", err)
	}
	if got, _ := ReadMetadata(dir); got.Status != Running {
		t.Errorf("held run's status = %s, want RUNNING", got.Status)
	}
}
