package engine

import "testing"

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
