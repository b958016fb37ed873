package sessions

import "testing"

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
