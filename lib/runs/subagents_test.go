package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestChildren(t *testing.T) {
	ws := t.TempDir()
	now := time.Now().UTC()
	for i, m := range []Metadata{
		{RunID: "p"}, {RunID: "p.sub1", ParentRunID: "p"}, {RunID: "p.sub2", ParentRunID: "p"},
		{RunID: "p.sub2.sub1", ParentRunID: "p.sub2"}, {RunID: "p.subx"}, {RunID: "q.sub9", ParentRunID: "q"},
	} {
		m.WorkDir, m.Status, m.CreatedAt = ws, Completed, now.Add(time.Duration(i)*time.Second)
		if _, err := Create(ws, &m); err != nil {
			t.Fatal(err)
		}
	}
	kids, err := Children(ws, "p")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range kids {
		ids = append(ids, k.RunID)
	}
	if want := []string{"p.sub1", "p.sub2"}; !cmp.Equal(ids, want) {
		t.Errorf("Children(p) = %v, want %v (oldest first)", ids, want)
	}
	reserved := map[string]bool{"p.sub3": true}
	for parent, want := range map[string]string{"p": "p.sub4", "p.sub2": "p.sub2.sub2", "q": "q.sub10", "new": "new.sub1"} {
		got, err := ChildID(ws, parent, func(id string) bool { return reserved[id] })
		if err != nil || got != want {
			t.Errorf("ChildID(%s) = %q, %v, want %q", parent, got, err, want)
		}
	}
	if _, err := ChildID(ws, strings.Repeat("a", 126), nil); err == nil {
		t.Errorf("ChildID of a 126-character id: no error, want one (the child's id would be too long)")
	}
}

func TestToolDir(t *testing.T) {
	m := &Metadata{WorkDir: "/ws"}
	if got := m.ToolDir(); got != "/ws" {
		t.Errorf("ToolDir() = %q, want /ws", got)
	}
	m.Subagent = &Subagent{Depth: 1, MaxDepth: 1, Dir: "sub/dir"}
	if got := m.ToolDir(); got != filepath.Join("/ws", "sub/dir") {
		t.Errorf("ToolDir() = %q, want /ws/sub/dir", got)
	}
	if got := SubagentLog("/ws/.delta/p", "p.sub1"); got != "/ws/.delta/p/io/subagents/p.sub1.log" {
		t.Errorf("SubagentLog = %q", got)
	}
}

func TestForkOfChild(t *testing.T) {
	ws := t.TempDir()
	m := &Metadata{RunID: "p.sub1", ParentRunID: "p", WorkDir: ws, Status: Completed, Subagent: &Subagent{Depth: 1, MaxDepth: 2, Dir: "sub"}}
	dir, err := Create(ws, m)
	if err != nil {
		t.Fatal(err)
	}
	lines := `{"type":"ENGINE_START","seq":1,"timestamp":"2026-01-01T00:00:00Z","run_id":"p.sub1","parent_run_id":"p"}
{"type":"USER_MESSAGE","seq":2,"timestamp":"2026-01-01T00:00:00Z","content":"task"}
{"type":"THOUGHT","seq":3,"timestamp":"2026-01-01T00:00:00Z","iteration":1,"content":"done"}
`
	if err := os.WriteFile(filepath.Join(dir, JournalFile), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, err := Fork(dir, 0, "p.sub1-fork1")
	if err != nil {
		t.Fatal(err)
	}
	if f.ParentRunID != "" || f.Subagent == nil || *f.Subagent != *m.Subagent {
		t.Errorf("fork: parent_run_id %q, subagent %+v; want no parent and the child's %+v", f.ParentRunID, f.Subagent, *m.Subagent)
	}
	if kids, _ := Children(ws, "p"); len(kids) != 1 {
		t.Errorf("Children(p) = %d runs, want 1 (the fork is not p's child)", len(kids))
	}
}
