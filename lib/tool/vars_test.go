package tool

import (
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVarsExecAndCommand: a fixed variable is literal text of its word and
// never a parameter.
func TestVarsExecAndCommand(t *testing.T) {
	vars := map[string]string{"AGENT_HOME": "/agents/my agent"}
	tl := mustExpand(t, Definition{Name: "t", Exec: "${AGENT_HOME}/tools/search.sh --q=${q}", Vars: vars})
	call, err := Build(tl, mustJSON(t, map[string]string{"q": "x y"}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/agents/my agent/tools/search.sh", "--q=x y"}, call.Argv); diff != "" {
		t.Errorf("exec argv (-want +got):\n%s", diff)
	}
	if len(tl.Parameters) != 1 || tl.Parameters[0].Name != "q" {
		t.Errorf("parameters = %+v, want only q", tl.Parameters)
	}
	cmd := mustExpand(t, Definition{Name: "c", HasCommand: true, Command: []string{"${AGENT_HOME}/run.sh"}, Vars: vars})
	if diff := cmp.Diff([]string{"/agents/my agent/run.sh"}, cmd.Command); diff != "" {
		t.Errorf("command (-want +got):\n%s", diff)
	}
}

// TestVarsShellQuoting runs sh to check that a hostile variable value is
// read back exactly in every quoting context.
func TestVarsShellQuoting(t *testing.T) {
	home := `/tmp/a b'c"d$HOME` + "`x`\\e"
	tl := mustExpand(t, Definition{Name: "t", Vars: map[string]string{"AGENT_HOME": home},
		Shell: "printf '%s|' ${AGENT_HOME} \"in ${AGENT_HOME}\" 'sq ${AGENT_HOME}' ${v}; cat <<EOF\nhd ${AGENT_HOME}\nEOF"})
	if len(tl.Parameters) != 1 || tl.Parameters[0].Name != "v" || *tl.Parameters[0].Position != 0 {
		t.Fatalf("parameters = %+v, want only v at position 0", tl.Parameters)
	}
	call, err := Build(tl, mustJSON(t, map[string]string{"v": "V"}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(call.Argv[0], call.Argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("sh: %v\n%s", err, out)
	}
	want := home + "|in " + home + "|sq " + home + "|V|hd " + home + "\n"
	if string(out) != want {
		t.Errorf("output = %q, want %q (script %q)", out, want, call.Argv[2])
	}
}
