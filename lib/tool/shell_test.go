package tool

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRewriteShell(t *testing.T) {
	tests := []struct {
		name   string
		tmpl   string
		script string
		names  []string
	}{
		{"spec example", "grep ${pattern} ${file} | wc -l", `grep "$1" "$2" | wc -l`, []string{"pattern", "file"}},
		{"raw", "docker run ${options:raw} ${image}", `docker run $1 "$2"`, []string{"options", "image"}},
		{"repeated reuses number", "echo ${a} ${b} ${a}", `echo "$1" "$2" "$1"`, []string{"a", "b"}},
		{"inside double quotes", `echo "hello ${name}!"`, `echo "hello $1!"`, []string{"name"}},
		{"inside single quotes", `echo 'x ${v} y'`, `echo 'x '"$1"' y'`, []string{"v"}},
		{"raw inside single quotes", `echo 'x ${v:raw} y'`, `echo 'x '$1' y'`, []string{"v"}},
		{"command substitution resets quoting", `echo "$(cat ${f})"`, `echo "$(cat "$1")"`, []string{"f"}},
		{"here-document body", "cat <<EOF\nhi ${who}\nEOF", "cat <<EOF\nhi $1\nEOF", []string{"who"}},
		{"env var untouched", `echo $HOME ${x}`, `echo $HOME "$1"`, []string{"x"}},
		{"tenth parameter braced", "echo ${a} ${b} ${c} ${d} ${e} ${f} ${g} ${h} ${i} ${j}", `echo "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}"`, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script, names, _, err := rewriteShell(tc.tmpl, nil, nil)
			if err != nil {
				t.Fatalf("rewriteShell(%q): %v", tc.tmpl, err)
			}
			if script != tc.script {
				t.Errorf("rewriteShell(%q) script = %q, want %q", tc.tmpl, script, tc.script)
			}
			if diff := cmp.Diff(tc.names, names); diff != "" {
				t.Errorf("rewriteShell(%q) names (-want +got):\n%s", tc.tmpl, diff)
			}
		})
	}
}

func TestRewriteShellRejects(t *testing.T) {
	for _, tmpl := range []string{
		"echo $(( ${n} + 1 ))",
		"cat <<'EOF'\n${x}\nEOF",
		`echo \${x}`,
		"echo ${a} ${a:raw}",
		"echo 'unterminated",
	} {
		if _, _, _, err := rewriteShell(tmpl, nil, nil); !errors.Is(err, ErrTemplate) {
			t.Errorf("rewriteShell(%q) error = %v, want ErrTemplate", tmpl, err)
		}
	}
}

// TestShellValuesStayData runs the built calls with a real sh and checks
// that hostile values come out as data, never as code.
func TestShellValuesStayData(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	hostile := `"; echo INJECTED; "` + "'$(echo INJECTED)'`echo INJECTED`$HOME"
	tl, err := Expand(Definition{Name: "t", Shell: `printf '%s|' ${a} "in ${a}" 'sq ${a}' "$(printf '%s' ${a})"; cat <<EOF
doc ${a}
EOF`})
	if err != nil {
		t.Fatal(err)
	}
	call, err := Build(tl, mustJSON(t, map[string]string{"a": hostile}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(call.Argv[0], call.Argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("sh: %v\n%s", err, out)
	}
	want := hostile + "|in " + hostile + "|sq " + hostile + "|" + hostile + "|doc " + hostile + "\n"
	if string(out) != want {
		t.Errorf("output = %q, want %q", out, want)
	}
	if strings.Contains(call.Argv[2], "INJECTED") {
		t.Errorf("value leaked into the script: %q", call.Argv[2])
	}
}

// TestShellRawSplits shows what :raw is for: the shell splits the value.
func TestShellRawSplits(t *testing.T) {
	tl, err := Expand(Definition{Name: "t", Shell: `printf '<%s>' ${flags:raw} ${name}`})
	if err != nil {
		t.Fatal(err)
	}
	call, err := Build(tl, mustJSON(t, map[string]string{"flags": "-a -b", "name": "x y"}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(call.Argv[0], call.Argv[1:]...).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "<-a><-b><x y>"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}
