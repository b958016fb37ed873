package agent

import (
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"
)

// HookNames lists the canonical hook names in lifecycle order.
var HookNames = []HookName{PreLLMRequest, PostLLMResponse, PreToolExecution, PostToolExecution, OnError, OnRunEnd, OnIterationStart, OnIterationEnd}

// hookAliases are the short names accepted for four hooks.
var hookAliases = map[string]HookName{
	"pre_llm_req":    PreLLMRequest,
	"post_llm_resp":  PostLLMResponse,
	"pre_tool_exec":  PreToolExecution,
	"post_tool_exec": PostToolExecution,
}

var hookKeys = []string{"command", "plugin", "timeout_ms", "description"}

// allHookKeys is every accepted top-level key of hooks.yaml, for messages.
func allHookKeys() []string {
	keys := make([]string, 0, len(HookNames)+len(hookAliases))
	for _, h := range HookNames {
		keys = append(keys, string(h))
	}
	for k := range hookAliases {
		keys = append(keys, k)
	}
	slices.Sort(keys[len(HookNames):])
	return keys
}

// loadHooks reads hooks.yaml, or the deprecated lifecycle_hooks block of
// agent.yaml when there is no hooks.yaml (seeds/000 §2.7.3).
func (l *loader) loadHooks(a *Agent, main *doc, legacy field) {
	a.Hooks = Hooks{}
	path := filepath.Join(l.home, HooksFile)
	if exists(path) {
		if legacy.key != nil {
			l.warn("[WARNING] %s: %s in %s is ignored because hooks.yaml exists (delete it)", main.pos(legacy.key), legacy.key.Value, filepath.Base(main.path))
		}
		d, root := l.readDoc(path)
		if root == nil {
			return
		}
		if root.Kind == yaml.MappingNode && len(root.Content) == 2 && root.Content[0].Value == "lifecycle_hooks" {
			root = root.Content[1]
		}
		l.decodeHooks(d, root, a.Hooks)
		return
	}
	if legacy.key != nil {
		l.warn("[DEPRECATION WARNING] %s: %s in %s is deprecated, move the hooks to hooks.yaml (support ends in v2.0)", main.pos(legacy.key), legacy.key.Value, filepath.Base(main.path))
		l.decodeHooks(main, legacy.value, a.Hooks)
	}
}

// decodeHooks reads a mapping of hook name → {command|plugin, timeout_ms}.
func (l *loader) decodeHooks(d *doc, root *yaml.Node, hooks Hooks) {
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return
	}
	if root.Kind != yaml.MappingNode {
		d.problem(root, ErrInvalid, "", "hooks must be a mapping of hook name to {command: [...]}, not %s", kindName(root))
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		name, ok := canonicalHook(k.Value)
		if !ok {
			d.unknownKey(k, "hooks", allHookKeys())
			continue
		}
		if _, dup := hooks[name]; dup {
			d.problem(k, ErrInvalid, "", "hook %s is defined twice (an alias names the same hook)", name)
			continue
		}
		if spec, ok := l.decodeHook(d, v, name); ok {
			hooks[name] = spec
		}
	}
}

// canonicalHook maps a hook name or alias to its canonical name.
func canonicalHook(s string) (HookName, bool) {
	if slices.Contains(HookNames, HookName(s)) {
		return HookName(s), true
	}
	h, ok := hookAliases[s]
	return h, ok
}

// decodeHook reads one hook definition.
func (l *loader) decodeHook(d *doc, n *yaml.Node, name HookName) (HookSpec, bool) {
	before := len(l.problems)
	f := d.fields(n, "hook "+string(name), hookKeys)
	spec := HookSpec{
		Command:     d.strList(f["command"], "hook command"),
		Plugin:      d.str(f["plugin"], "hook plugin"),
		TimeoutMS:   d.integer(f["timeout_ms"], "timeout_ms"),
		Description: d.str(f["description"], "hook description"),
		Source:      d.pos(n),
	}
	_, hasCmd := f["command"]
	_, hasPlugin := f["plugin"]
	switch {
	case len(l.problems) > before:
		return spec, false
	case hasCmd == hasPlugin:
		d.problem(n, ErrInvalid, "example: "+string(name)+": {command: [\"${AGENT_HOME}/hooks/x.sh\"]}", "hook %s needs exactly one of command: or plugin:", name)
		return spec, false
	case hasCmd && len(spec.Command) == 0:
		d.problem(f["command"].value, ErrInvalid, "", "hook %s: command must name a program", name)
		return spec, false
	}
	return spec, true
}
