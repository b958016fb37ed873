package tool

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// metacharError is the §2.2.2 message for an operator found in an exec:
// template.
func metacharError(op string) error {
	return errorf(ErrMetachar, "Shell metacharacter '%s' not allowed in exec: mode. Use shell: mode instead.", op)
}

// tokenizeExec splits an exec: template into argv words the way POSIX sh
// would (quotes, backslash escapes), with a real sh parser, and rejects
// everything a shell would interpret beyond quoting: operators, redirects,
// pipes, expansions, substitutions, subshells, comments, assignments.
// Each ${param} stays a slot inside the word where it stands.
func tokenizeExec(tmpl string) ([]Word, []placeholder, error) {
	src, phs, err := scanPlaceholders(tmpl)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range phs {
		if p.Raw {
			return nil, nil, &ParamError{Param: p.Name, Err: errorf(ErrRawInExec, "${%s:raw} in exec: template (use shell: mode)", p.Name)}
		}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		if op := firstOperator(tmpl); op != "" {
			return nil, nil, metacharError(op)
		}
		return nil, nil, errorf(ErrTemplate, "parse exec: template: %v", err)
	}
	if len(f.Last) > 0 {
		return nil, nil, commentError()
	}
	if len(f.Stmts) == 0 {
		return nil, nil, errorf(ErrTemplate, "empty exec: template")
	}
	if len(f.Stmts) > 1 {
		if f.Stmts[0].Background {
			return nil, nil, metacharError("&")
		}
		if f.Stmts[0].Semicolon.IsValid() {
			return nil, nil, metacharError(";")
		}
		return nil, nil, metacharError("newline")
	}
	words, err := execStmt(f.Stmts[0], phs)
	if err != nil {
		return nil, nil, err
	}
	return words, phs, nil
}

func commentError() error {
	return errorf(ErrMetachar, "a word starting with '#' is a comment in sh; quote it ('#') to pass it literally in exec: mode")
}

// execStmt checks that st is one plain command and converts its words.
func execStmt(st *syntax.Stmt, phs []placeholder) ([]Word, error) {
	switch {
	case len(st.Comments) > 0:
		return nil, commentError()
	case st.Background:
		return nil, metacharError("&")
	case st.Negated:
		return nil, metacharError("!")
	case st.Semicolon.IsValid():
		return nil, metacharError(";")
	case len(st.Redirs) > 0:
		return nil, metacharError(st.Redirs[0].Op.String())
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			return nil, errorf(ErrMetachar, "variable assignment '%s=' not allowed in exec: mode. Use shell: mode instead.", c.Assigns[0].Name.Value)
		}
		words := make([]Word, 0, len(c.Args))
		for _, w := range c.Args {
			word, err := execWord(w, phs)
			if err != nil {
				return nil, err
			}
			words = append(words, word)
		}
		return words, nil
	case *syntax.BinaryCmd:
		return nil, metacharError(c.Op.String())
	case *syntax.Subshell:
		return nil, metacharError("(")
	case *syntax.Block:
		return nil, metacharError("{")
	case nil:
		return nil, errorf(ErrTemplate, "empty exec: template")
	default:
		return nil, errorf(ErrMetachar, "shell compound command not allowed in exec: mode. Use shell: mode instead.")
	}
}

// execWord converts one sh word to literal and parameter parts, removing
// quotes and backslashes as sh would.
func execWord(w *syntax.Word, phs []placeholder) (Word, error) {
	var text strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, "\\"+string(sentinelOpen)) {
				return Word{}, errorf(ErrTemplate, "escaped placeholder in exec: template")
			}
			text.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return Word{}, metacharError("$'")
			}
			text.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return Word{}, metacharError(`$"`)
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return Word{}, expansionError(dp)
				}
				text.WriteString(unescape(lit.Value, true))
			}
		default:
			return Word{}, expansionError(part)
		}
	}
	return Word{Parts: splitSentinels(text.String(), phs)}, nil
}

// expansionError names the expansion a word part would trigger in sh.
func expansionError(part syntax.WordPart) error {
	switch p := part.(type) {
	case *syntax.CmdSubst:
		if p.Backquotes {
			return metacharError("`")
		}
		return metacharError("$(")
	case *syntax.ArithmExp:
		return metacharError("$((")
	case *syntax.ParamExp:
		return errorf(ErrMetachar, "Shell metacharacter '$' not allowed in exec: mode (nothing expands variables; use ${name} for a parameter). Use shell: mode instead.")
	default:
		return errorf(ErrMetachar, "shell expansion not allowed in exec: mode. Use shell: mode instead.")
	}
}

// unescape removes backslash quoting from a literal's source text: outside
// double quotes a backslash quotes any character; inside them only $ ` " \
// and newline. A backslash-newline disappears in both.
func unescape(s string, inDouble bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !inDouble || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// firstOperator finds an unquoted operator in a template the parser
// rejected, so that e.g. "cat ${f} |" still gets the §2.2.2 message.
func firstOperator(tmpl string) string {
	var quote byte
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.IndexByte("|&;<>()`", c) >= 0:
			if i+1 < len(tmpl) && (tmpl[i:i+2] == "&&" || tmpl[i:i+2] == "||") {
				return tmpl[i : i+2]
			}
			return string(c)
		}
	}
	return ""
}
