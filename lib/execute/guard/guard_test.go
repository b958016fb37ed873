package guard

import (
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func TestWithoutEnv(t *testing.T) {
	got := WithoutEnv([]string{"A=1", Env + "=1", "DELTA_EXEC_GUARDIAN=x", Env + "=", "B=2"})
	want := []string{"A=1", "DELTA_EXEC_GUARDIAN=x", "B=2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WithoutEnv mismatch (-want +got):\n%s", diff)
	}
}

func TestInvoked(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
		want bool
	}{
		{"guard", []string{Name, Arg}, "1", true},
		{"no marker", []string{Name, Arg}, "", false},
		{"marker not 1", []string{Name, Arg}, "yes", false},
		{"other version", []string{Name, ArgPrefix + "_v1__"}, "1", false},
		{"old protocol's command", []string{Name, Arg, "/bin/true", "true"}, "1", false},
		{"help", []string{Name, "--help"}, "1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(Env, tt.env)
			if got := Invoked(tt.args); got != tt.want {
				t.Errorf("Invoked(%q) with %s=%q = %v, want %v", tt.args, Env, tt.env, got, tt.want)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		want   procStat
		wantOK bool
	}{
		{"plain", "42 (sleep) S 7 42 1 34816 42 4194304", procStat{pid: 42, ppid: 7, pgrp: 42, sid: 1, state: 'S'}, true},
		{"comm with spaces and parens", "42 (a) b (c)) Z 7 8 9 0", procStat{pid: 42, ppid: 7, pgrp: 8, sid: 9, state: 'Z'}, true},
		{"no comm", "42 sleep S 7 8 9", procStat{}, false},
		{"too short", "42 (x) S 7 8", procStat{}, false},
		{"bad number", "42 (x) S 7 eight 9", procStat{pid: 42, ppid: 7, sid: 9, state: 'S'}, false},
		{"long state", "42 (x) SS 7 8 9", procStat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat(42, []byte(tt.data))
			if ok != tt.wantOK || (ok && got != tt.want) {
				t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tt.data, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// FuzzParseStat: a process name is chosen by whoever started the process,
// so the parser must survive any bytes.
func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (sleep) S 7 42 1 34816 42"))
	f.Add([]byte("1 ()) ) R 0 0 0"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, ok := parseStat(1, data)
		if ok && st.pid != 1 {
			t.Errorf("parseStat kept pid %d, want 1", st.pid)
		}
	})
}

// TestListProcsFindsUs: the /proc scan the guard relies on to find
// leftovers sees this very process, with its parent and session.
func TestListProcsFindsUs(t *testing.T) {
	self := os.Getpid()
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range listProcs() {
		if p.pid == self {
			// The state is that of our main thread, which may be running
			// or asleep at the moment of the read (S on a loaded machine):
			// only a dead or zombie state would be wrong.
			if p.state == 'Z' || p.state == 'X' || p.state == 0 {
				t.Errorf("listProcs() state for us = %q, want a live state", p.state)
			}
			p.state = 0
			want := procStat{pid: self, ppid: os.Getppid(), pgrp: syscall.Getpgrp(), sid: sid}
			if p != want {
				t.Errorf("listProcs() entry for us = %+v, want %+v", p, want)
			}
			return
		}
	}
	t.Errorf("listProcs() did not list this process (%d)", self)
}
