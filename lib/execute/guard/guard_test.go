package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithoutEnv(t *testing.T) {
	got := WithoutEnv([]string{"A=1", Env + "=1", "DELTA_EXEC_GUARDIAN=x", Env + "=", "B=2"})
	want := []string{"A=1", "DELTA_EXEC_GUARDIAN=x", "B=2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WithoutEnv mismatch (-want +got):\n%s", diff)
	}
}

func TestInvoked(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
		want bool
	}{
		{"guard", []string{Name, Arg}, "1", true},
		{"no marker", []string{Name, Arg}, "", false},
		{"marker not 1", []string{Name, Arg}, "yes", false},
		{"other version", []string{Name, ArgPrefix + "_v1__"}, "1", false},
		{"old protocol's command", []string{Name, Arg, "/bin/true", "true"}, "1", false},
		{"help", []string{Name, "--help"}, "1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(Env, tt.env)
			if got := Invoked(tt.args); got != tt.want {
				t.Errorf("Invoked(%q) with %s=%q = %v, want %v", tt.args, Env, tt.env, got, tt.want)
			}
		})
	}
}
