package runs

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidIDMatchesPattern holds the written-out check to the documented
// pattern, on every string of up to three characters from an alphabet with
// each class and its edges, and at the length limit.
func TestValidIDMatchesPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	alphabet := []string{"a", "Z", "0", "9", ".", "_", "-", "/", " ", "é", "@", "`", "{", "[", ":"}
	ids := []string{"", strings.Repeat("a", 127), strings.Repeat("a", 128), strings.Repeat("a", 129), "a" + strings.Repeat("-", 127)}
	for _, a := range alphabet {
		ids = append(ids, a)
		for _, b := range alphabet {
			ids = append(ids, a+b)
			for _, c := range alphabet {
				ids = append(ids, a+b+c)
			}
		}
	}
	for _, id := range ids {
		if got, want := validID(id), pattern.MatchString(id); got != want {
			t.Errorf("validID(%q) = %v, want %v", id, got, want)
		}
	}
}
