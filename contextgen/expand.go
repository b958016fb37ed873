package contextgen

import "strings"

// Expand replaces ${AGENT_HOME} and ${CWD} in s, the two variables
// context.yaml and hooks.yaml paths and commands may use (seeds/000 §2.4.3).
// Other text, other ${…} included, is left as it is.
func Expand(s, agentHome, cwd string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return strings.NewReplacer("${AGENT_HOME}", agentHome, "${CWD}", cwd).Replace(s)
}

// ExpandAll applies Expand to every element of argv and returns a new slice.
func ExpandAll(argv []string, agentHome, cwd string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Expand(a, agentHome, cwd)
	}
	return out
}
