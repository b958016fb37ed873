package agent

import "strings"

// suggest returns the known word closest to s when it is a plausible typo
// (edit distance at most 2, or a third of the word), else "".
func suggest(s string, known []string) string {
	best, bestD := "", 1<<30
	for _, k := range known {
		if d := distance(strings.ToLower(s), k); d < bestD {
			best, bestD = k, d
		}
	}
	limit := max(2, len(s)/3)
	if bestD <= limit {
		return best
	}
	return ""
}

// distance is the Levenshtein edit distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
