package sessions

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMain lets the test binary act as the holder of interpreter sessions
// (the real binary re-executes itself as "delta-sessions __hold DIR").
func TestMain(m *testing.M) {
	if os.Getenv("DELTA_SESSIONS_TEST_HOLDER") == "1" {
		if err := Hold(os.Args[len(os.Args)-1], os.NewFile(3, "ready")); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testStore(t testing.TB) (*Store, StartOptions) {
	t.Helper()
	st, err := NewStore(filepath.Join(t.TempDir(), ".sessions"))
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DELTA_SESSIONS_TEST_HOLDER", "1")
	// The holder inherits the variable; this process has already passed
	// TestMain, so it is unaffected.
	return st, StartOptions{WorkDir: t.TempDir(), IdleTimeout: time.Minute, Holder: []string{self}}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		argv []string
		want Kind
	}{
		{nil, KindBash},
		{[]string{"/bin/bash", "--posix"}, KindBash},
		{[]string{"sh"}, KindSh},
		{[]string{"dash"}, KindSh},
		{[]string{"python3", "-X", "dev"}, KindPython},
		{[]string{"/usr/bin/node"}, KindNode},
	}
	for _, tt := range tests {
		got, err := KindOf(tt.argv)
		if err != nil || got != tt.want {
			t.Errorf("KindOf(%q) = %q, %v, want %q", tt.argv, got, err, tt.want)
		}
	}
	if _, err := KindOf([]string{"ruby"}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("KindOf(ruby) error = %v, want ErrUnsupported", err)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"sess_abc123": true, "sess_my-work_1": true, "sess_": false, "abc": false,
		"sess_../x": false, "sess_A": false, "pty_abc": false, "sess_" + strings.Repeat("a", 60): false,
	} {
		if got := ids.Valid(id); got != want {
			t.Errorf("Valid(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestShellState checks each persistence promise of bash sessions through
// the package API: set in one exec, observed in the next.
func TestShellState(t *testing.T) {
	st, opt := testStore(t)
	m, err := st.Start([]string{"bash"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, set, get, want string
	}{
		{"cwd", "mkdir -p d && cd d", "basename $PWD", "d\n"},
		{"exported", "export E=1", "bash -c 'echo $E'", "1\n"},
		{"plain", "P=2", "echo $P; bash -c 'echo [$P]'", "2\n[]\n"},
		{"array", "A=(x 'y z')", "echo ${#A[@]} ${A[1]}", "2 y z\n"},
		{"function", "f() { echo f$1; }", "f 3", "f3\n"},
		{"alias", "alias g='echo g'", "g", "g\n"},
		{"set -o", "set -o noclobber", "set -o | grep noclobber", "noclobber      \ton\n"},
		{"shopt", "shopt -s globstar", "shopt globstar", "globstar       \ton\n"},
		{"unset", "export U=1; unset U", "echo ${U-none}", "none\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := st.Exec(m.SessionID, tt.set, DefaultTimeout); err != nil {
				t.Fatal(err)
			}
			res, err := st.Exec(m.SessionID, tt.get, DefaultTimeout)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Stdout); diff != "" {
				t.Errorf("exec %q after %q: stdout mismatch (-want +got):\n%s\nstderr: %s", tt.get, tt.set, diff, res.Stderr)
			}
		})
	}
}

func TestPythonState(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	st, opt := testStore(t)
	m, err := st.Start([]string{"python3"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer st.End(m.SessionID)
	steps := []struct {
		code   string
		stdout string
		exit   int
	}{
		{"x = 41\nimport math", "", 0},
		{"print(x + 1)", "42\n", 0},
		{"math.floor(2.5)", "2\n", 0},
		{"raise ValueError('no')", "", 1},
		{"print(x)", "41\n", 0},
	}
	for _, s := range steps {
		res, err := st.Exec(m.SessionID, s.code, DefaultTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stdout != s.stdout || res.ExitCode != s.exit {
			t.Errorf("exec %q = stdout %q exit %d, want %q exit %d (stderr %q)", s.code, res.Stdout, res.ExitCode, s.stdout, s.exit, res.Stderr)
		}
	}
	if _, err := st.End(m.SessionID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(m.SessionID, "print(x)", DefaultTimeout); !errors.Is(err, ErrEnded) {
		t.Errorf("exec after end error = %v, want ErrEnded", err)
	}
}

func TestUnknownSession(t *testing.T) {
	st, _ := testStore(t)
	if _, err := st.Exec("sess_nope", "true", DefaultTimeout); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("Exec(unknown) error = %v, want ErrUnknownSession", err)
	}
	if _, err := st.Exec("../x", "true", DefaultTimeout); !errors.Is(err, ErrBadID) {
		t.Errorf("Exec(../x) error = %v, want ErrBadID", err)
	}
}
