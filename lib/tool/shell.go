package tool

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// quoting is the sh quoting context a placeholder stands in.
type quoting int

const (
	unquoted       quoting = iota
	inDouble               // "…${p}…"
	inSingle               // '…${p}…'
	inDollarSingle         // $'…${p}…'
	inHeredoc              // the body of an unquoted here-document
)

// rewriteShell turns a shell: template into the script given to sh -c:
// each ${p} becomes a positional parameter, quoted as its context needs
// ("$1" unquoted, $1 inside double quotes, '"$1"' closing and reopening
// single quotes), ${p:raw} an unquoted $1. Placeholders are numbered by
// first appearance and a repeated placeholder reuses its number, so a value
// only ever travels in argv, never in the script. names lists the
// parameters in number order.
// Placeholders naming one of vars are replaced by the variable's value,
// quoted for its context, and are not parameters. A parameter that
// optional marks and that stands unquoted becomes ${1:+"$1"}: one word
// when it has a non-empty value, no word at all otherwise (as in exec:).
func rewriteShell(tmpl string, vars map[string]string, optional map[string]bool) (script string, names []string, raw map[string]bool, err error) {
	src, phs, err := scanPlaceholders(tmpl)
	if err != nil {
		return "", nil, nil, err
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		return "", nil, nil, errorf(ErrTemplate, "parse shell: template: %v", err)
	}
	ctx, err := placeholderContexts(f, phs)
	if err != nil {
		return "", nil, nil, err
	}
	number := map[string]int{}
	raw = map[string]bool{}
	var b strings.Builder
	pos := 0
	for i, p := range phs {
		if v, fixed := vars[p.Name]; fixed {
			b.WriteString(tmpl[pos:p.Start])
			b.WriteString(quoteLiteral(v, ctx[i]))
			pos = p.End
			continue
		}
		n, seen := number[p.Name]
		if !seen {
			names = append(names, p.Name)
			n = len(names)
			number[p.Name] = n
		}
		if seen && raw[p.Name] != p.Raw {
			return "", nil, nil, &ParamError{Param: p.Name, Err: errorf(ErrTemplate, "parameter '%s' is used both with and without :raw", p.Name)}
		}
		raw[p.Name] = p.Raw
		b.WriteString(tmpl[pos:p.Start])
		b.WriteString(positional(n, p.Raw, optional[p.Name], ctx[i]))
		pos = p.End
	}
	b.WriteString(tmpl[pos:])
	return b.String(), names, raw, nil
}

// positional is the text standing for parameter n in context q.
func positional(n int, raw, optional bool, q quoting) string {
	ref := "$" + strconv.Itoa(n)
	if n > 9 {
		ref = "${" + strconv.Itoa(n) + "}"
	}
	quoted := `"` + ref + `"`
	switch {
	case raw:
		quoted = ref
	case optional && q == unquoted:
		return "${" + strconv.Itoa(n) + `:+"` + ref + `"}`
	}
	switch q {
	case inDouble, inHeredoc:
		return ref
	case inSingle:
		return "'" + quoted + "'"
	case inDollarSingle:
		return "'" + quoted + "$'"
	default:
		return quoted
	}
}

// placeholderContexts walks the parsed script and records, for every
// placeholder index, the quoting it stands in. Placeholders in arithmetic,
// in quoted here-documents or escaped with a backslash cannot be made safe
// and are errors.
func placeholderContexts(f *syntax.File, phs []placeholder) ([]quoting, error) {
	ctx := make([]quoting, len(phs))
	var stack []syntax.Node
	var err error
	syntax.Walk(f, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		switch v := n.(type) {
		case *syntax.SglQuoted:
			q := inSingle
			if v.Dollar {
				q = inDollarSingle
			}
			for _, i := range sentinelIndexes(v.Value) {
				ctx[i] = q
			}
		case *syntax.Lit:
			idx := sentinelIndexes(v.Value)
			if len(idx) == 0 {
				break
			}
			if strings.Contains(v.Value, "\\"+string(sentinelOpen)) {
				err = &ParamError{Param: phs[idx[0]].Name, Err: errorf(ErrTemplate, "escaped placeholder \\${%s}", phs[idx[0]].Name)}
				return false
			}
			var q quoting
			q, err = litContext(stack, v)
			for _, i := range idx {
				ctx[i] = q
				if err != nil {
					err = &ParamError{Param: phs[i].Name, Err: err}
				}
			}
		}
		stack = append(stack, n)
		return err == nil
	})
	return ctx, err
}

// litContext decides the quoting of a literal from its ancestors.
func litContext(stack []syntax.Node, lit *syntax.Lit) (quoting, error) {
	var child syntax.Node = lit
	for i := len(stack) - 1; i >= 0; i-- {
		switch a := stack[i].(type) {
		case *syntax.DblQuoted:
			return inDouble, nil
		case *syntax.CmdSubst, *syntax.Stmt:
			return unquoted, nil
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm, *syntax.CStyleLoop:
			return 0, errorf(ErrTemplate, "a placeholder inside arithmetic cannot be quoted safely; pass it as a plain word and validate it in the script")
		case *syntax.Redirect:
			if a.Hdoc != nil && child == syntax.Node(a.Hdoc) {
				if wordQuoted(a.Word) {
					return 0, errorf(ErrTemplate, "a placeholder inside a quoted here-document is never expanded; use an unquoted delimiter")
				}
				return inHeredoc, nil
			}
			return unquoted, nil
		}
		child = stack[i]
	}
	return unquoted, nil
}

// wordQuoted reports whether a here-document delimiter is quoted (which
// turns expansion in the body off).
func wordQuoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch v := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(v.Value, `\`) {
				return true
			}
		}
	}
	return false
}

// sentinelIndexes lists the placeholder indexes of the sentinels in s.
func sentinelIndexes(s string) []int {
	var out []int
	for {
		i := strings.IndexRune(s, sentinelOpen)
		if i < 0 {
			return out
		}
		s = s[i+len(string(sentinelOpen)):]
		j := strings.IndexRune(s, sentinelClose)
		if j < 0 {
			return out
		}
		if n, err := strconv.Atoi(s[:j]); err == nil {
			out = append(out, n)
		}
		s = s[j:]
	}
}

// quoteLiteral is the text that makes sh read exactly v in context q.
func quoteLiteral(v string, q quoting) string {
	single := "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	switch q {
	case inDouble:
		return strings.NewReplacer(`\`, `\\`, `$`, `\$`, "`", "\\`", `"`, `\"`).Replace(v)
	case inHeredoc:
		return strings.NewReplacer(`\`, `\\`, `$`, `\$`, "`", "\\`").Replace(v)
	case inSingle:
		return "'" + single + "'"
	case inDollarSingle:
		return "'" + single + "$'"
	default:
		return single
	}
}
