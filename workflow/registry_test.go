package workflow

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMain keeps the registry of instances the runner writes out of the
// user's home.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "workflow-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestRegistry(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := canonical(t.TempDir())
	here := filepath.Join(ws, ".workflow", "a")
	elsewhere := filepath.Join(canonical(t.TempDir()), "ctx", "b")
	gone := filepath.Join(canonical(t.TempDir()), "c")
	for _, d := range []struct{ dir, instance string }{{here, "a"}, {elsewhere, "b"}, {gone, "c"}} {
		st := &State{Workflow: "w", Instance: d.instance, Workspace: ws, CreatedAt: time.Now()}
		if err := WriteState(d.dir, st); err != nil {
			t.Fatal(err)
		}
		if err := Register(d.dir, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	got, err := InstancesHere(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != here || got[1] != elsewhere {
		t.Errorf("InstancesHere = %q, want [%s %s]", got, here, elsewhere)
	}
	if d := FindInstance(ws, "b"); d != elsewhere {
		t.Errorf("FindInstance(b) = %q, want %s", d, elsewhere)
	}
	if d := FindInstance(ws, "a"); d != here {
		t.Errorf("FindInstance(a) = %q, want %s", d, here)
	}
	if d := FindInstance(ws, "c"); d != "" {
		t.Errorf("FindInstance(c) = %q for a removed instance", d)
	}
	other := canonical(t.TempDir())
	if got, _ := InstancesHere(other); len(got) != 0 {
		t.Errorf("InstancesHere(other workspace) = %q, want none", got)
	}
	if got, _ := AllInstances(other); len(got) != 2 {
		t.Errorf("AllInstances = %q, want the 2 that exist", got)
	}
	regs, _ := RegisteredInstances()
	if len(regs) != 2 {
		t.Errorf("the removed instance's entry was kept: %+v", regs)
	}
}
