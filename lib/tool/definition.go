package tool

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Definition is a tool as written in agent.yaml or an imported file, before
// expansion. Exactly one of Command, Exec, Shell is set (HasCommand,
// HasExec and HasShell tell a present-but-empty key apart from an absent
// one; Exec or Shell non-empty counts as present too).
type Definition struct {
	Name        string
	Description string
	Command     []string
	HasCommand  bool
	Exec        string
	HasExec     bool
	Shell       string
	HasShell    bool
	// Stdin is the v1.7 shorthand: the name of a parameter piped to stdin.
	Stdin      string
	Parameters []ParamDef
	TimeoutMS  int
	Output     *OutputLimits
	// Source is file:line:column of the definition, copied to Tool.Source.
	Source string
	// Vars are fixed values substituted at load time instead of being
	// parameters: the agent loader sets AGENT_HOME, so a tool can run
	// "${AGENT_HOME}/tools/x.sh". In exec: and command: the value is
	// literal text of its word; in shell: it is quoted for where it stands.
	Vars map[string]string
}

// ParamDef is one explicit parameter. Pointer fields are nil when the key
// is absent, so merging can tell "not said" from "said the default".
type ParamDef struct {
	Name        string
	Type        *string
	Description *string
	Required    *bool
	InjectAs    *string
	OptionName  *string
	Default     *string
	Position    *int
	// Raw restates a shell: placeholder's :raw; in command: mode it only
	// records that the script uses the value unquoted (as the expanded
	// form of a shell: tool prints it).
	Raw *bool
}

// Expand turns a definition into the internal representation: a fixed
// argv prefix (Command) and parameters that say where values go. It infers
// parameters from exec:/shell: templates and merges explicit ones as
// seeds/000 §2.2.4 says. Every problem found is returned (errors.Join),
// each parameter problem as a *ParamError, so a user fixes them in one go.
func Expand(def Definition) (Tool, error) {
	hasExec, hasShell := def.HasExec || def.Exec != "", def.HasShell || def.Shell != ""
	modes := 0
	for _, set := range []bool{def.HasCommand, hasExec, hasShell} {
		if set {
			modes++
		}
	}
	switch {
	case modes != 1:
		return Tool{}, ErrMode
	case hasExec && strings.TrimSpace(def.Exec) == "":
		return Tool{}, errorf(ErrEmptyTemplate, "exec: is empty; write the program to run and its arguments (exec: \"ls -la ${dir}\")")
	case hasShell && strings.TrimSpace(def.Shell) == "":
		return Tool{}, errorf(ErrEmptyTemplate, "shell: is empty; write the script to run (shell: \"cat ${file} | wc -l\")")
	}
	t := Tool{Name: def.Name, Description: def.Description, TimeoutMS: def.TimeoutMS, Output: def.Output, Source: def.Source}
	var errs []error
	switch {
	case def.HasCommand:
		errs = expandCommand(&t, def)
	case hasExec:
		errs = expandExec(&t, def)
	default:
		errs = expandShell(&t, def)
	}
	errs = append(errs, checkParams(t.Parameters)...)
	if len(errs) > 0 {
		return Tool{}, errors.Join(errs...)
	}
	return t, nil
}

