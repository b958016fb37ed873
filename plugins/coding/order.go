package coding

import (
	"os"
	"slices"
	"time"
)

// recentWindow is how new a file must be for gemini-cli's glob to list it
// among the recent ones, newest first, ahead of the rest in path order.
const recentWindow = 24 * time.Hour

// globOrder orders glob's matches as the profile's own tool does:
// gemini-cli lists the files changed in the last day newest first, then
// the others by path; Claude Code and the rest list them all newest
// first (ties by path).
func (t *Tools) globOrder(hits []fileHit, now time.Time) {
	recent := func(h fileHit) bool { return t.Config.Profile == ProfileGemini && now.Sub(h.mod) <= recentWindow }
	slices.SortStableFunc(hits, func(a, b fileHit) int {
		ra, rb := recent(a), recent(b)
		switch {
		case t.Config.Profile == ProfileGemini && ra != rb:
			if ra {
				return -1
			}
			return 1
		case t.Config.Profile == ProfileGemini && !ra:
			return compareStrings(a.path, b.path)
		case !a.mod.Equal(b.mod):
			return b.mod.Compare(a.mod)
		}
		return compareStrings(a.path, b.path)
	})
}

// byModTime orders files newest first (ties by path), as Claude Code's
// grep lists the files that match.
func byModTime(files []string) {
	mod := make(map[string]time.Time, len(files))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			mod[f] = st.ModTime()
		}
	}
	slices.SortStableFunc(files, func(a, b string) int {
		if c := mod[b].Compare(mod[a]); c != 0 {
			return c
		}
		return compareStrings(a, b)
	})
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
