package contextgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/skills"
)

// Limits of the skills source: how many skills it lists, and how long a
// description may be (the listing is in every request; the instructions
// are read only when needed).
const (
	MaxSkills           = 100
	MaxSkillDescription = 1024
)

// Skill is one skill the skills source lists.
type Skill struct {
	Name        string
	Description string
	Path        string // its SKILL.md
}

// FindSkills lists the skills of dirs, in folder order and by name within
// a folder, at most MaxSkills. A SKILL.md without a description is left
// out: the model could not know when to use it.
func FindSkills(dirs []string) []Skill {
	var out []Skill
	seen := map[string]bool{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			path := filepath.Join(dir, e.Name(), skills.File)
			s, ok := readSkill(path, e.Name())
			if !ok || seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			out = append(out, s)
			if len(out) == MaxSkills {
				return out
			}
		}
	}
	return out
}

// readSkill reads the front matter of the SKILL.md at path; the name
// defaults to the skill's directory.
func readSkill(path, dirName string) (Skill, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, false
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rest, ok := bytes.CutPrefix(data, []byte("---"))
	if !ok {
		return Skill{}, false
	}
	front, _, ok := bytes.Cut(rest, []byte("\n---"))
	if !ok {
		return Skill{}, false
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if yaml.Unmarshal(front, &fm) != nil {
		return Skill{}, false
	}
	s := Skill{Name: strings.TrimSpace(fm.Name), Description: strings.Join(strings.Fields(fm.Description), " "), Path: path}
	if s.Name == "" {
		s.Name = dirName
	}
	if s.Description == "" {
		return Skill{}, false
	}
	if r := []rune(s.Description); len(r) > MaxSkillDescription {
		s.Description = string(r[:MaxSkillDescription]) + "…"
	}
	return s, true
}

// skillsSource lists the skills the model may load: each one's name,
// description and SKILL.md, which the model reads when a task matches.
// Only the listing is in every request; a skill's instructions cost
// nothing until they are needed. No skills: the source is skipped.
func skillsSource(run engine.RunInfo, src agent.ContextSource) Part {
	found := FindSkills(skills.Dirs(run.AgentHome, run.WorkDir))
	if len(found) == 0 {
		return Part{Skipped: true}
	}
	var b strings.Builder
	b.WriteString("# Skills\n\nA skill is a set of instructions for one kind of task. When the task at hand matches a skill's description, read its SKILL.md in full before you start and follow it; the files it names are in its folder.\n\n")
	for _, s := range found {
		path := s.Path
		if rel, err := filepath.Rel(run.WorkDir, path); err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", s.Name, s.Description, path)
	}
	return textPart(src, b.String())
}