// expandCommand handles the v1.1 form: command: + parameters:. An element
// of command: holding ${name} for one of the tool's parameters is a slot
// filled exactly as an exec: word (so the expanded form of an exec: tool
// loads back); any other ${…} is literal text.
func expandCommand(t *Tool, def Definition) []error {
	t.Mode = ModeCommand
	if len(def.Command) == 0 {
		return []error{errorf(ErrMode, "command: must name a program")}
	}
	declared := map[string]bool{}
	for _, pd := range def.Parameters {
		declared[pd.Name] = true
	}
	words, slots := commandWords(def.Command, declared, def.Vars)
	for _, w := range words {
		t.Command = append(t.Command, wordText(w))
	}
	if len(slots) > 0 {
		t.ArgvTemplate = words
	}
	var errs []error
	for _, pd := range def.Parameters {
		p := Param{Name: pd.Name, Type: "string", Required: true, InjectAs: Argument}
		if i := slices.Index(slots, pd.Name); i >= 0 {
			p.Position = &i
			if err := mergeParam(&p, pd); err != nil {
				errs = append(errs, err...)
			}
			t.Parameters = append(t.Parameters, p)
			continue
		}
		if pd.InjectAs != nil {
			p.InjectAs = InjectAs(*pd.InjectAs)
		}
		if pd.Position != nil {
			pos := *pd.Position
			p.Position = &pos
		}
		if pd.OptionName != nil {
			p.OptionName = *pd.OptionName
		}
		if pd.Raw != nil {
			p.Raw = *pd.Raw
		}
		errs = append(errs, applyMetadata(&p, pd)...)
		t.Parameters = append(t.Parameters, p)
	}
	switch {
	case def.Stdin == "":
	case slices.Contains(slots, def.Stdin):
		errs = append(errs, &ParamError{Param: def.Stdin, Err: errorf(ErrParameter, "parameter '%s' is both a ${%s} slot in command: and the stdin: parameter", def.Stdin, def.Stdin)})
	default:
		if err := addStdinShorthand(t, def); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// commandWords splits each command: element into literal and slot parts:
// ${name} of a declared parameter is a slot, ${VAR} of a fixed variable
// its value, anything else literal. slots lists the parameters in order of
// first appearance.
func commandWords(command []string, declared map[string]bool, vars map[string]string) ([]Word, []string) {
	words := make([]Word, len(command))
	var slots []string
	for i, elem := range command {
		var parts []Part
		pos := 0
		for _, m := range placeholderRE().FindAllStringSubmatchIndex(elem, -1) {
			name := elem[m[2]:m[3]]
			if _, fixed := vars[name]; fixed || m[4] >= 0 || !declared[name] {
				continue // not a slot: stays in the literal text
			}
			if m[0] > pos {
				parts = append(parts, Part{Literal: elem[pos:m[0]]})
			}
			parts = append(parts, Part{Param: name})
			if !slices.Contains(slots, name) {
				slots = append(slots, name)
			}
			pos = m[1]
		}
		if pos < len(elem) || len(parts) == 0 {
			parts = append(parts, Part{Literal: elem[pos:]})
		}
		for j := range parts {
			if parts[j].Param == "" {
				parts[j].Literal = replaceVars(parts[j].Literal, vars)
			}
		}
		words[i] = Word{Parts: parts}
	}
	return words, slots
}

// replaceVars substitutes ${VAR} of fixed variables in literal text.
func replaceVars(s string, vars map[string]string) string {
	return placeholderRE().ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// expandExec handles exec:, a template tokenised without any shell.
func expandExec(t *Tool, def Definition) []error {
	t.Mode = ModeExec
	t.Template = def.Exec
	words, phs, err := tokenizeExec(def.Exec)
	if err != nil {
		return []error{err}
	}
	words = substituteVars(words, def.Vars)
	t.ArgvTemplate = words
	for _, w := range words {
		t.Command = append(t.Command, wordText(w))
	}
	if len(words) == 0 || words[0].Parts == nil {
		return []error{errorf(ErrTemplate, "exec: template must start with a program name")}
	}
	var names []string
	for _, p := range phs {
		if _, fixed := def.Vars[p.Name]; !fixed && !slices.Contains(names, p.Name) {
			names = append(names, p.Name)
		}
	}
	return inferAndMerge(t, def, names, nil)
}

// expandShell handles shell:, run as sh -c SCRIPT -- VALUES…. The script
// is written once the parameters are merged, because an optional
// parameter without a default, standing unquoted, is written so that it
// vanishes when absent.
func expandShell(t *Tool, def Definition) []error {
	t.Mode = ModeShell
	t.Template = def.Shell
	_, names, raw, err := rewriteShell(def.Shell, def.Vars, nil)
	if err != nil {
		return []error{err}
	}
	if errs := inferAndMerge(t, def, names, raw); len(errs) > 0 {
		return errs
	}
	optional := map[string]bool{}
	for _, p := range t.Parameters {
		optional[p.Name] = !p.Required && p.Default == nil
	}
	script, _, _, err := rewriteShell(def.Shell, def.Vars, optional)
	if err != nil {
		return []error{err}
	}
	t.Command = []string{"sh", "-c", script, "--"}
	return nil
}

// inferAndMerge builds the inferred parameters of a template (argument
// parameters at their positions, then the stdin shorthand) and merges the
// explicit parameters into them.
func inferAndMerge(t *Tool, def Definition, names []string, raw map[string]bool) []error {
	for i, n := range names {
		pos := i
		t.Parameters = append(t.Parameters, Param{Name: n, Type: "string", Required: true, InjectAs: Argument, Position: &pos, Raw: raw[n]})
	}
	var errs []error
	if def.Stdin != "" {
		if err := addStdinShorthand(t, def); err != nil {
			errs = append(errs, err)
		}
	}
	for _, pd := range def.Parameters {
		i := slices.IndexFunc(t.Parameters, func(p Param) bool { return p.Name == pd.Name })
		if i < 0 {
			errs = append(errs, &ParamError{Param: pd.Name, Err: errorf(ErrUndefinedParameter, "parameter '%s' is not defined by the template (use ${%s} in it, or stdin: %s)", pd.Name, pd.Name, pd.Name)})
			continue
		}
		errs = append(errs, mergeParam(&t.Parameters[i], pd)...)
	}
	return errs
}

// addStdinShorthand adds the parameter named by stdin:.
func addStdinShorthand(t *Tool, def Definition) error {
	if slices.ContainsFunc(t.Parameters, func(p Param) bool { return p.Name == def.Stdin }) {
		if def.HasCommand {
			for i := range t.Parameters {
				if t.Parameters[i].Name == def.Stdin {
					if t.Parameters[i].InjectAs != Stdin && explicitInject(def, def.Stdin) {
						return &ParamError{Param: def.Stdin, Err: errorf(ErrOverride, "Cannot override inject_as for parameter '%s' (inferred: stdin, explicit: %s)", def.Stdin, t.Parameters[i].InjectAs)}
					}
					t.Parameters[i].InjectAs = Stdin
				}
			}
			return nil
		}
		return &ParamError{Param: def.Stdin, Err: errorf(ErrParameter, "parameter '%s' is both a template placeholder and the stdin: parameter", def.Stdin)}
	}
	t.Parameters = append(t.Parameters, Param{Name: def.Stdin, Type: "string", Required: true, InjectAs: Stdin})
	return nil
}

func explicitInject(def Definition, name string) bool {
	for _, pd := range def.Parameters {
		if pd.Name == name && pd.InjectAs != nil {
			return true
		}
	}
	return false
}

// mergeParam applies an explicit parameter to an inferred one: metadata
// may be added, inject_as, position and :raw may only be restated. Every
// problem is returned.
func mergeParam(p *Param, pd ParamDef) []error {
	var errs []error
	if pd.InjectAs != nil && InjectAs(*pd.InjectAs) != p.InjectAs {
		errs = append(errs, &ParamError{Param: p.Name, Err: errorf(ErrOverride, "Cannot override inject_as for parameter '%s' (inferred: %s, explicit: %s)", p.Name, p.InjectAs, *pd.InjectAs)})
	}
	if pd.Position != nil && (p.Position == nil || *p.Position != *pd.Position) {
		inferred := "none"
		if p.Position != nil {
			inferred = fmt.Sprint(*p.Position)
		}
		errs = append(errs, &ParamError{Param: p.Name, Err: errorf(ErrOverride, "Cannot override position for parameter '%s' (inferred: %s, explicit: %d)", p.Name, inferred, *pd.Position)})
	}
	if pd.Raw != nil && *pd.Raw != p.Raw {
		errs = append(errs, &ParamError{Param: p.Name, Err: errorf(ErrOverride, "Cannot override :raw for parameter '%s' (inferred: %t, explicit: %t)", p.Name, p.Raw, *pd.Raw)})
	}
	if pd.OptionName != nil {
		errs = append(errs, &ParamError{Param: p.Name, Err: errorf(ErrOverride, "Cannot set option_name for parameter '%s' (inferred inject_as: %s)", p.Name, p.InjectAs)})
	}
	return append(errs, applyMetadata(p, pd)...)
}

// applyMetadata copies type, description, default and required.
func applyMetadata(p *Param, pd ParamDef) []error {
	var errs []error
	if pd.Type != nil && *pd.Type != "string" {
		errs = append(errs, &ParamError{Param: pd.Name, Err: errorf(ErrParameter, "parameter '%s' has type %q; only \"string\" is supported", pd.Name, *pd.Type)})
	}
	if pd.Description != nil {
		p.Description = *pd.Description
	}
	if pd.Required != nil {
		p.Required = *pd.Required
	}
	if pd.Default != nil {
		if pd.Required != nil && *pd.Required {
			errs = append(errs, &ParamError{Param: pd.Name, Err: errorf(ErrParameter, "parameter '%s' has a default, so it cannot be required", pd.Name)})
		}
		d := *pd.Default
		p.Default = &d
		p.Required = false
	}
	return errs
}

// checkParams validates the merged parameter list and returns every
// problem.
func checkParams(ps []Param) []error {
	var errs []error
	add := func(p Param, format string, args ...any) {
		errs = append(errs, &ParamError{Param: p.Name, Err: errorf(ErrParameter, format, args...)})
	}
	seen := map[string]bool{}
	positions := map[int]string{}
	stdin := ""
	for _, p := range ps {
		switch {
		case p.Name == "":
			errs = append(errs, errorf(ErrParameter, "a parameter has no name"))
			continue
		case seen[p.Name]:
			add(p, "parameter '%s' is defined twice", p.Name)
			continue
		}
		seen[p.Name] = true
		switch p.InjectAs {
		case Argument:
		case Stdin:
			if stdin != "" {
				add(p, "parameters '%s' and '%s' both inject_as stdin (at most one may)", stdin, p.Name)
			}
			stdin = p.Name
		case Option:
			if p.OptionName == "" {
				add(p, "parameter '%s' has inject_as: option but no option_name", p.Name)
			}
		default:
			add(p, "parameter '%s' has inject_as %q (want argument, stdin or option)", p.Name, p.InjectAs)
		}
		if p.OptionName != "" && p.InjectAs != Option {
			add(p, "parameter '%s' has option_name but inject_as %s", p.Name, p.InjectAs)
		}
		if p.Position != nil {
			switch other, dup := positions[*p.Position]; {
			case p.InjectAs == Stdin:
				add(p, "parameter '%s' is piped to stdin, so it has no position", p.Name)
			case dup:
				add(p, "parameters '%s' and '%s' both have position %d", other, p.Name, *p.Position)
			default:
				positions[*p.Position] = p.Name
			}
		}
		if p.Raw && p.InjectAs != Argument {
			add(p, "parameter '%s' is raw but inject_as %s (raw only describes an argument a shell: script uses unquoted)", p.Name, p.InjectAs)
		}
	}
	return errs
}

// wordText renders an exec: word for display, placeholders as ${name}.
func wordText(w Word) string {
	s := ""
	for _, p := range w.Parts {
		if p.Param != "" {
			s += "${" + p.Param + "}"
		} else {
			s += p.Literal
		}
	}
	return s
}

// substituteVars turns parts naming a fixed variable into literal text,
// joining it with neighbouring literals.
func substituteVars(words []Word, vars map[string]string) []Word {
	if len(vars) == 0 {
		return words
	}
	out := make([]Word, len(words))
	for i, w := range words {
		var parts []Part
		for _, p := range w.Parts {
			if v, fixed := vars[p.Param]; fixed && p.Param != "" {
				p = Part{Literal: v}
			}
			if n := len(parts); n > 0 && p.Param == "" && parts[n-1].Param == "" {
				parts[n-1].Literal += p.Literal
				continue
			}
			parts = append(parts, p)
		}
		out[i] = Word{Parts: parts}
	}
	return out
}
