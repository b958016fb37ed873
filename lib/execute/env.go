package execute

import (
	"path"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/agent"
)

// SecretPatterns are the variable-name globs removed from a command's
// environment by default (seeds/001 §4.2), matched case-insensitively.
var SecretPatterns = []string{"*_API_KEY", "*_SECRET", "*_TOKEN", "*_PASSWORD", "*_CREDENTIAL"}

// FilterEnv returns environ (NAME=value entries) without the variables a
// command should not see: those matching SecretPatterns unless named in
// cfg.Passthrough or cfg.InheritSecrets is set, and those matching a
// cfg.Deny glob (always; Deny wins over Passthrough). Globs use path.Match
// syntax and, like the defaults, ignore case. Order is preserved.
func FilterEnv(environ []string, cfg agent.EnvConfig) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if matchAny(name, cfg.Deny) {
			continue
		}
		if !cfg.InheritSecrets && matchAny(name, SecretPatterns) && !slices.Contains(cfg.Passthrough, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func matchAny(name string, globs []string) bool {
	upper := strings.ToUpper(name)
	for _, g := range globs {
		if ok, _ := path.Match(strings.ToUpper(g), upper); ok {
			return true
		}
	}
	return false
}
