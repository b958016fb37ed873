package contextgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
)

// runJQ runs a jq generator in-process over the run's events, given as one
// array like `jq -s`. $run_id, $agent_home, $cwd and $ENV are defined.
// String results are joined with newlines, other values JSON-encoded.
func runJQ(ctx context.Context, run engine.RunInfo, g *agent.Generator, events []journal.Event, environ []string, timeout time.Duration) (string, error) {
	program := g.JQ
	if program == "" {
		path := Expand(g.JQFile, run.AgentHome, run.WorkDir)
		if !filepath.IsAbs(path) {
			path = filepath.Join(run.AgentHome, path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("%w: read jq_file: %w", ErrJQ, err)
		}
		program = string(data)
	}
	code, err := compileJQ(program, environ)
	if err != nil {
		return "", err
	}
	input, err := eventsAsJSON(events)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out []string
	iter := code.RunWithContext(ctx, input, run.RunID, run.AgentHome, run.WorkDir)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			if errors.Is(err, context.DeadlineExceeded) {
				return "", fmt.Errorf("%w: jq program still running after %v", ErrTimeout, timeout)
			}
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			return "", fmt.Errorf("%w: %v", ErrJQ, err)
		}
		s, err := jqText(v)
		if err != nil {
			return "", err
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n"), nil
}

// CompileJQ parses and compiles a jq generator program, reporting syntax
// errors before any run (delta-context uses it for --jq too).
func compileJQ(program string, environ []string) (*gojq.Code, error) {
	q, err := gojq.Parse(program)
	if err != nil {
		return nil, fmt.Errorf("%w: parse %q: %v", ErrJQ, program, err)
	}
	code, err := gojq.Compile(q,
		gojq.WithVariables([]string{"$run_id", "$agent_home", "$cwd"}),
		gojq.WithEnvironLoader(func() []string { return environ }))
	if err != nil {
		return nil, fmt.Errorf("%w: compile %q: %v", ErrJQ, program, err)
	}
	return code, nil
}

// eventsAsJSON turns events into the generic values gojq works on, exactly
// as they appear in journal.jsonl.
func eventsAsJSON(events []journal.Event) ([]any, error) {
	data, err := json.Marshal(events)
	if err != nil {
		return nil, fmt.Errorf("%w: encode events: %v", ErrJournal, err)
	}
	var v []any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%w: decode events: %v", ErrJournal, err)
	}
	if v == nil {
		v = []any{}
	}
	return v, nil
}

func jqText(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	data, err := gojq.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("%w: encode result: %v", ErrJQ, err)
	}
	return string(data), nil
}

// CheckJQ compiles every jq generator of a's context.yaml without running
// it, so that a syntax error is a configuration problem before any run.
// jq_file paths that depend on the workspace (${CWD}) are not checked.
func CheckJQ(a *agent.Agent) []agent.Problem {
	var problems []agent.Problem
	for _, s := range a.Context.Sources {
		g := s.Generator
		if g == nil || (g.JQ == "" && g.JQFile == "") {
			continue
		}
		program := g.JQ
		if program == "" {
			if strings.Contains(g.JQFile, "${CWD}") {
				continue
			}
			path := Expand(g.JQFile, a.Home, "")
			if !filepath.IsAbs(path) {
				path = filepath.Join(a.Home, path)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				problems = append(problems, agent.Problem{File: a.Context.Path, Line: s.Line, Col: 1,
					Msg: fmt.Sprintf("source #%d: jq_file: %v", s.Index+1, err), Err: ErrJQ})
				continue
			}
			program = string(data)
		}
		if _, err := compileJQ(program, nil); err != nil {
			problems = append(problems, agent.Problem{File: a.Context.Path, Line: s.Line, Col: 1,
				Msg: fmt.Sprintf("source #%d: %v", s.Index+1, err), Hint: "check the program with: jq -n 'PROGRAM'", Err: ErrJQ})
		}
	}
	return problems
}
