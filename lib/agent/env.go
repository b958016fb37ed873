package agent

import (
	"path"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/secret"
)

// FilterEnv returns environ (NAME=value entries) without the variables a
// child process (command tool, plugin, hook, generator, session) should
// not see: the secrets of lib/secret's rule unless named in
// cfg.Passthrough or cfg.InheritSecrets is set, and those matching a
// cfg.Deny glob (always; Deny wins over Passthrough). Deny globs use
// path.Match syntax and ignore case. Order is preserved.
func FilterEnv(environ []string, cfg EnvConfig) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if matchAny(name, cfg.Deny) {
			continue
		}
		if !cfg.InheritSecrets && secret.IsSecret(name, value) && !slices.Contains(cfg.Passthrough, name) {
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
