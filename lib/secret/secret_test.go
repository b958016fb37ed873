package secret

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestIsSecret(t *testing.T) {
	secrets := []struct{ name, value string }{
		{"DELTA_API_KEY", "x"}, {"OPENAI_API_KEY", "x"}, {"GITHUB_TOKEN", "x"}, {"GH_PAT", "x"},
		{"DB_PASSWORD", "x"}, {"MYSQL_PWD", "x"}, {"LDAP_PASSWD", "x"}, {"SLACK_SIGNING_SECRET", "x"},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/k.json"}, {"AZURE_CREDENTIAL", "x"}, {"SSH_AUTH_SOCK", "/tmp/s"},
		{"DOCKER_AUTH_CONFIG", "{}"}, {"npm_config__authToken", "x"}, {"npm_config_//registry.npmjs.org/:_auth", "x"},
		{"AWS_ACCESS_KEY_ID", "x"}, {"AWS_REGION", "eu-west-1"}, {"DATABASE_URL", "postgres://h/db"},
		{"SESSION_COOKIE", "x"}, {"apiKey", "x"}, {"stripeSecretKey", "x"}, {"HF_APIKEY", "x"},
		{"VAULT_AUTHTOKEN", "x"}, {"sentry-dsn-key", "x"}, {"my.secret", "x"},
		{"REDIS_ENDPOINT", "redis://user:hunter2@cache:6379/0"},
	}
	for _, s := range secrets {
		if !IsSecret(s.name, s.value) {
			t.Errorf("IsSecret(%q, %q) = false, want true", s.name, s.value)
		}
	}
	plain := []struct{ name, value string }{
		{"PATH", "/usr/bin"}, {"HOME", "/root"}, {"PWD", "/w"}, {"OLDPWD", "/"}, {"LANG", "C"},
		{"GIT_AUTHOR_NAME", "me"}, {"KEYBOARD_LAYOUT", "us"}, {"TERM", "xterm"}, {"PATTERN", "*.go"},
		{"HTTP_PROXY", "http://proxy:3128"}, {"REDIS_URL", "redis://cache:6379"}, {"GOPATH", "/go"},
	}
	for _, s := range plain {
		if IsSecret(s.name, s.value) {
			t.Errorf("IsSecret(%q, %q) = true, want false", s.name, s.value)
		}
	}
}

func TestParts(t *testing.T) {
	tests := map[string][]string{
		"DELTA_API_KEY":    {"DELTA", "API", "KEY"},
		"authToken":        {"auth", "Token"},
		"APIKey":           {"API", "Key"},
		"sentry-dsn.key":   {"sentry", "dsn", "key"},
		"npm_config__auth": {"npm", "config", "auth"},
	}
	for in, want := range tests {
		if diff := cmp.Diff(want, Parts(in)); diff != "" {
			t.Errorf("Parts(%q) mismatch (-want +got):\n%s", in, diff)
		}
	}
}

func FuzzIsSecret(f *testing.F) {
	f.Add("DELTA_API_KEY", "v")
	f.Add("x", "postgres://u:p@h/d")
	f.Fuzz(func(t *testing.T, name, value string) {
		// The rule never panics, and a name that is a secret is one for
		// any value.
		if IsSecretName(name) && !IsSecret(name, value) {
			t.Errorf("IsSecretName(%q) but not IsSecret", name)
		}
	})
}

// runeParts is Parts as it was first written, over a []rune (each
// invalid UTF-8 byte a U+FFFD): the byte-bound splitter must find the same
// parts.
func runeParts(name string) []string {
	var parts []string
	for _, f := range strings.FieldsFunc(name, func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == '/' || r == ':'
	}) {
		rs := []rune(f)
		start := 0
		for i := 1; i < len(rs); i++ {
			lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			acronymEnd := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1])
			if lowerToUpper || acronymEnd {
				parts = append(parts, string(rs[start:i]))
				start = i
			}
		}
		parts = append(parts, string(rs[start:]))
	}
	return parts
}

// checkParts fails when Parts or the upper-case parts the rule matches
// differ from runeParts on name.
func checkParts(t *testing.T, name string) {
	t.Helper()
	want := runeParts(name)
	if utf8.ValidString(name) {
		if diff := cmp.Diff(want, Parts(name)); diff != "" {
			t.Errorf("Parts(%q) mismatch (-runeParts +got):\n%s", name, diff)
		}
	}
	var got []string
	upperParts(name, strings.ToUpper(name), func(p string) bool { got = append(got, p); return false })
	for i := range want {
		want[i] = strings.ToUpper(want[i])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("upperParts(%q) mismatch (-want +got):\n%s", name, diff)
	}
}

func TestPartsAsRunes(t *testing.T) {
	for _, name := range []string{"", "_", "a", "A", "aB", "ABc", "ABCDef", "x__y", "ÉtéKey", "straßeToken",
		"ǅungla", "\xffKEY", "a\xffB", "kEY_\u212aEY", "npm_config_//registry.npmjs.org/:_authToken"} {
		checkParts(t, name)
	}
}

// TestIsSecretNameAllocates: an upper-case name is judged without
// allocating, a mixed-case one with its upper-case copy only.
func TestIsSecretNameAllocates(t *testing.T) {
	for name, want := range map[string]float64{"PATH": 0, "DELTA_API_KEY": 0, "XDG_SESSION_TYPE": 0, "stripeSecretKey": 1} {
		if got := testing.AllocsPerRun(20, func() { IsSecretName(name) }); got > want {
			t.Errorf("IsSecretName(%q) made %v allocations, want at most %v", name, got, want)
		}
	}
}

func FuzzParts(f *testing.F) {
	f.Add("DELTA_API_KEY")
	f.Add("APIKey.\xffauthToken")
	f.Fuzz(checkParts)
}
