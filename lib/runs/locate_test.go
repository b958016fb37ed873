package runs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImplicitWorkspaces(t *testing.T) {
	tests := []struct {
		name  string
		files []string // created under the directory; a trailing / makes a directory
		want  []string // relative to the directory; "." is the directory itself
	}{
		{"plain directory", []string{"main.go"}, []string{"."}},
		{"agent without workspaces", []string{"agent.yaml"}, []string{"."}},
		{"agent with workspaces", []string{"agent.yaml", "workspaces/W001/", "workspaces/W002/", "workspaces/W010/", "workspaces/notes/", "workspaces/LAST_USED"},
			[]string{".", "workspaces/W010", "workspaces/W002", "workspaces/W001"}},
		{"legacy config.yaml agent", []string{"config.yaml", "workspaces/W001/"}, []string{".", "workspaces/W001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if f[len(f)-1] == '/' {
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
				} else if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ImplicitWorkspaces(dir)
			if err != nil {
				t.Fatalf("ImplicitWorkspaces(%s): %v", dir, err)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(dir, w))
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("ImplicitWorkspaces(%v) (-want +got):\n%s", tt.files, d)
			}
		})
	}
}
