package agent

import (
	"path"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/secret"
)

// Environment inheritance (env.inherit).
const (
	InheritAll  = "all"  // every variable but the filtered ones (the default)
	InheritCore = "core" // CoreEnv, and the variables named in passthrough
	InheritNone = "none" // only the variables named in passthrough
)

// CoreEnv are the variables env.inherit: core keeps: the session's basics
// and the usual tool-chain settings. A name ending in * is a prefix.
var CoreEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TERM", "TMPDIR", "TZ",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME",
	"NODE_PATH", "NPM_CONFIG_PREFIX", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "PKG_CONFIG_PATH",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}

// inherited reports whether env.inherit lets name through.
func inherited(name string, cfg EnvConfig) bool {
	switch cfg.Inherit {
	case InheritCore:
		for _, c := range CoreEnv {
			if p, ok := strings.CutSuffix(c, "*"); ok && strings.HasPrefix(name, p) || c == name {
				return true
			}
		}
		return slices.Contains(cfg.Passthrough, name)
	case InheritNone:
		return slices.Contains(cfg.Passthrough, name)
	}
	return true
}

// FilterEnv returns environ (NAME=value entries) without the variables a
// child process (command tool, plugin, hook, generator, session) should
// not see: those cfg.Inherit does not let through (core, none), the
// secrets of lib/secret's rule unless named in cfg.Passthrough or
// cfg.InheritSecrets is set, and those matching a cfg.Deny glob (always;
// Deny wins over Passthrough). Deny globs use path.Match syntax and ignore
// case. Order is preserved.
func FilterEnv(environ []string, cfg EnvConfig) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if matchAny(name, cfg.Deny) || !inherited(name, cfg) {
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
