package provider_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/provider"
	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// project builds root/.git, root/.env, root/agent/.env, root/work/.env.
func project(t *testing.T) (root, agentHome, workDir string) {
	root = t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	agentHome = filepath.Join(root, "agents", "my-agent")
	workDir = filepath.Join(root, "workspaces", "W001")
	writeFile(t, filepath.Join(root, ".env"), "DELTA_API_KEY=sk-default-key\nROOT_ONLY=root\nSHARED=root\n")
	writeFile(t, filepath.Join(agentHome, ".env"), "DELTA_API_KEY=sk-agent-key\nAGENT_ONLY=agent\nSHARED=agent\n")
	writeFile(t, filepath.Join(workDir, ".env"), "export DELTA_API_KEY=sk-workspace-key\n")
	return root, agentHome, workDir
}

func TestLoadEnvPrecedence(t *testing.T) {
	_, agentHome, workDir := project(t)
	environ := []string{"DELTA_API_KEY=sk-process", "PROCESS_ONLY=proc", "ROOT_ONLY=proc", "NOEQUALS"}
	got, err := provider.LoadEnv(workDir, agentHome, environ)
	if err != nil {
		t.Fatalf("LoadEnv: %v", err)
	}
	want := map[string]string{
		"DELTA_API_KEY": "sk-workspace-key", // workspace beats all (the spec's example)
		"AGENT_ONLY":    "agent",
		"SHARED":        "agent", // agent beats project root
		"ROOT_ONLY":     "root",  // project root beats the process
		"PROCESS_ONLY":  "proc",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadEnv mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadEnvLevels(t *testing.T) {
	tests := []struct {
		name   string
		remove []string // .env files (relative to root) to delete
		want   string
	}{
		{"workspace", nil, "sk-workspace-key"},
		{"agent", []string{"workspaces/W001/.env"}, "sk-agent-key"},
		{"project root", []string{"workspaces/W001/.env", "agents/my-agent/.env"}, "sk-default-key"},
		{"process", []string{"workspaces/W001/.env", "agents/my-agent/.env", ".env"}, "sk-process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, agentHome, workDir := project(t)
			for _, r := range tt.remove {
				if err := os.Remove(filepath.Join(root, r)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := provider.LoadEnv(workDir, agentHome, []string{"DELTA_API_KEY=sk-process"})
			if err != nil {
				t.Fatal(err)
			}
			if got["DELTA_API_KEY"] != tt.want {
				t.Errorf("DELTA_API_KEY = %q, want %q", got["DELTA_API_KEY"], tt.want)
			}
		})
	}
}

func TestLoadEnvProjectRootSearch(t *testing.T) {
	// The workspace lives outside any repository; the agent is inside one,
	// so the agent's project root is found by searching up from agentHome.
	agentRoot := t.TempDir()
	writeFile(t, filepath.Join(agentRoot, ".git"), "gitdir: elsewhere\n") // worktree-style .git file
	writeFile(t, filepath.Join(agentRoot, ".env"), "FROM_AGENT_ROOT=yes\nBOTH=agent-root\n")
	agentHome := filepath.Join(agentRoot, "deep", "agent")
	if err := os.MkdirAll(agentHome, 0o755); err != nil {
		t.Fatal(err)
	}
	workRoot := t.TempDir()
	if err := os.Mkdir(filepath.Join(workRoot, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(workRoot, ".env"), "BOTH=work-root\n")
	workDir := filepath.Join(workRoot, "a", "b")
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := provider.LoadEnv(workDir, agentHome, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"FROM_AGENT_ROOT": "yes", "BOTH": "work-root"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadEnv mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadEnvWorkspaceIsRoot(t *testing.T) {
	// workDir is itself the project root: its .env keeps top precedence
	// even though it is also "the project root's .env".
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	writeFile(t, filepath.Join(root, ".env"), "K=work\n")
	agentHome := filepath.Join(root, "agent")
	writeFile(t, filepath.Join(agentHome, ".env"), "K=agent\n")
	got, err := provider.LoadEnv(root, agentHome, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["K"] != "work" {
		t.Errorf("K = %q, want work", got["K"])
	}
}

func TestLoadEnvBadFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".env"), "OK=1\nthis line is wrong\n")
	_, err := provider.LoadEnv(dir, "", nil)
	if !errors.Is(err, provider.ErrDotenv) || !strings.Contains(err.Error(), filepath.Join(dir, ".env")) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("LoadEnv error = %v, want ErrDotenv naming the file and line 2", err)
	}
}

func TestParseDotenv(t *testing.T) {
	text := "# comment\n" +
		"PLAIN=value\n" +
		"SPACED = spaced value  \n" +
		"export EXPORTED=yes\n" +
		"EMPTY=\n" +
		"INLINE=abc # a comment\n" +
		"HASH=abc#def\n" +
		"SINGLE='literal # \\n $X'\n" +
		"DOUBLE=\"line1\\nline2 \\\"q\\\" \\\\ # kept\"\n" +
		"MULTI=\"first\r\nsecond\"\n" +
		"AFTER=\"x\" # trailing comment\n" +
		"URL=https://example.com/v1?a=b\n" +
		"EQ=a=b=c\n" +
		"exportNOT=1\n" +
		"  INDENTED=1\n"
	got, err := provider.ParseDotenv(text)
	if err != nil {
		t.Fatalf("ParseDotenv: %v", err)
	}
	want := map[string]string{
		"PLAIN": "value", "SPACED": "spaced value", "EXPORTED": "yes", "EMPTY": "",
		"INLINE": "abc", "HASH": "abc#def", "SINGLE": `literal # \n $X`,
		"DOUBLE": "line1\nline2 \"q\" \\ # kept", "MULTI": "first\nsecond", "AFTER": "x",
		"URL": "https://example.com/v1?a=b", "EQ": "a=b=c", "exportNOT": "1", "INDENTED": "1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseDotenv mismatch (-want +got):\n%s", diff)
	}
}

func TestParseDotenvErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"no equals", "A=1\nJUSTTEXT\n", "line 2: want KEY=VALUE"},
		{"bad key", "MY KEY=1\n", "line 1: bad variable name"},
		{"digit key", "1A=1\n", "bad variable name"},
		{"unterminated double", "A=\"abc\nB=2\n", "line 1: unterminated double quote"},
		{"unterminated single", "A='abc\n", "line 1: unterminated single quote"},
		{"text after quote", "A=\"sk-secret\"junk\n", "line 1: unexpected text after the quoted value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.ParseDotenv(tt.text)
			if !errors.Is(err, provider.ErrDotenv) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseDotenv(%q) error = %v, want ErrDotenv with %q", tt.text, err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q repeats a value", err)
			}
		})
	}
}

func FuzzParseDotenv(f *testing.F) {
	f.Add("A=1\nexport B='x y'\nC=\"multi\nline\" # c\n")
	f.Add("# only a comment\n\n")
	f.Add("K=\"\\n\\t\\\"\\\\\\$\"")
	f.Add("=novalue")
	f.Fuzz(func(t *testing.T, text string) {
		vars, err := provider.ParseDotenv(text)
		if err != nil {
			if !errors.Is(err, provider.ErrDotenv) {
				t.Fatalf("error %v is not ErrDotenv", err)
			}
			return
		}
		for k := range vars {
			if k == "" || strings.ContainsAny(k, "= \t\n#") {
				t.Fatalf("accepted bad key %q", k)
			}
		}
	})
}
