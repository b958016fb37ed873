package secret

import "testing"

// commonEnv holds variables every desktop, CI runner or shell has, with
// typical values. None of them is a secret to redact: replacing "default"
// or "ubuntu" wherever it appears would corrupt what the model reads.
var commonEnv = []struct{ name, value string }{
	{"AWS_PROFILE", "default"}, {"AWS_REGION", "eu-west-1"}, {"AWS_DEFAULT_REGION", "us-east-1"},
	{"AWS_SDK_LOAD_CONFIG", "true"}, {"XDG_SESSION_TYPE", "wayland"}, {"XDG_SESSION_DESKTOP", "ubuntu"},
	{"XDG_SESSION_CLASS", "user"}, {"XDG_SESSION_ID", "c2"}, {"DESKTOP_SESSION", "ubuntu-wayland"},
	{"SESSION_MANAGER", "local/pc:@/tmp/.ICE-unix/2101,unix/pc:/tmp/.ICE-unix/2101"},
	{"GIT_AUTHOR_NAME", "Ada Lovelace"}, {"GIT_AUTHOR_EMAIL", "ada@example.com"}, {"LANG", "en_US.UTF-8"},
	{"HOME", "/home/ada"}, {"PWD", "/home/ada/src"}, {"OLDPWD", "/home/ada"}, {"USER", "ada"},
	{"SHELL", "/bin/bash"}, {"TERM", "xterm-256color"}, {"PATH", "/usr/local/bin:/usr/bin:/bin"},
	{"SSH_AUTH_SOCK", "/run/user/1000/keyring/ssh"}, {"GOOGLE_APPLICATION_CREDENTIALS", "/home/ada/key.json"},
	{"KEYBOARD_LAYOUT", "us"}, {"TOKENIZERS_PARALLELISM", "false"}, {"HISTCONTROL", "ignoreboth"},
	{"MONKEY", "George"}, {"GPG_TTY", "/dev/pts/3"}, {"DATABASE_URL", "postgres://db:5432/app"},
	{"HTTP_PROXY", "http://proxy:3128"}, {"PAGER", "less"}, {"EDITOR", "vim"}, {"API_KEY_COUNT", "123456"},
	{"SECRET_SANTA_YEAR", "2026-12-24"}, {"PASSWORD_LENGTH", "32"}, {"CI", "true"},
}

func TestRedactsLeavesCommonVariables(t *testing.T) {
	for _, v := range commonEnv {
		if Redacts(v.name, v.value) {
			t.Errorf("Redacts(%q, %q) = true, want false: an ordinary value would vanish from what the model reads", v.name, v.value)
		}
	}
}

func TestRedactsSecrets(t *testing.T) {
	secrets := []struct{ name, value string }{
		{"OPENAI_API_KEY", "sk-proj-Zq3xT9mW2kLr8vYp"}, {"GITHUB_TOKEN", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
		{"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}, {"AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE"},
		{"AWS_SESSION_TOKEN", "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ"},
		{"DB_PASSWORD", "hunter22"}, {"MYSQL_PWD", "s3cr3t!x"}, {"SLACK_SIGNING_SECRET", "8f742231b10e8888abcd99yyyzzz85a5"},
		{"stripeSecretKey", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"}, {"NPM_CONFIG__AUTH", "dXNlcjpwYXNzd29yZA=="},
		{"REDIS_ENDPOINT", "redis://user:hunter2@cache:6379/0"}, {"HF_APIKEY", "hfabcdefghijklmnopqrstuvwxyz"},
	}
	for _, s := range secrets {
		if !Redacts(s.name, s.value) {
			t.Errorf("Redacts(%q, %q) = false, want true", s.name, s.value)
		}
	}
}

func TestLooksSecret(t *testing.T) {
	tests := map[string]bool{
		"default": false, "ubuntu": false, "George": false, "/home/ada/key.json": false, "123456789": false,
		"2026-12-24": false, "https://example.com/x": false, "two words": false, "abc12": false,
		"hunter22": true, "sk-abcdef123456": true, "abcdefghijklmnopqrstuvwxyz": true,
	}
	for in, want := range tests {
		if got := LooksSecret(in); got != want {
			t.Errorf("LooksSecret(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzRedacts(f *testing.F) {
	f.Add("DELTA_API_KEY", "sk-abcdef123456")
	f.Add("AWS_PROFILE", "default")
	f.Fuzz(func(t *testing.T, name, value string) {
		// Whatever is redacted is also withheld from tools: the narrow
		// rule never names a variable the broad one lets through.
		if Redacts(name, value) && !IsSecret(name, value) {
			t.Errorf("Redacts(%q, %q) but not IsSecret", name, value)
		}
	})
}
