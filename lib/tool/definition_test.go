package tool

import (
	"errors"
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
			want: Tool{Name: "t", Mode: ModeShell, Template: "echo ${a}", Command: []string{"sh", "-c", `echo "$1"`, "--"},
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
		{"position in command form", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{{Name: "a", Position: ptr(0)}}}, ErrParameter, "", "a"},
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
