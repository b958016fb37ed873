package secret

import (
	"testing"

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
