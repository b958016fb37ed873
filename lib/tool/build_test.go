package tool

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustExpand(t testing.TB, d Definition) Tool {
	t.Helper()
	tl, err := Expand(d)
	if err != nil {
		t.Fatalf("Expand(%+v): %v", d, err)
	}
	return tl
}

func TestBuild(t *testing.T) {
	serve := Definition{Name: "serve", HasCommand: true, Command: []string{"serve", "-v"}, Parameters: []ParamDef{
		{Name: "dir", Required: ptr(false)},
		{Name: "port", InjectAs: ptr("option"), OptionName: ptr("--port"), Default: ptr("8080")},
		{Name: "body", InjectAs: ptr("stdin"), Required: ptr(false)},
	}}
	tests := []struct {
		name string
		def  Definition
		args string
		want Call
	}{
		{"exec", Definition{Name: "t", Exec: `grep "fixed pattern" ${file}`}, `{"file":"a b.txt"}`,
			Call{Argv: []string{"grep", "fixed pattern", "a b.txt"}}},
		{"exec glued", Definition{Name: "t", Exec: `cmd --name=${n} x${n}y`}, `{"n":"v w"}`,
			Call{Argv: []string{"cmd", "--name=v w", "xv wy"}}},
		{"exec hostile value is one element", Definition{Name: "t", Exec: `echo ${m}`}, `{"m":"; rm -rf / #"}`,
			Call{Argv: []string{"echo", "; rm -rf / #"}}},
		{"exec stdin", Definition{Name: "t", Exec: "tee ${f}", Stdin: "c"}, `{"f":"out","c":"line\n"}`,
			Call{Argv: []string{"tee", "out"}, Stdin: ptr("line\n")}},
		{"exec optional omitted word", Definition{Name: "t", Exec: "ls ${dir} -x", Parameters: []ParamDef{{Name: "dir", Required: ptr(false)}}}, `{}`,
			Call{Argv: []string{"ls", "-x"}}},
		{"exec default", Definition{Name: "t", Exec: "ls ${dir}", Parameters: []ParamDef{{Name: "dir", Default: ptr(".")}}}, `{}`,
			Call{Argv: []string{"ls", "."}}},
		{"shell", Definition{Name: "t", Shell: "grep ${pattern} ${file} | wc -l"}, `{"file":"data.txt","pattern":"\" ; rm -rf / ; \""}`,
			Call{Argv: []string{"sh", "-c", `grep "$1" "$2" | wc -l`, "--", `" ; rm -rf / ; "`, "data.txt"}}},
		{"shell optional absent keeps numbering", Definition{Name: "t", Shell: "echo ${a} ${b}", Parameters: []ParamDef{{Name: "a", Required: ptr(false)}}}, `{"b":"B"}`,
			Call{Argv: []string{"sh", "-c", `echo ${1:+"$1"} "$2"`, "--", "", "B"}}},
		{"shell optional absent at the end is no argument", Definition{Name: "t", Shell: "ls -la ${dir}", Parameters: []ParamDef{{Name: "dir", Required: ptr(false)}}}, `{}`,
			Call{Argv: []string{"sh", "-c", `ls -la ${1:+"$1"}`, "--"}}},
		{"shell optional quoted by the author stays one word", Definition{Name: "t", Shell: `test -n "${dir}"`, Parameters: []ParamDef{{Name: "dir", Required: ptr(false)}}}, `{"dir":"x"}`,
			Call{Argv: []string{"sh", "-c", `test -n "$1"`, "--", "x"}}},
		{"command position orders argv", Definition{Name: "cp", HasCommand: true, Command: []string{"cp"}, Parameters: []ParamDef{{Name: "dst", Position: ptr(1)}, {Name: "src", Position: ptr(0)}}}, `{"dst":"b","src":"a"}`,
			Call{Argv: []string{"cp", "a", "b"}}},
		{"command positioned before the others", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{
			{Name: "o", InjectAs: ptr("option"), OptionName: ptr("-o")}, {Name: "late"}, {Name: "p", Position: ptr(0)}}}, `{"o":"O","late":"L","p":"P"}`,
			Call{Argv: []string{"x", "P", "-o", "O", "L"}}},
		{"command absent positioned keeps later positions", Definition{Name: "t", HasCommand: true, Command: []string{"sh", "-c", `echo "$1" "$2"`, "--"}, Parameters: []ParamDef{
			{Name: "a", Position: ptr(0), Required: ptr(false)}, {Name: "b", Position: ptr(1), Required: ptr(false)}}}, `{"b":"B"}`,
			Call{Argv: []string{"sh", "-c", `echo "$1" "$2"`, "--", "", "B"}}},
		{"command absent positioned at the end is dropped", Definition{Name: "t", HasCommand: true, Command: []string{"x"}, Parameters: []ParamDef{
			{Name: "a", Position: ptr(0)}, {Name: "b", Position: ptr(1), Required: ptr(false)}}}, `{"a":"A"}`,
			Call{Argv: []string{"x", "A"}}},
		{"command slots are filled like exec words", Definition{Name: "t", HasCommand: true, Command: []string{"cmd", "--name=${n}", "${f}", "${other}", "${n:raw}"}, Parameters: []ParamDef{{Name: "f", Required: ptr(false)}, {Name: "n"}}}, `{"n":"v w"}`,
			Call{Argv: []string{"cmd", "--name=v w", "${other}", "${n:raw}"}}},
		{"command slot value is one element", Definition{Name: "t", HasCommand: true, Command: []string{"echo", "${m}"}, Parameters: []ParamDef{{Name: "m"}}}, `{"m":"; rm -rf / #"}`,
			Call{Argv: []string{"echo", "; rm -rf / #"}}},
		{"command fixed variable is literal, not a slot", Definition{Name: "t", HasCommand: true, Command: []string{"${AGENT_HOME}/x.sh"}, Parameters: []ParamDef{{Name: "AGENT_HOME"}}, Vars: map[string]string{"AGENT_HOME": "/h/${y}"}}, `{"AGENT_HOME":"v"}`,
			Call{Argv: []string{"/h/${y}/x.sh", "v"}}},
		{"command all injections", serve, `{"dir":"/srv","body":"hello"}`,
			Call{Argv: []string{"serve", "-v", "/srv", "--port", "8080"}, Stdin: ptr("hello")}},
		{"command option given", serve, `{"port":9090}`,
			Call{Argv: []string{"serve", "-v", "--port", "9090"}}},
		{"numbers and booleans are stringified", Definition{Name: "t", Exec: "x ${a} ${b} ${c}"}, `{"a":1.50,"b":true,"c":-3}`,
			Call{Argv: []string{"x", "1.50", "true", "-3"}}},
		{"null is absent", Definition{Name: "t", Exec: "x ${a}", Parameters: []ParamDef{{Name: "a", Default: ptr("d")}}}, `{"a":null}`,
			Call{Argv: []string{"x", "d"}}},
		{"null arguments", Definition{Name: "t", Exec: "date"}, `null`, Call{Argv: []string{"date"}}},
		{"empty arguments", Definition{Name: "t", Exec: "date"}, ``, Call{Argv: []string{"date"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Build(mustExpand(t, tc.def), json.RawMessage(tc.args))
			if err != nil {
				t.Fatalf("Build(%s): %v", tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Build(%s) mismatch (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	tl := mustExpand(t, Definition{Name: "t", Exec: "x ${a}"})
	tests := []struct {
		args string
		kind error
	}{
		{`{}`, ErrMissingArgument},
		{`{"a":null}`, ErrMissingArgument},
		{`{"a":"x","b":"y"}`, ErrUnknownArgument},
		{`{"a":["x"]}`, ErrBadArgument},
		{`{"a":{"x":1}}`, ErrBadArgument},
		{`{"a":"nul\u0000byte"}`, ErrBadArgument},
		{`["a"]`, ErrBadArgument},
		{`"a"`, ErrBadArgument},
		{`{"a":`, ErrBadArgument},
	}
	for _, tc := range tests {
		if _, err := Build(tl, json.RawMessage(tc.args)); !errors.Is(err, tc.kind) {
			t.Errorf("Build(%s) error = %v, want %v", tc.args, err, tc.kind)
		}
	}
}

func TestSchema(t *testing.T) {
	tl := mustExpand(t, Definition{Name: "search", Description: "Search", Exec: "grep ${pattern} ${file}", Parameters: []ParamDef{
		{Name: "file", Description: ptr("File"), Default: ptr("x")},
	}})
	want := `{"type":"object","properties":{"pattern":{"type":"string"},"file":{"type":"string","description":"File (default: \"x\")","default":"x"}},"required":["pattern"],"additionalProperties":false}`
	if got := string(Schema(tl)); got != want {
		t.Errorf("Schema = %s, want %s", got, want)
	}
	spec := Spec(tl)
	if spec.Name != "search" || spec.Description != "Search" || !json.Valid(spec.Parameters) {
		t.Errorf("Spec = %+v", spec)
	}
	noParams := mustExpand(t, Definition{Name: "d", Exec: "date"})
	if got, want := string(Schema(noParams)), `{"type":"object","properties":{},"required":[],"additionalProperties":false}`; got != want {
		t.Errorf("Schema(no params) = %s, want %s", got, want)
	}
}

func TestAskHumanSpec(t *testing.T) {
	spec := AskHumanSpec()
	var schema struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if spec.Name != "ask_human" {
		t.Errorf("name = %q", spec.Name)
	}
	if diff := cmp.Diff([]string{"prompt"}, schema.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if schema.Properties["sensitive"].Type != "boolean" || schema.Properties["input_type"].Type != "string" || len(schema.Properties["input_type"].Enum) != 3 {
		t.Errorf("properties = %+v", schema.Properties)
	}
}
