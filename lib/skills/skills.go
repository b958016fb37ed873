// Package skills knows where an agent's skills live. A skill is a folder
// with a SKILL.md: YAML front matter giving its name and description, then
// instructions for one kind of task, which the model reads only when a
// task matches (Claude Code's and Codex's skills, in the same folders).
// The skills context source lists the skills of these folders, and the
// coding plugin lets read_file read in them though they lie outside the
// workspace, so this is the one place that names them. It depends on
// nothing but the standard library, so a plugin may link it.
package skills

import (
	"os"
	"path/filepath"
)

// File is the file that makes a folder a skill.
const File = "SKILL.md"

// Dirs are the folders holding skills, in order: the agent's skills/,
// the workspace's .delta/skills/ and .claude/skills/, then the user's
// $XDG_CONFIG_HOME/delta/skills/ (~/.config/delta/skills/) and
// ~/.claude/skills/. A skill found in an earlier folder hides one of the
// same name in a later one. Empty agentHome or workDir leave theirs out.
func Dirs(agentHome, workDir string) []string {
	var dirs []string
	if agentHome != "" {
		dirs = append(dirs, filepath.Join(agentHome, "skills"))
	}
	if workDir != "" {
		dirs = append(dirs, filepath.Join(workDir, ".delta", "skills"), filepath.Join(workDir, ".claude", "skills"))
	}
	config := os.Getenv("XDG_CONFIG_HOME")
	home, _ := os.UserHomeDir()
	if config == "" && home != "" {
		config = filepath.Join(home, ".config")
	}
	if config != "" {
		dirs = append(dirs, filepath.Join(config, "delta", "skills"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".claude", "skills"))
	}
	return dirs
}
