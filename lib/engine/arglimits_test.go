package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckArgLimits(t *testing.T) {
	long := strings.Repeat("x", maxArgStrlen)
	args, _ := json.Marshal(map[string]string{"text": long, "n": "3"})
	tests := []struct {
		name string
		argv []string
		env  []string
		want string
	}{
		{"fits", []string{"echo", "hi"}, []string{"A=b"}, ""},
		{"one argument too long, named by its parameter", []string{"echo", "--text=" + long}, nil,
			`error: echo_it: parameter "text" is 131079 bytes, and one command-line argument may hold at most 131071; pass long text on stdin instead`},
		{"all together too long", []string{"echo", strings.Repeat("y", 100000)}, []string{"E=" + strings.Repeat("z", maxArgTotal)},
			"error: echo_it: its command line and environment come to"},
	}
	for _, tt := range tests {
		got := checkArgLimits("echo_it", tt.argv, tt.env, args)
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: checkArgLimits() = %q, want prefix %q", tt.name, got, tt.want)
		}
	}
}
