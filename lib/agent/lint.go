package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/tool"
)

// ErrNotExecutable: a hook or generator names a file that exists but
// cannot be executed.
var ErrNotExecutable = errors.New("not executable")

// Lint finds what loads but would break a run later: a hook or
// computed_file generator whose program is missing or not executable
// (problems), and a command tool, hook or generator whose program is not on
// PATH (warnings: it may be installed by the time the agent runs).
// Commands that depend on the workspace (${CWD}) are not checked.
func Lint(a *Agent) (problems []Problem, warnings []string) {
	check := func(where, what string, argv []string) {
		if len(argv) == 0 {
			return
		}
		prog := strings.ReplaceAll(argv[0], "${AGENT_HOME}", a.Home)
		if strings.Contains(prog, "${") {
			return
		}
		if p, w := lintProgram(where, what, prog); p != nil {
			problems = append(problems, *p)
		} else if w != "" {
			warnings = append(warnings, w)
		}
	}
	for _, name := range HookNames {
		h, ok := a.Hooks[name]
		if !ok {
			continue
		}
		check(h.Source, "hook "+string(name), h.Command)
		if h.Plugin != "" && !slices.ContainsFunc(a.Plugins, func(p PluginRef) bool { return p.Name == h.Plugin }) {
			problems = append(problems, Problem{File: h.Source, Msg: fmt.Sprintf("hook %s names plugin %q, which agent.yaml's plugins: does not list", name, h.Plugin),
				Hint: "add it to plugins: (delta plugin list shows the installed ones)", Err: ErrInvalid})
		}
	}
	for _, s := range a.Context.Sources {
		if s.Generator != nil {
			check(fmt.Sprintf("%s:%d", a.Context.Path, s.Line), fmt.Sprintf("generator of source #%d", s.Index+1), s.Generator.Command)
		}
	}
	missing := map[string][]string{} // program → tools, once per program
	var order []string
	for _, t := range a.Tools {
		if prog, ok := fixedProgram(t); ok && !strings.Contains(prog, "/") {
			if _, err := exec.LookPath(prog); err != nil {
				if missing[prog] == nil {
					order = append(order, prog)
				}
				missing[prog] = append(missing[prog], t.Name)
			}
		}
	}
	for _, prog := range order {
		warnings = append(warnings, fmt.Sprintf("[WARNING] %q is not on PATH (tools %s): install it or fix PATH before the run", prog, strings.Join(missing[prog], ", ")))
	}
	return problems, warnings
}

// lintProgram checks one program: a path must exist and be executable; a
// bare name should be on PATH.
func lintProgram(where, what, prog string) (*Problem, string) {
	if !strings.Contains(prog, "/") {
		if _, err := exec.LookPath(prog); err != nil {
			return nil, fmt.Sprintf("[WARNING] %s: %s runs %q, which is not on PATH", where, what, prog)
		}
		return nil, ""
	}
	st, err := os.Stat(prog)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Problem{File: where, Msg: fmt.Sprintf("%s: %s does not exist", what, prog), Hint: "fix the path (${AGENT_HOME} is the agent directory)", Err: ErrMissingFile}, ""
	case err != nil:
		return &Problem{File: where, Msg: fmt.Sprintf("%s: %v", what, err), Err: ErrMissingFile}, ""
	case st.IsDir():
		return &Problem{File: where, Msg: fmt.Sprintf("%s: %s is a directory", what, prog), Err: ErrNotExecutable}, ""
	case st.Mode().Perm()&0o111 == 0:
		return &Problem{File: where, Msg: fmt.Sprintf("%s: not executable: %s", what, prog), Hint: "chmod +x " + prog, Err: ErrNotExecutable}, ""
	}
	return nil, ""
}

// fixedProgram is the program a command tool runs when it is a literal
// (not filled from a parameter).
func fixedProgram(t tool.Tool) (string, bool) {
	if len(t.Command) == 0 || strings.Contains(t.Command[0], "${") {
		return "", false
	}
	return filepath.Clean(t.Command[0]), t.Command[0] != ""
}
