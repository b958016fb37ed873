package tool

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzExecTemplate: any template either fails to load or yields words
// whose literal parts come back unchanged whatever the values are; each
// placeholder-only word is exactly the value.
func FuzzExecTemplate(f *testing.F) {
	for _, s := range []string{
		`grep "fixed pattern" ${file}`, "ls -la ${dir1} ${dir2}", "cmd --name=${n} x${n}y",
		`echo 'a ${b}' "c ${d}" e\ f`, "cat ${file} | wc -l", "a;b", "echo $(x)", "x ${a:raw}",
		"echo `id`", "a && b", "(x)", "x > y", "x\\\ny", "echo \\${p}", `"${a}"${b}`, "",
	} {
		f.Add(s, "v1", "; rm -rf / #")
	}
	f.Fuzz(func(t *testing.T, tmpl, v1, v2 string) {
		tl, err := Expand(Definition{Name: "t", Exec: tmpl})
		if err != nil {
			return
		}
		// Values travel as JSON strings: no NUL (Build rejects it) and
		// valid UTF-8 (JSON cannot carry anything else).
		if !usable(v1) || !usable(v2) {
			return
		}
		argv1 := buildAll(t, tl, v1)
		argv2 := buildAll(t, tl, v2)
		if len(argv1) != len(tl.ArgvTemplate) || len(argv2) != len(argv1) {
			t.Fatalf("argv length depends on values: %q vs %q (template %q)", argv1, argv2, tmpl)
		}
		for i, w := range tl.ArgvTemplate {
			hasParam := slices.ContainsFunc(w.Parts, func(p Part) bool { return p.Param != "" })
			switch {
			case !hasParam && (argv1[i] != argv2[i] || argv1[i] != wordText(w)):
				t.Fatalf("fixed word %d changed with the values: %q vs %q", i, argv1[i], argv2[i])
			case len(w.Parts) == 1 && hasParam && (argv1[i] != v1 || argv2[i] != v2):
				t.Fatalf("placeholder word %d = %q / %q, want the values", i, argv1[i], argv2[i])
			}
		}
	})
}

// buildAll builds a call giving every parameter the value v.
func buildAll(t *testing.T, tl Tool, v string) []string {
	t.Helper()
	args := map[string]string{}
	for _, p := range tl.Parameters {
		args[p.Name] = v
	}
	b, _ := json.Marshal(args)
	call, err := Build(tl, b)
	if err != nil {
		t.Fatalf("Build(%s): %v", b, err)
	}
	return call.Argv
}

// FuzzShellTemplate: a shell: template that loads never leaves a sentinel
// or a ${name} placeholder of its own parameters in the script.
func FuzzShellTemplate(f *testing.F) {
	for _, s := range []string{
		"grep ${pattern} ${file} | wc -l", "docker run ${options:raw} ${image}", `echo "a ${b}" 'c ${d}'`,
		"cat <<EOF\n${x}\nEOF", `echo "$(cat ${f})"`, "echo $(( ${n} ))", "echo \\${x}", "${a}${a}${b:raw}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		tl, err := Expand(Definition{Name: "t", Shell: tmpl})
		if err != nil {
			return
		}
		script := tl.Command[2]
		if strings.ContainsRune(script, sentinelOpen) || strings.ContainsRune(script, sentinelClose) {
			t.Fatalf("sentinel left in script %q", script)
		}
		for _, p := range tl.Parameters {
			if strings.Contains(script, "${"+p.Name+"}") || strings.Contains(script, "${"+p.Name+":raw}") {
				t.Fatalf("placeholder ${%s} left in script %q", p.Name, script)
			}
		}
		// With every parameter optional (written ${N:+"$N"} where it stands
		// unquoted) the script still parses and keeps its parameters.
		def := Definition{Name: "t", Shell: tmpl}
		for _, p := range tl.Parameters {
			def.Parameters = append(def.Parameters, ParamDef{Name: p.Name, Required: ptr(false)})
		}
		opt, err := Expand(def)
		if err != nil {
			t.Fatalf("optional parameters: %v", err)
		}
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(opt.Command[2]), ""); err != nil {
			t.Fatalf("script %q with optional parameters does not parse: %v", opt.Command[2], err)
		}
	})
}

// FuzzBuildCall: for each tool form, no argument value changes the number
// or content of the other argv elements, and in shell: mode the script
// (argv[2]) is always the template's script.
func FuzzBuildCall(f *testing.F) {
	for _, s := range []string{"plain", "", "a b", `"; rm -rf / ; "`, "$(id)", "`id`", "--port", "'", "\n", "${x}", "-"} {
		f.Add(s)
	}
	tools := []Tool{
		mustExpand(f, Definition{Name: "e", Exec: `grep -e ${pattern} --file=${file} fixed`, Stdin: "body"}),
		mustExpand(f, Definition{Name: "s", Shell: `grep ${pattern} "${file}" | wc -l`, Stdin: "body"}),
		mustExpand(f, Definition{Name: "c", HasCommand: true, Command: []string{"grep", "-n"}, Parameters: []ParamDef{
			{Name: "pattern"}, {Name: "file", InjectAs: ptr("option"), OptionName: ptr("--file")}, {Name: "body", InjectAs: ptr("stdin")},
		}}),
		mustExpand(f, Definition{Name: "k", HasCommand: true, Command: []string{"grep", "-e", "${pattern}", "--"}, Parameters: []ParamDef{
			{Name: "file", Position: ptr(1)}, {Name: "pattern"}, {Name: "body", InjectAs: ptr("stdin")},
		}}),
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !usable(v) {
			return
		}
		for _, tl := range tools {
			base := build(t, tl, "P", "F", "B")
			got := build(t, tl, v, "F", "B")
			if len(got.Argv) != len(base.Argv) {
				t.Fatalf("%s: argv length changed: %q vs %q", tl.Name, got.Argv, base.Argv)
			}
			diffs := 0
			for i := range got.Argv {
				if got.Argv[i] != base.Argv[i] {
					diffs++
					if got.Argv[i] != v {
						t.Fatalf("%s: element %d = %q, want the value %q", tl.Name, i, got.Argv[i], v)
					}
				}
			}
			if diffs > 1 || *got.Stdin != "B" {
				t.Fatalf("%s: value %q changed %d elements or the stdin: %q", tl.Name, v, diffs, got.Argv)
			}
			if tl.Mode == ModeShell && got.Argv[2] != tl.Command[2] {
				t.Fatalf("script changed: %q", got.Argv[2])
			}
			withBody := build(t, tl, "P", "F", v)
			if !slices.Equal(withBody.Argv, base.Argv) || *withBody.Stdin != v {
				t.Fatalf("%s: stdin value changed argv: %q", tl.Name, withBody.Argv)
			}
		}
	})
}

// usable reports whether a model could send v as a JSON string value that
// Build accepts.
func usable(v string) bool { return utf8.ValidString(v) && strings.IndexByte(v, 0) < 0 }

func build(t *testing.T, tl Tool, pattern, file, body string) Call {
	t.Helper()
	call, err := Build(tl, mustJSON(t, map[string]string{"pattern": pattern, "file": file, "body": body}))
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return call
}
