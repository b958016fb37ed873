package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseApproval(t *testing.T) {
	for answer, want := range map[string]struct {
		ok     bool
		reason string
	}{
		"approved":             {true, ""},
		" Approve\n":           {true, ""},
		"y":                    {true, ""},
		"denied":               {false, ""},
		"denied: keep it":      {false, "keep it"},
		"Deny:  too risky ":    {false, "too risky"},
		"":                     {false, ""},
		"maybe later, not now": {false, "maybe later, not now"}, // anything else denies
	} {
		ok, reason := ParseApproval(answer)
		if ok != want.ok || reason != want.reason {
			t.Errorf("ParseApproval(%q) = %v, %q; want %v, %q", answer, ok, reason, want.ok, want.reason)
		}
	}
}

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
