//go:build unix

package sys

// SessionProcs describes the live processes of session sid (zombies are
// left out: they have ended, and only their parent can remove them).
func SessionProcs(sid int) []ProcInfo {
	var out []ProcInfo
	for _, p := range AllProcs() {
		if p.SID == sid && !p.Zombie {
			out = append(out, p)
		}
	}
	return out
}
