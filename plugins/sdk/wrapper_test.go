package sdk

import (
	"slices"
	"testing"
)

func TestExecWrapper(t *testing.T) {
	for _, tc := range []struct {
		env     string
		want    []string
		wantErr bool
	}{
		{"", nil, false},
		{`["docker","exec","-i","ctr"]`, []string{"docker", "exec", "-i", "ctr"}, false},
		{`docker exec`, nil, true},
		{`[]`, nil, true},
		{`[""]`, nil, true},
	} {
		t.Setenv("DELTA_EXEC_WRAPPER", tc.env)
		got, err := ExecWrapper()
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("ExecWrapper() with %q = %q, %v; want %q (error %v)", tc.env, got, err, tc.want, tc.wantErr)
		}
	}
}
