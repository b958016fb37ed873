package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestIDSchemePick(t *testing.T) {
	pty := IDScheme{Prefix: "pty_", ErrBad: errors.New("bad pty id")}
	for _, tt := range []struct {
		in      string
		want    string // "" for a fresh id
		wantErr error
	}{
		{"pty_vi", "pty_vi", nil},
		{"", "", nil},
		{"sess_vi", "", pty.ErrBad},
		{"pty_../x", "", pty.ErrBad},
	} {
		got, err := pty.Pick(tt.in)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("Pick(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("Pick(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.want == "" && (!pty.Valid(got) || len(got) != len("pty_")+12) {
			t.Errorf("Pick(%q) = %q, want pty_ and 12 hex digits", tt.in, got)
		}
	}
}

func TestCreateDirTwice(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".sessions")
	if _, err := CreateDir(root, "sess_a"); err != nil {
		t.Fatalf("CreateDir(sess_a) = %v, want nil", err)
	}
	if _, err := CreateDir(root, "sess_a"); !errors.Is(err, ErrExists) {
		t.Errorf("second CreateDir(sess_a) = %v, want ErrExists", err)
	}
}

// TestLoadAll checks that only well-named directories holding metadata
// are listed, oldest first, and that an unknown id names its store.
func TestLoadAll(t *testing.T) {
	st, err := NewStore(filepath.Join(t.TempDir(), ".sessions"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	for _, m := range []*Metadata{
		{SessionID: "sess_new", CreatedAt: now, Status: StatusActive},
		{SessionID: "sess_old", CreatedAt: now.Add(-time.Hour), Status: StatusTerminated},
	} {
		if _, err := st.Create(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, foreign := range []string{"sess_half", "pty_other", "notes"} {
		if err := os.Mkdir(st.Path(foreign), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	all, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range all {
		got = append(got, m.SessionID)
	}
	if diff := cmp.Diff([]string{"sess_old", "sess_new"}, got); diff != "" {
		t.Errorf("List() ids mismatch (-want +got):\n%s", diff)
	}
	if _, err := st.Load("sess_half"); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("Load(sess_half) = %v, want ErrUnknownSession", err)
	}
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"bash"}, "bash"},
		{[]string{"python3", "menu.py"}, "python3 menu.py"},
		{[]string{"sh", "-c", "echo hi; sleep 1; exit 4"}, "sh -c 'echo hi; sleep 1; exit 4'"},
		{[]string{"printf", "it's", ""}, `printf "it's" ''`},
	}
	for _, tt := range tests {
		if got := CommandLine(tt.argv); got != tt.want {
			t.Errorf("CommandLine(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
