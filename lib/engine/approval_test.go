package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnswers(t *testing.T) {
	ids := []string{"call_a", "call_b"}
	for _, tc := range []struct {
		text    string
		want    map[string]string
		ignored []string
	}{
		{"approved\n", map[string]string{"call_a": "approved", "call_b": "approved"}, nil},
		{"denied: too risky", map[string]string{"call_a": "denied: too risky", "call_b": "denied: too risky"}, nil},
		{"call_b: approved\n", map[string]string{"call_b": "approved"}, nil},
		{"call_a: denied: no\n\ncall_b: yes\n", map[string]string{"call_a": "denied: no", "call_b": "yes"}, nil},
		{"call_a: approved\ncall_x: approved\n", map[string]string{"call_a": "approved"}, []string{"call_x: approved"}},
	} {
		got, ignored := Answers(tc.text, ids)
		if !cmp.Equal(got, tc.want) || !cmp.Equal(ignored, tc.ignored) {
			t.Errorf("Answers(%q) = %v, %q; want %v, %q", tc.text, got, ignored, tc.want, tc.ignored)
		}
	}
}
