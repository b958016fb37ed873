package execute

import (
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/google/go-cmp/cmp"
)

func TestFilterEnv(t *testing.T) {
	environ := []string{
		"PATH=/bin", "HOME=/home/u", "OPENAI_API_KEY=sk", "openai_api_key=sk",
		"AWS_SECRET=s", "GITHUB_TOKEN=t", "DB_PASSWORD=p", "GCP_CREDENTIAL=c",
		"API_KEY=bare", "TOKEN_COUNT=3", "MY_TOKEN_FILE=/f", "DELTA_API_KEY=k", "NOEQUALS",
	}
	tests := []struct {
		name string
		cfg  agent.EnvConfig
		want []string
	}{
		{"defaults remove secrets case-insensitively", agent.EnvConfig{},
			[]string{"PATH=/bin", "HOME=/home/u", "API_KEY=bare", "TOKEN_COUNT=3", "MY_TOKEN_FILE=/f", "NOEQUALS"}},
		{"passthrough keeps a named secret", agent.EnvConfig{Passthrough: []string{"GITHUB_TOKEN"}},
			[]string{"PATH=/bin", "HOME=/home/u", "GITHUB_TOKEN=t", "API_KEY=bare", "TOKEN_COUNT=3", "MY_TOKEN_FILE=/f", "NOEQUALS"}},
		{"deny adds globs", agent.EnvConfig{Deny: []string{"home", "*_FILE"}},
			[]string{"PATH=/bin", "API_KEY=bare", "TOKEN_COUNT=3", "NOEQUALS"}},
		{"deny wins over passthrough", agent.EnvConfig{Passthrough: []string{"GITHUB_TOKEN"}, Deny: []string{"GITHUB_*"}},
			[]string{"PATH=/bin", "HOME=/home/u", "API_KEY=bare", "TOKEN_COUNT=3", "MY_TOKEN_FILE=/f", "NOEQUALS"}},
		{"inherit secrets disables the filter", agent.EnvConfig{InheritSecrets: true, Deny: []string{"DELTA_*"}},
			[]string{"PATH=/bin", "HOME=/home/u", "OPENAI_API_KEY=sk", "openai_api_key=sk", "AWS_SECRET=s",
				"GITHUB_TOKEN=t", "DB_PASSWORD=p", "GCP_CREDENTIAL=c", "API_KEY=bare", "TOKEN_COUNT=3", "MY_TOKEN_FILE=/f", "NOEQUALS"}},
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
