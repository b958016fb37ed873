package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWithoutSecrets(t *testing.T) {
	dump := "__delta_so=x __delta_bo=y\n" +
		"declare -x PATH=\"/bin\"\n" +
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
	if got := string(withoutSecrets([]byte(dump), plain)); got != want {
		t.Errorf("withoutSecrets() =\n%s\nwant\n%s", got, want)
	}
	if got := string(withoutSecrets([]byte(dump), nil)); got != want {
		t.Errorf("withoutSecrets(no plain names) =\n%s\nwant\n%s", got, want)
	}
	clean := []byte("declare -x PATH=\"/bin\"\n")
	if got := withoutSecrets(clean, plain); &got[0] != &clean[0] {
		t.Errorf("withoutSecrets() copied a dump with nothing to drop")
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
