package tool

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		name string
		def  Definition
		want Tool
	}{
		{
			name: "spec §2.2.7 shell",
			def:  Definition{Name: "count_lines", Shell: "cat ${file} | wc -l"},
			want: Tool{Name: "count_lines", Mode: ModeShell, Template: "cat ${file} | wc -l",
				Command:    []string{"sh", "-c", `cat "$1" | wc -l`, "--"},
				Parameters: []Param{{Name: "file", Type: "string", Required: true, InjectAs: Argument, Position: ptr(0)}}},
		},
		{
			name: "exec with stdin shorthand",
			def:  Definition{Name: "write_file", Exec: "tee ${filename}", Stdin: "content"},
			want: Tool{Name: "write_file", Mode: ModeExec, Template: "tee ${filename}",
				Command: []string{"tee", "${filename}"},
				Parameters: []Param{
					{Name: "filename", Type: "string", Required: true, InjectAs: Argument, Position: ptr(0)},
					{Name: "content", Type: "string", Required: true, InjectAs: Stdin},
				}},
		},
		{
			name: "spec §2.2.4 valid override",
			def: Definition{Name: "search_tool", Exec: "grep ${pattern} ${file}", Parameters: []ParamDef{
				{Name: "file", Description: ptr("File to search in"), Default: ptr("./data.txt")},
				{Name: "pattern", Description: ptr("Search pattern (regex)")},
			}},
			want: Tool{Name: "search_tool", Mode: ModeExec, Template: "grep ${pattern} ${file}",
				Command: []string{"grep", "${pattern}", "${file}"},
				Parameters: []Param{
					{Name: "pattern", Type: "string", Description: "Search pattern (regex)", Required: true, InjectAs: Argument, Position: ptr(0)},
					{Name: "file", Type: "string", Description: "File to search in", Default: ptr("./data.txt"), InjectAs: Argument, Position: ptr(1)},
				}},
		},
		{
			name: "restating inferred values is allowed",
			def: Definition{Name: "t", Shell: "echo ${a}", Parameters: []ParamDef{
				{Name: "a", InjectAs: ptr("argument"), Position: ptr(0), Type: ptr("string"), Required: ptr(false)},
			}},
			want: Tool{Name: "t", Mode: ModeShell, Template: "echo ${a}", Command: []string{"sh", "-c", `echo ${1:+"$1"}`, "--"},
				Parameters: []Param{{Name: "a", Type: "string", InjectAs: Argument, Position: ptr(0)}}},
		},
		{
			name: "v1.1 command with every injection",
			def: Definition{Name: "serve", HasCommand: true, Command: []string{"serve", "-v"}, Parameters: []ParamDef{
				{Name: "dir", Required: ptr(false)},
				{Name: "port", InjectAs: ptr("option"), OptionName: ptr("--port"), Default: ptr("8080")},
				{Name: "body", InjectAs: ptr("stdin")},
			}},
			want: Tool{Name: "serve", Mode: ModeCommand, Command: []string{"serve", "-v"}, Parameters: []Param{
				{Name: "dir", Type: "string", InjectAs: Argument},
				{Name: "port", Type: "string", InjectAs: Option, OptionName: "--port", Default: ptr("8080")},
				{Name: "body", Type: "string", Required: true, InjectAs: Stdin},
			}},
		},
		{
			name: "raw captured",
			def:  Definition{Name: "d", Shell: "docker run ${options:raw} ${image}"},
			want: Tool{Name: "d", Mode: ModeShell, Template: "docker run ${options:raw} ${image}",
				Command: []string{"sh", "-c", `docker run $1 "$2"`, "--"},
				Parameters: []Param{
					{Name: "options", Type: "string", Required: true, InjectAs: Argument, Position: ptr(0), Raw: true},
					{Name: "image", Type: "string", Required: true, InjectAs: Argument, Position: ptr(1)},
				}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Expand(tc.def)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Tool{}, "ArgvTemplate")); diff != "" {
				t.Errorf("Expand mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		name  string
		def   Definition
		kind  error
		msg   string
		param string
	}{
		{"no mode", Definition{Name: "t"}, ErrMode, "tool must specify exactly one of: exec, shell, or command", ""},
		{"two modes", Definition{Name: "t", Exec: "ls", Shell: "ls"}, ErrMode, "", ""},
		{"empty command", Definition{Name: "t", HasCommand: true}, ErrMode, "", ""},
		{"spec invalid override", Definition{Name: "bad_tool", Shell: "cat ${file} | wc -l", Parameters: []ParamDef{{Name: "file", InjectAs: ptr("stdin")}}},
			ErrOverride, "Cannot override inject_as for parameter 'file' (inferred: argument, explicit: stdin)", "file"},
		{"position override", Definition{Name: "t", Exec: "cp ${a} ${b}", Parameters: []ParamDef{{Name: "b", Position: ptr(0)}}},
			ErrOverride, "Cannot override position for parameter 'b' (inferred: 1, explicit: 0)", "b"},
		{"option_name on a placeholder", Definition{Name: "t", Exec: "ls ${a}", Parameters: []ParamDef{{Name: "a", OptionName: ptr("--a")}}}, ErrOverride, "", "a"},
		{"stdin override of shorthand", Definition{Name: "t", Exec: "tee x", Stdin: "c", Parameters: []ParamDef{{Name: "c", InjectAs: ptr("argument")}}}, ErrOverride, "", "c"},
		{"undefined parameter", Definition{Name: "t", Exec: "ls ${a}", Parameters: []ParamDef{{Name: "b"}}}, ErrUndefinedParameter, "", "b"},
		{"raw in exec", Definition{Name: "t", Exec: "ls ${a:raw}"}, ErrRawInExec, "", "a"},
		{"metachar", Definition{Name: "t", Exec: "cat ${f} | wc -l"}, ErrMetachar, "Shell metacharacter '|' not allowed in exec: mode. Use shell: mode instead.", ""},
		{"stdin also placeholder", Definition{Name: "t", Exec: "tee ${c}", Stdin: "c"}, ErrParameter, "", "c"},
		{"two stdin", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a", InjectAs: ptr("stdin")}, {Name: "b", InjectAs: ptr("stdin")}}}, ErrParameter, "", "b"},
		{"option without name", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a", InjectAs: ptr("option")}}}, ErrParameter, "", "a"},
		{"bad inject_as", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a", InjectAs: ptr("env")}}}, ErrParameter, "", "a"},
		{"bad type", Definition{Name: "t", Exec: "x ${a}", Parameters: []ParamDef{{Name: "a", Type: ptr("number")}}}, ErrParameter, "", "a"},
		{"required with default", Definition{Name: "t", Exec: "x ${a}", Parameters: []ParamDef{{Name: "a", Required: ptr(true), Default: ptr("1")}}}, ErrParameter, "", "a"},
		{"duplicate parameter", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a"}, {Name: "a"}}}, ErrParameter, "", "a"},
		{"duplicate position in command form", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a", Position: ptr(0)}, {Name: "b", Position: ptr(0)}}}, ErrParameter, "parameters 'a' and 'b' both have position 0", "b"},
		{"position on stdin", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a", Position: ptr(0), InjectAs: ptr("stdin")}}}, ErrParameter, "", "a"},
		{"command slot position override", Definition{Name: "t", HasCommand: true, Command: []string{"cp", "${a}", "${b}"}, Parameters: []ParamDef{{Name: "a"}, {Name: "b", Position: ptr(0)}}},
			ErrOverride, "Cannot override position for parameter 'b' (inferred: 1, explicit: 0)", "b"},
		{"command slot as stdin shorthand", Definition{Name: "t", HasCommand: true, Command: []string{"cat", "${a}"}, Stdin: "a", Parameters: []ParamDef{{Name: "a"}}}, ErrParameter, "", "a"},
		{"command slot as stdin", Definition{Name: "t", HasCommand: true, Command: []string{"cat", "${a}"}, Parameters: []ParamDef{{Name: "a", InjectAs: ptr("stdin")}}}, ErrOverride, "", "a"},
		{"raw override", Definition{Name: "t", Shell: "ls ${a:raw}", Parameters: []ParamDef{{Name: "a", Raw: ptr(false)}}}, ErrOverride, "Cannot override :raw for parameter 'a' (inferred: true, explicit: false)", "a"},
		{"raw on an option", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a", Raw: ptr(true), InjectAs: ptr("option"), OptionName: ptr("-a")}}}, ErrParameter, "", "a"},
		{"empty exec", Definition{Name: "t", HasExec: true}, ErrEmptyTemplate, `exec: is empty; write the program to run and its arguments (exec: "ls -la ${dir}")`, ""},
		{"blank shell", Definition{Name: "t", Shell: "  ", HasShell: true}, ErrEmptyTemplate, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Expand(tc.def)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("Expand error = %v, want %v", err, tc.kind)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("Expand error = %q, want %q", err, tc.msg)
			}
			var pe *ParamError
			if tc.param != "" && (!errors.As(err, &pe) || pe.Param != tc.param) {
				t.Errorf("Expand error %v does not name parameter %q", err, tc.param)
			}
		})
	}
}

// TestExpandReportsEveryProblem: one Expand names every problem of a
// parameter, not only the first.
func TestExpandReportsEveryProblem(t *testing.T) {
	_, err := Expand(Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{
		{Name: "p", Type: ptr("integer"), InjectAs: ptr("bogus")},
		{Name: "q", InjectAs: ptr("option")},
	}})
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var pe *ParamError
		if !errors.As(e, &pe) || !errors.Is(e, ErrParameter) {
			t.Errorf("problem %v is not a ParamError matching ErrParameter", e)
		}
		got = append(got, e.Error())
	}
	want := []string{
		`parameter 'p' has type "integer"; only "string" is supported`,
		`parameter 'p' has inject_as "bogus" (want argument, stdin or option)`,
		`parameter 'q' has inject_as: option but no option_name`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// definitionOf is the expanded form read back as a command: definition, as
// a user pasting delta-tool-expand's output into agent.yaml gets it.
func definitionOf(tl Tool) Definition {
	d := Definition{Name: tl.Name, HasCommand: true, Command: tl.Command}
	for _, p := range tl.Parameters {
		inject, req, raw := string(p.InjectAs), p.Required, p.Raw
		pd := ParamDef{Name: p.Name, Type: ptr(p.Type), InjectAs: &inject, Required: &req, Default: p.Default, Position: p.Position, Raw: &raw}
		if p.OptionName != "" {
			pd.OptionName = ptr(p.OptionName)
		}
		d.Parameters = append(d.Parameters, pd)
	}
	return d
}

// TestExpandedFormLoadsBack: the expanded form of every definition form
// is itself a command: definition that builds the same calls.
func TestExpandedFormLoadsBack(t *testing.T) {
	defs := []Definition{
		{Name: "e", Exec: `cmd --name=${n} "fixed word" ${f}`, Stdin: "body", Parameters: []ParamDef{{Name: "f", Required: ptr(false)}}},
		{Name: "s", Shell: `grep ${pattern:raw} ${file} | head -n "${n}"`, Parameters: []ParamDef{{Name: "file", Required: ptr(false)}, {Name: "n", Default: ptr("5")}}},
		{Name: "c", HasCommand: true, Command: []string{"cp"}, Parameters: []ParamDef{{Name: "dst", Position: ptr(1)}, {Name: "src", Position: ptr(0)}, {Name: "v", InjectAs: ptr("option"), OptionName: ptr("-S"), Required: ptr(false)}}},
	}
	args := []string{`{}`, `{"n":"a b","pattern":"*.go","dst":"D","src":"S"}`, `{"n":"x","f":"F","body":"B","pattern":"p","file":"$(id)","dst":"D","src":"S","v":"~"}`}
	for _, def := range defs {
		first := mustExpand(t, def)
		again, err := Expand(definitionOf(first))
		if err != nil {
			t.Fatalf("%s: expanded form does not load back: %v", def.Name, err)
		}
		built := 0
		for _, all := range args {
			a := argsFor(t, first, all)
			want, werr := Build(first, a)
			got, gerr := Build(again, a)
			if werr == nil {
				built++
			}
			if (werr == nil) != (gerr == nil) {
				t.Errorf("%s %s: errors differ: %v vs %v", def.Name, a, werr, gerr)
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s: calls differ (-original +reloaded):\n%s", def.Name, a, diff)
			}
		}
		if built == 0 {
			t.Errorf("%s: no argument set builds a call; the test compares only errors", def.Name)
		}
	}
}

// argsFor keeps the arguments that name a parameter of tl.
func argsFor(t *testing.T, tl Tool, all string) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal([]byte(all), &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if !slices.ContainsFunc(tl.Parameters, func(p Param) bool { return p.Name == k }) {
			delete(m, k)
		}
	}
	b, _ := json.Marshal(m)
	return b
}
