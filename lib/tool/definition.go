package tool

import (
	"fmt"
	"slices"
	"strings"
)

// Definition is a tool as written in agent.yaml or an imported file, before
// expansion. Exactly one of Command, Exec, Shell is set (HasCommand tells a
// present-but-empty command: apart from an absent one).
type Definition struct {
	Name        string
	Description string
	Command     []string
	HasCommand  bool
	Exec        string
	Shell       string
	// Stdin is the v1.7 shorthand: the name of a parameter piped to stdin.
	Stdin      string
	Parameters []ParamDef
	TimeoutMS  int
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
}

// Expand turns a definition into the internal representation: a fixed
// argv prefix (Command) and parameters that say where values go. It infers
// parameters from exec:/shell: templates and merges explicit ones as
// seeds/000 §2.2.4 says.
func Expand(def Definition) (Tool, error) {
	modes := 0
	for _, set := range []bool{def.HasCommand, def.Exec != "", def.Shell != ""} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return Tool{}, ErrMode
	}
	t := Tool{Name: def.Name, Description: def.Description, TimeoutMS: def.TimeoutMS, Source: def.Source}
	var err error
	switch {
	case def.HasCommand:
		err = expandCommand(&t, def)
	case def.Exec != "":
		err = expandExec(&t, def)
	default:
		err = expandShell(&t, def)
	}
	if err != nil {
		return Tool{}, err
	}
	return t, checkParams(t.Parameters)
}

// expandCommand handles the v1.1 form: command: + parameters:.
func expandCommand(t *Tool, def Definition) error {
	t.Mode = ModeCommand
	if len(def.Command) == 0 {
		return errorf(ErrMode, "command: must name a program")
	}
	t.Command = slices.Clone(def.Command)
	for i, arg := range t.Command {
		for name, v := range def.Vars {
			arg = strings.ReplaceAll(arg, "${"+name+"}", v)
		}
		t.Command[i] = arg
	}
	for _, pd := range def.Parameters {
		p := Param{Name: pd.Name, Type: "string", Required: true, InjectAs: Argument}
		if pd.InjectAs != nil {
			p.InjectAs = InjectAs(*pd.InjectAs)
		}
		if pd.Position != nil {
			return &ParamError{Param: pd.Name, Err: errorf(ErrParameter, "position of parameter '%s' is only inferred from exec:/shell: templates", pd.Name)}
		}
		if err := applyMetadata(&p, pd); err != nil {
			return err
		}
		if pd.OptionName != nil {
			p.OptionName = *pd.OptionName
		}
		t.Parameters = append(t.Parameters, p)
	}
	if def.Stdin != "" {
		return addStdinShorthand(t, def)
	}
	return nil
}

// expandExec handles exec:, a template tokenised without any shell.
func expandExec(t *Tool, def Definition) error {
	t.Mode = ModeExec
	t.Template = def.Exec
	words, phs, err := tokenizeExec(def.Exec)
	if err != nil {
		return err
	}
	words = substituteVars(words, def.Vars)
	t.ArgvTemplate = words
	for _, w := range words {
		if len(w.Parts) == 1 && w.Parts[0].Param == "" {
			t.Command = append(t.Command, w.Parts[0].Literal)
			continue
		}
		t.Command = append(t.Command, wordText(w))
	}
	if len(words) == 0 || words[0].Parts == nil {
		return errorf(ErrTemplate, "exec: template must start with a program name")
	}
	var names []string
	for _, p := range phs {
		if _, fixed := def.Vars[p.Name]; !fixed && !slices.Contains(names, p.Name) {
			names = append(names, p.Name)
		}
	}
	return inferAndMerge(t, def, names, nil)
}

// expandShell handles shell:, run as sh -c SCRIPT -- VALUES….
func expandShell(t *Tool, def Definition) error {
	t.Mode = ModeShell
	t.Template = def.Shell
	script, names, raw, err := rewriteShell(def.Shell, def.Vars)
	if err != nil {
		return err
	}
	t.Command = []string{"sh", "-c", script, "--"}
	return inferAndMerge(t, def, names, raw)
}

