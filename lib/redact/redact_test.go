package redact

import "testing"

func TestRedactor(t *testing.T) {
	r := FromEnv([]string{"PATH=/usr/bin", "DELTA_API_KEY=sk-abcdef123456", "SHORT_TOKEN=abc", "HOME=/root"},
		[]string{"DB_PASSWORD=sk-abcdef123456-long", "OPENAI_API_KEY=sk-abcdef123456"})
	tests := map[string]string{
		"key sk-abcdef123456 here":             "key [REDACTED:DELTA_API_KEY] here",
		"pw sk-abcdef123456-long!":             "pw [REDACTED:DB_PASSWORD]!",
		"short abc and /usr/bin stay":          "short abc and /usr/bin stay",
		"twice sk-abcdef123456sk-abcdef123456": "twice [REDACTED:DELTA_API_KEY][REDACTED:DELTA_API_KEY]",
	}
	for in, want := range tests {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if got := string(r.Bytes([]byte(in))); got != want {
			t.Errorf("Bytes(%q) = %q, want %q", in, got, want)
		}
	}
	var none *Redactor
	if none.String("sk-abcdef123456") != "sk-abcdef123456" || FromEnv([]string{"PATH=/bin"}) != nil {
		t.Errorf("a redactor without secrets changed text or was built")
	}
}

// A machine's ordinary variables change nothing a tool prints: with
// XDG_SESSION_DESKTOP=ubuntu and AWS_PROFILE=default the landed filter
// turned "FROM ubuntu:24.04" into "FROM [REDACTED:XDG_SESSION_DESKTOP]:24.04"
// and removed every "default".
func TestOrdinaryVariablesPassThrough(t *testing.T) {
	r := FromEnv([]string{"XDG_SESSION_DESKTOP=ubuntu", "AWS_PROFILE=default", "AWS_REGION=eu-west-1",
		"SESSION_MANAGER=local/pc:@/tmp/.ICE-unix/2101", "SSH_AUTH_SOCK=/run/user/1000/keyring/ssh",
		"GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a"})
	in := "FROM ubuntu:24.04\nregion = eu-west-1\nprofile = default\nsock /run/user/1000/keyring/ssh\n"
	if got := r.String(in); got != in {
		t.Errorf("String(%q) = %q, want it unchanged", in, got)
	}
	if got, want := r.String("t=ghp_16C7e42F292c6912E7710c838347Ae178B4a"), "t=[REDACTED:GITHUB_TOKEN]"; got != want {
		t.Errorf("String(token) = %q, want %q", got, want)
	}
}
