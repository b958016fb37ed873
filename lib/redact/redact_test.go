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