// inferAndMerge builds the inferred parameters of a template (argument
// parameters at their positions, then the stdin shorthand) and merges the
// explicit parameters into them.
func inferAndMerge(t *Tool, def Definition, names []string, raw map[string]bool) error {
	for i, n := range names {
		pos := i
		t.Parameters = append(t.Parameters, Param{Name: n, Type: "string", Required: true, InjectAs: Argument, Position: &pos, Raw: raw[n]})
	}
	if def.Stdin != "" {
		if err := addStdinShorthand(t, def); err != nil {
			return err
		}
	}
	for _, pd := range def.Parameters {
		i := slices.IndexFunc(t.Parameters, func(p Param) bool { return p.Name == pd.Name })
		if i < 0 {
			return &ParamError{Param: pd.Name, Err: errorf(ErrUndefinedParameter, "parameter '%s' is not defined by the template (use ${%s} in it, or stdin: %s)", pd.Name, pd.Name, pd.Name)}
		}
		if err := mergeParam(&t.Parameters[i], pd); err != nil {
			return err
		}
	}
	return nil
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
// may be added, inject_as and position may only be restated.
func mergeParam(p *Param, pd ParamDef) error {
	if pd.InjectAs != nil && InjectAs(*pd.InjectAs) != p.InjectAs {
		return &ParamError{Param: p.Name, Err: errorf(ErrOverride, "Cannot override inject_as for parameter '%s' (inferred: %s, explicit: %s)", p.Name, p.InjectAs, *pd.InjectAs)}
	}
	if pd.Position != nil && (p.Position == nil || *p.Position != *pd.Position) {
		inferred := "none"
		if p.Position != nil {
			inferred = fmt.Sprint(*p.Position)
		}
		return &ParamError{Param: p.Name, Err: errorf(ErrOverride, "Cannot override position for parameter '%s' (inferred: %s, explicit: %d)", p.Name, inferred, *pd.Position)}
	}
	if pd.OptionName != nil {
		return &ParamError{Param: p.Name, Err: errorf(ErrOverride, "Cannot set option_name for parameter '%s' (inferred inject_as: %s)", p.Name, p.InjectAs)}
	}
	return applyMetadata(p, pd)
}

// applyMetadata copies type, description, default and required.
func applyMetadata(p *Param, pd ParamDef) error {
	if pd.Type != nil && *pd.Type != "string" {
		return &ParamError{Param: pd.Name, Err: errorf(ErrParameter, "parameter '%s' has type %q; only \"string\" is supported", pd.Name, *pd.Type)}
	}
	if pd.Description != nil {
		p.Description = *pd.Description
	}
	if pd.Required != nil {
		p.Required = *pd.Required
	}
	if pd.Default != nil {
		if pd.Required != nil && *pd.Required {
			return &ParamError{Param: pd.Name, Err: errorf(ErrParameter, "parameter '%s' has a default, so it cannot be required", pd.Name)}
		}
		d := *pd.Default
		p.Default = &d
		p.Required = false
	}
	return nil
}

// checkParams validates the merged parameter list.
func checkParams(ps []Param) error {
	seen := map[string]bool{}
	stdin := ""
	for _, p := range ps {
		switch {
		case p.Name == "":
			return errorf(ErrParameter, "a parameter has no name")
		case seen[p.Name]:
			return &ParamError{Param: p.Name, Err: errorf(ErrParameter, "parameter '%s' is defined twice", p.Name)}
		}
		seen[p.Name] = true
		switch p.InjectAs {
		case Argument:
		case Stdin:
			if stdin != "" {
				return &ParamError{Param: p.Name, Err: errorf(ErrParameter, "parameters '%s' and '%s' both inject_as stdin (at most one may)", stdin, p.Name)}
			}
			stdin = p.Name
		case Option:
			if p.OptionName == "" {
				return &ParamError{Param: p.Name, Err: errorf(ErrParameter, "parameter '%s' has inject_as: option but no option_name", p.Name)}
			}
		default:
			return &ParamError{Param: p.Name, Err: errorf(ErrParameter, "parameter '%s' has inject_as %q (want argument, stdin or option)", p.Name, p.InjectAs)}
		}
		if p.OptionName != "" && p.InjectAs != Option {
			return &ParamError{Param: p.Name, Err: errorf(ErrParameter, "parameter '%s' has option_name but inject_as %s", p.Name, p.InjectAs)}
		}
	}
	return nil
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
