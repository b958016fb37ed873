package contextgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/skills"
)

func writeSkill(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSkillsSource: the skills of the agent's, the project's and the
// user's folders are listed with their descriptions and paths, an
// earlier folder's name hiding a later one's, a skill without a
// description left out.
func TestSkillsSource(t *testing.T) {
	home, ws, user := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", user)
	t.Setenv("HOME", t.TempDir())
	writeSkill(t, filepath.Join(home, "skills", "release", "SKILL.md"), "---\nname: release\ndescription: >\n  Cut a release:\n  tag and notes.\n---\nSteps.\n")
	writeSkill(t, filepath.Join(ws, ".delta", "skills", "review", "SKILL.md"), "---\ndescription: Review a change before it is merged.\n---\nLook.\n")
	writeSkill(t, filepath.Join(ws, ".claude", "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nNo description.\n")
	writeSkill(t, filepath.Join(ws, ".claude", "skills", "plain", "SKILL.md"), "no front matter\n")
	writeSkill(t, filepath.Join(user, "delta", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: hidden by the agent's\n---\n")
	writeSkill(t, filepath.Join(user, "delta", "skills", "commit", "SKILL.md"), "---\nname: commit\ndescription: \"Write a commit: message first\"\n---\n")
	run := engine.RunInfo{AgentHome: home, WorkDir: ws}
	got := FindSkills(skills.Dirs(run.AgentHome, run.WorkDir))
	want := []Skill{
		{Name: "release", Description: "Cut a release: tag and notes.", Path: filepath.Join(home, "skills", "release", "SKILL.md")},
		{Name: "review", Description: "Review a change before it is merged.", Path: filepath.Join(ws, ".delta", "skills", "review", "SKILL.md")},
		{Name: "commit", Description: "Write a commit: message first", Path: filepath.Join(user, "delta", "skills", "commit", "SKILL.md")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FindSkills() (-want +got):\n%s", diff)
	}
	part := skillsSource(run, agent.ContextSource{ID: "skills", Type: agent.SourceSkills})
	if part.Skipped || len(part.Messages) != 1 {
		t.Fatalf("skillsSource() = %+v, want one message", part)
	}
	text := part.Messages[0].Content
	for _, line := range []string{"- review: Review a change before it is merged. (" + filepath.Join(".delta", "skills", "review", "SKILL.md") + ")", "read its SKILL.md"} {
		if !strings.Contains(text, line) {
			t.Errorf("skills listing = %q, want it to contain %q", text, line)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if part := skillsSource(engine.RunInfo{WorkDir: t.TempDir()}, agent.ContextSource{}); !part.Skipped {
		t.Errorf("skillsSource() with no skills = %+v, want it skipped", part)
	}
}
