package skills

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDirs: the agent's folder first, then the workspace's, then the
// user's, with ~/.config when XDG_CONFIG_HOME is unset.
func TestDirs(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_CONFIG_HOME", "")
	want := []string{"/a/skills", "/w/.delta/skills", "/w/.claude/skills", "/home/u/.config/delta/skills", "/home/u/.claude/skills"}
	if diff := cmp.Diff(want, Dirs("/a", "/w")); diff != "" {
		t.Errorf("Dirs(/a, /w) (-want +got):\n%s", diff)
	}
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	got := Dirs("", "")
	want = []string{filepath.Join("/cfg", "delta", "skills"), "/home/u/.claude/skills"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Dirs(\"\", \"\") (-want +got):\n%s", diff)
	}
}
