package agent

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of Load. A *LoadError matches every sentinel one of its
// problems carries, so callers test with errors.Is(err, agent.ErrNoContext).
var (
	// ErrNoConfig: neither agent.yaml nor config.yaml (or the directory
	// itself) exists.
	ErrNoConfig = errors.New("agent config not found")
	// ErrNoContext: context.yaml is missing (required since v1.9.1).
	ErrNoContext = errors.New("context.yaml not found")
	// ErrImportCycle: imports that lead back to a file being imported.
	ErrImportCycle = errors.New("import cycle")
	// ErrOutsideHome: an import or referenced file that resolves (symlinks
	// followed) outside the agent directory.
	ErrOutsideHome = errors.New("path outside the agent home")
	// ErrUnknownKey: a key the file format does not have (usually a typo).
	ErrUnknownKey = errors.New("unknown key")
	// ErrDuplicateTool: two tools with one name in the same file.
	ErrDuplicateTool = errors.New("duplicate tool")
	// ErrMissingFile: a referenced file (system prompt, import, script)
	// does not exist.
	ErrMissingFile = errors.New("referenced file not found")
	// ErrInvalid: a value of the wrong type or out of range, a missing
	// required key, or an invalid tool definition (which also matches the
	// lib/tool sentinel).
	ErrInvalid = errors.New("invalid agent configuration")
)

// Problem is one thing wrong with an agent definition, located in a file.
// Line and Col are 1-based, 0 when the problem concerns a whole file.
type Problem struct {
	File string
	Line int
	Col  int
	Msg  string
	// Hint says what to do, when there is something useful to say.
	Hint string
	// Err is the sentinel (or tool error) the problem matches.
	Err error
}

// String renders the problem as file:line:col: msg.
func (p Problem) String() string {
	switch {
	case p.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
	case p.File != "":
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	default:
		return p.Msg
	}
}

// LoadError holds every problem Load found, so that one run of
// delta-tool-expand --check shows them all.
type LoadError struct {
	Problems []Problem
}

// Error lists the problems, one "file:line:col: msg" per line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems' errors, for errors.Is and errors.As.
func (e *LoadError) Unwrap() []error {
	var errs []error
	for _, p := range e.Problems {
		if p.Err != nil {
			errs = append(errs, p.Err)
		}
	}
	return errs
}

// Hints returns the distinct hints of the problems, in order.
func (e *LoadError) Hints() []string {
	var hints []string
	seen := map[string]bool{}
	for _, p := range e.Problems {
		if p.Hint != "" && !seen[p.Hint] {
			seen[p.Hint] = true
			hints = append(hints, p.Hint)
		}
	}
	return hints
}

// HintOf is what to do about err, one hint a line, when err holds a
// LoadError; "" otherwise. Commands pass it as their error's hint.
func HintOf(err error) string {
	var le *LoadError
	if errors.As(err, &le) {
		return strings.Join(le.Hints(), "\n")
	}
	return ""
}

// DefaultContextYAML is the context.yaml the missing-context error suggests
// (seeds/000 §2.7.7); delta-run init writes the commented §2.4.4 template.
const DefaultContextYAML = `sources:
  - type: file
    id: system_prompt
    path: '${AGENT_HOME}/system_prompt.md'
  - type: file
    id: workspace_guide
    path: '${CWD}/DELTA.md'
    on_missing: skip
  - type: skills
    id: skills
  - type: journal
    id: conversation_history
`

// noContextMessage is the explanation of seeds/000 §2.7.7.
func noContextMessage(home string) string {
	return "context.yaml not found in " + home + `

Delta Engine requires an explicit context.yaml file to define how
the agent's attention window is constructed.

Quick fix - Create context.yaml with default content:

` + DefaultContextYAML + `
For more information, see: man 5 delta-agent (CONTEXT)`
}
