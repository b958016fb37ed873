package sessions

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestorable: the state saved leaves out variables with secret names
// and bash's own read-only variables and call stack, which it refuses or
// keeps itself.
func TestRestorable(t *testing.T) {
	dump := "__delta_so=x __delta_bo=y\n" +
		"declare -x PATH=\"/bin\"\n" +
		"declare -r BASHOPTS=\"checkwinsize\"\n" +
		"declare -ar BASH_VERSINFO=([0]=\"5\")\n" +
		"declare -a BASH_SOURCE=([0]=\"environment\")\n" +
		"declare -ir EUID=\"0\"\n" +
		"declare -ir PPID=\"12\"\n" +
		"declare -x GITHUB_TOKEN=\"ghp_secret\"\n" +
		"declare -- dbPassword=$'a\\nb'\n" +
		"declare -a keys=([0]=\"k\")\n" +
		"declare -x PWD=\"/w\"\n" +
		"f () \n{ \n    declare -x API_KEY=inside-a-function\n}\n" +
		"# delta-sessions: state saved n1\n"
	want := "__delta_so=x __delta_bo=y\n" +
		"declare -x PATH=\"/bin\"\n" +
		"declare -a keys=([0]=\"k\")\n" +
		"declare -x PWD=\"/w\"\n" +
		"f () \n{ \n    declare -x API_KEY=inside-a-function\n}\n" +
		"# delta-sessions: state saved n1\n"
	// PATH is known to be plain (from the environment); the other names
	// are asked of the rule.
	plain := map[string]bool{"PATH": true}
	if got := string(restorable([]byte(dump), plain)); got != want {
		t.Errorf("restorable() =\n%s\nwant\n%s", got, want)
	}
	if got := string(restorable([]byte(dump), nil)); got != want {
		t.Errorf("restorable(no plain names) =\n%s\nwant\n%s", got, want)
	}
	clean := []byte("declare -x PATH=\"/bin\"\n")
	if got := restorable(clean, plain); &got[0] != &clean[0] {
		t.Errorf("restorable() copied a dump with nothing to drop")
	}
}

// TestStateHoldsNoWrapper: the saved state of a bash session keeps the
// user's functions but not the wrapper's own (they are redefined at every
// exec; dumping them doubled what each exec writes and sources).
func TestStateHoldsNoWrapper(t *testing.T) {
	st, opt := testStore(t)
	m, err := st.Start([]string{"bash"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{`greet() { echo "hi $1"; }`, "true"} {
		if _, err := st.Exec(m.SessionID, cmd, DefaultTimeout); err != nil {
			t.Fatal(err)
		}
	}
	res, err := st.Exec(m.SessionID, "greet you", DefaultTimeout)
	if err != nil || res.Stdout != "hi you\n" {
		t.Fatalf("greet you = %+v, %v; want the function kept", res, err)
	}
	state, err := os.ReadFile(filepath.Join(st.Path(m.SessionID), "env.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(state), "greet ()") || strings.Contains(string(state), "__delta_save") {
		t.Errorf("env.sh =\n%s\nwant the function greet and none of the wrapper's", state)
	}
}

// TestStateRestoresCleanly: what a bash session saves is what a shell
// takes back: no line of it is refused (bash's read-only variables are
// left out), while the options it keeps through its first line hold.
func TestStateRestoresCleanly(t *testing.T) {
	st, opt := testStore(t)
	m, err := st.Start([]string{"bash"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(m.SessionID, "set -o pipefail; shopt -s extglob; readonly MINE=1", DefaultTimeout); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(st.Path(m.SessionID), "env.sh")
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"BASHOPTS", "SHELLOPTS", "BASH_VERSINFO", "EUID", "PPID", "UID", "BASH_SOURCE"} {
		if strings.Contains(string(data), " "+name+"=") {
			t.Errorf("env.sh sets %s:\n%s", name, data)
		}
	}
	out, err := exec.Command("bash", "--noprofile", "--norc", "-c", `. "$1"`, "bash", state).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("sourcing env.sh: %v, output %q; want no line refused", err, out)
	}
	res, err := st.Exec(m.SessionID, `echo "$SHELLOPTS $BASHOPTS $MINE"; MINE=2`, DefaultTimeout)
	if err != nil || !strings.Contains(res.Stdout, "pipefail") || !strings.Contains(res.Stdout, "extglob") || !strings.HasSuffix(res.Stdout, " 1\n") ||
		!strings.Contains(res.Stderr, "MINE: readonly variable") {
		t.Errorf("after restore: %+v, %v; want pipefail, extglob and the user's read-only MINE=1 kept", res, err)
	}
}
