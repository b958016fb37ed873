package agent

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFilterEnv(t *testing.T) {
	environ := []string{
		"PATH=/bin", "HOME=/home/u", "OPENAI_API_KEY=sk", "openai_api_key=sk",
		"AWS_SECRET=s", "GITHUB_TOKEN=t", "DB_PASSWORD=p", "GCP_CREDENTIAL=c",
		"API_KEY=bare", "TOKEN_COUNT=3", "MY_TOKEN_FILE=/f", "DELTA_API_KEY=k", "NOEQUALS",
		"PWD=/w", "GIT_AUTHOR_NAME=me", "PG=postgres://u:pw@h/db",
	}
	tests := []struct {
		name string
		cfg  EnvConfig
		want []string
	}{
		{"defaults remove secrets case-insensitively", EnvConfig{},
			[]string{"PATH=/bin", "HOME=/home/u", "NOEQUALS", "PWD=/w", "GIT_AUTHOR_NAME=me"}},
		{"passthrough keeps a named secret", EnvConfig{Passthrough: []string{"GITHUB_TOKEN"}},
			[]string{"PATH=/bin", "HOME=/home/u", "GITHUB_TOKEN=t", "NOEQUALS", "PWD=/w", "GIT_AUTHOR_NAME=me"}},
		{"deny adds globs", EnvConfig{Deny: []string{"home", "*_FILE"}},
			[]string{"PATH=/bin", "NOEQUALS", "PWD=/w", "GIT_AUTHOR_NAME=me"}},
		{"deny wins over passthrough", EnvConfig{Passthrough: []string{"GITHUB_TOKEN"}, Deny: []string{"GITHUB_*"}},
			[]string{"PATH=/bin", "HOME=/home/u", "NOEQUALS", "PWD=/w", "GIT_AUTHOR_NAME=me"}},
		{"inherit secrets disables the filter", EnvConfig{InheritSecrets: true, Deny: []string{"DELTA_*"}},
			[]string{"PATH=/bin", "HOME=/home/u", "OPENAI_API_KEY=sk", "openai_api_key=sk", "AWS_SECRET=s",
				"GITHUB_TOKEN=t", "DB_PASSWORD=p", "GCP_CREDENTIAL=c", "API_KEY=bare", "TOKEN_COUNT=3", "MY_TOKEN_FILE=/f", "NOEQUALS",
				"PWD=/w", "GIT_AUTHOR_NAME=me", "PG=postgres://u:pw@h/db"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FilterEnv(environ, tt.cfg)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FilterEnv(%+v) mismatch (-want +got):\n%s", tt.cfg, diff)
			}
		})
	}
}

func TestFilterEnvInherit(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GOPATH=/go", "RANDOM_THING=1", "KEEP=2", "API_TOKEN=s3cret"}
	for _, tc := range []struct {
		inherit string
		want    []string
	}{
		{"", []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GOPATH=/go", "RANDOM_THING=1", "KEEP=2"}},
		{InheritCore, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GOPATH=/go", "KEEP=2"}},
		{InheritNone, []string{"KEEP=2"}},
	} {
		got := FilterEnv(environ, EnvConfig{Inherit: tc.inherit, Passthrough: []string{"KEEP"}})
		if !slices.Equal(got, tc.want) {
			t.Errorf("inherit %q: %q, want %q", tc.inherit, got, tc.want)
		}
	}
}
