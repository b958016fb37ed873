package pty

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary act as the holder (delta-pty __hold DIR).
func TestMain(m *testing.M) {
	if os.Getenv("DELTA_PTY_TEST_HOLDER") == "1" {
		if err := Hold(os.Args[len(os.Args)-1], os.NewFile(3, "ready")); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSessionLifecycle(t *testing.T) {
	st, err := NewStore(filepath.Join(t.TempDir(), ".sessions"))
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DELTA_PTY_TEST_HOLDER", "1")
	m, err := st.Start([]string{"sh"}, StartOptions{ID: "pty_t", WorkDir: t.TempDir(), Cols: 40, Rows: 5, IdleTimeout: time.Minute, Holder: []string{self}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.End(m.SessionID)

	r, err := st.Write(m.SessionID, []byte("printf '\\033[32mgreen\\033[0m\\n'\n"), &ReadOptions{Until: `green\r?\n`, TimeoutMS: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Matched || strings.Contains(r.Output, "\x1b") {
		t.Errorf("write+read = %+v, want a match without escape sequences", r)
	}
	r, err = st.Read(m.SessionID, &ReadOptions{Mode: "screen"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Output, "green\n") {
		t.Errorf("screen = %q, want a line green", r.Output)
	}
	if n := strings.Count(r.Output, "\n"); n > 5 {
		t.Errorf("screen has %d lines, want at most 5 rows", n)
	}
	r, err = st.PressKeys(m.SessionID, []string{"C-d"}, &ReadOptions{IdleMS: 100, TimeoutMS: 10000})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100 && !r.Exited; i++ {
		if r, err = st.Read(m.SessionID, &ReadOptions{IdleMS: 50, TimeoutMS: 1000}); err != nil {
			t.Fatal(err)
		}
	}
	if !r.Exited || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("after C-d: %+v, want exited with 0", r)
	}
	if _, _, err := st.End(m.SessionID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Read(m.SessionID, nil); !errors.Is(err, ErrEnded) {
		t.Errorf("read after end error = %v, want ErrEnded", err)
	}
}
