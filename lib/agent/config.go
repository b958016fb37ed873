package agent

import (
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/tool"
	"gopkg.in/yaml.v3"
)

// Keys of agent.yaml and its blocks.
var (
	agentKeys  = []string{"name", "version", "description", "llm", "system_prompt", "max_iterations", "max_turns", "max_tool_rounds_per_input", "parallel_tool_calls", "max_parallel_tools", "tool_timeout_ms", "output", "exec_wrapper", "loop_detection", "approval", "env", "imports", "tools", "mcp_servers", "plugins", "lifecycle_hooks", "hooks", "subagents", "sandbox", "workspace_sync"}
	llmKeys    = []string{"provider", "model", "base_url", "script", "temperature", "max_tokens", "top_p", "frequency_penalty", "presence_penalty", "stop", "seed", "price", "timeout_ms", "context_window", "reasoning_effort", "api", "first_byte_timeout_ms", "idle_timeout_ms", "cache", "max_cost_usd", "prices", "images"}
	envKeys    = []string{"inherit", "passthrough", "deny", "inherit_secrets"}
	loopKeys   = []string{"enabled", "window"}
	pluginKeys = []string{"name", "path", "tools", "config", "allow_path"}
	providers  = []string{"openai", "openai-compatible", "anthropic", "gemini", "scripted"}
	// passThroughKeys are well-known provider parameters that look like
	// typos of llmKeys but are not.
	passThroughKeys = []string{"top_k", "n", "user", "logprobs", "top_logprobs", "logit_bias", "response_format", "parallel_tool_calls", "tool_choice", "service_tier", "max_completion_tokens", "metadata"}
)

// decodeAgent fills a from agent.yaml (or config.yaml) and returns the
// legacy lifecycle_hooks field, if any.
func (l *loader) decodeAgent(d *doc, root *yaml.Node, a *Agent) field {
	f := d.fields(root, "agent.yaml", agentKeys)
	a.Name = d.str(f["name"], "name")
	if a.Name == "" {
		a.Name = filepath.Base(l.home)
	}
	a.Version = d.str(f["version"], "version")
	a.Description = d.str(f["description"], "description")
	a.WorkspaceSync = d.str(f["workspace_sync"], "workspace_sync")
	if v := a.WorkspaceSync; v != "" && v != "none" && v != "git" && v != "shared" {
		d.problem(f["workspace_sync"].value, ErrInvalid, "workspace_sync: none, git or shared", "unknown workspace_sync %q", v)
	}
	a.MaxIterations = d.positive(f["max_iterations"], "max_iterations")
	a.ToolTimeoutMS = d.positive(f["tool_timeout_ms"], "tool_timeout_ms")
	a.MaxTurns = d.positive(f["max_turns"], "max_turns")
	a.MaxToolRoundsPerInput = d.positive(f["max_tool_rounds_per_input"], "max_tool_rounds_per_input")
	a.ParallelTools = d.positive(f["max_parallel_tools"], "max_parallel_tools")
	if a.ParallelTools == 0 {
		a.ParallelTools = DefaultParallelTools
	}
	if b := d.boolPtr(f["parallel_tool_calls"], "parallel_tool_calls"); b != nil && !*b {
		a.ParallelTools = 1
	}
	l.decodeLLM(d, f["llm"], a)
	l.decodeEnv(d, f["env"], a)
	decodeLoopDetection(d, f["loop_detection"], a)
	a.Output = decodeOutput(d, f["output"], "output")
	if w, ok := f["exec_wrapper"]; ok {
		if a.ExecWrapper = d.strList(w, "exec_wrapper"); len(a.ExecWrapper) == 0 || a.ExecWrapper[0] == "" {
			d.problem(w.value, ErrInvalid, `a list: exec_wrapper: [docker, exec, -i, my-container]`, "exec_wrapper needs a program to run")
		}
		for i, word := range a.ExecWrapper {
			a.ExecWrapper[i] = strings.ReplaceAll(word, "${AGENT_HOME}", l.home)
		}
	}
	a.Approval = decodeApproval(d, f["approval"])
	a.Sandbox = decodeSandbox(d, f["sandbox"])

	prompt := DefaultSystemPrompt
	at := root
	if sp, ok := f["system_prompt"]; ok {
		prompt, at = d.str(sp, "system_prompt"), sp.value
	}
	if prompt != "" {
		a.SystemPromptPath = l.resolveInside(d, at, l.home, prompt, "system prompt")
	}

	a.Tools = l.loadTools(d, f)
	a.MCPServers = l.mcp
	a.Plugins = l.decodePlugins(d, f["plugins"])
	a.Subagents = l.decodeSubagents(d, f["subagents"])
	return legacyHooks(d, f)
}

// legacyHooks returns agent.yaml's hooks block: lifecycle_hooks, or
// hooks (the spelling some delta-engine 1.10 agents use). Both at once is
// a problem: which one is meant cannot be told.
func legacyHooks(d *doc, f map[string]field) field {
	lh, hasLH := f["lifecycle_hooks"]
	h, hasH := f["hooks"]
	switch {
	case hasLH && hasH:
		d.problem(h.key, ErrInvalid, "keep one of them, or better move the hooks to hooks.yaml", "agent.yaml has both hooks and lifecycle_hooks")
		return lh
	case hasH:
		return h
	}
	return lh
}

// decodePrice reads llm.price: {input: USD, output: USD, cache_read: USD,
// cache_write: USD} per million tokens, the cache prices optional.
func decodePrice(d *doc, fl field) *llm.Price {
	if fl.value == nil {
		return nil
	}
	f := d.fields(fl.value, "llm.price", []string{"input", "output", "cache_read", "cache_write"})
	in, out := d.floatPtr(f["input"], "llm.price.input"), d.floatPtr(f["output"], "llm.price.output")
	read, write := d.floatPtr(f["cache_read"], "llm.price.cache_read"), d.floatPtr(f["cache_write"], "llm.price.cache_write")
	if in == nil || out == nil || *in < 0 || *out < 0 || (read != nil && *read < 0) || (write != nil && *write < 0) {
		d.problem(fl.value, ErrInvalid, "for example  price: {input: 2.5, output: 10, cache_read: 0.25}", "llm.price needs input and output (cache_read and cache_write are optional), in US dollars per million tokens, 0 or more")
		return nil
	}
	p := &llm.Price{Input: *in, Output: *out}
	if read != nil {
		p.CacheRead = *read
	}
	if write != nil {
		p.CacheWrite = *write
	}
	return p
}

// decodeLLMTransport reads the keys that choose the wire protocol and
// bound the time a model request may take.
func decodeLLMTransport(d *doc, f map[string]field, a *Agent) {
	a.LLM.API = d.str(f["api"], "llm.api")
	if api := a.LLM.API; api != "" && api != "chat" && api != "responses" {
		d.problem(f["api"].value, ErrInvalid, "api: responses (OpenAI's Responses API) or chat (Chat Completions)", "unknown llm.api %q", api)
	}
	for _, k := range []struct {
		key     string
		to      **int64
		example string
	}{
		{"timeout_ms", &a.LLM.TimeoutMS, "timeout_ms: 600000  (ten minutes)"},
		{"first_byte_timeout_ms", &a.LLM.FirstByteTimeoutMS, "first_byte_timeout_ms: 300000  (five minutes)"},
		{"idle_timeout_ms", &a.LLM.IdleTimeoutMS, "idle_timeout_ms: 300000  (five minutes)"},
	} {
		*k.to = d.intPtr(f[k.key], "llm."+k.key)
		if t := *k.to; t != nil && *t <= 0 {
			d.problem(f[k.key].value, ErrInvalid, "for example  "+k.example, "llm.%s must be a positive number of milliseconds", k.key)
		}
	}
}

// decodeLLM reads the llm block; keys other than the known ones pass
// through in Extra (other OpenAI-style parameters).
func (l *loader) decodeLLM(d *doc, fl field, a *Agent) {
	a.LLM.Provider, a.LLM.DefaultProvider = "openai", true
	if fl.value == nil {
		return
	}
	f := d.fields(fl.value, "llm", nil)
	if p := d.str(f["provider"], "llm.provider"); p != "" {
		if !contains(providers, p) {
			d.problem(f["provider"].value, ErrInvalid, "providers: openai, openai-compatible (any Chat Completions endpoint), anthropic, gemini, scripted", "unknown llm.provider %q", p)
		}
		a.LLM.Provider, a.LLM.DefaultProvider = p, false
	}
	a.LLM.Model = d.str(f["model"], "llm.model")
	if a.LLM.DefaultProvider {
		// Without llm.provider, a model may name its provider:
		// anthropic/claude-sonnet-4-5, gemini:gemini-2.5-flash, sonnet.
		if p, m, ok := llm.SplitModel(a.LLM.Model); ok {
			a.LLM.Provider, a.LLM.Model, a.LLM.DefaultProvider = p, m, false
		}
	}
	a.LLM.BaseURL = d.str(f["base_url"], "llm.base_url")
	if s := d.str(f["script"], "llm.script"); s != "" {
		a.LLM.Script = l.resolveInside(d, f["script"].value, l.home, s, "llm.script")
	}
	a.LLM.Temperature = d.floatPtr(f["temperature"], "llm.temperature")
	if t := a.LLM.Temperature; t != nil && (*t < 0 || *t > 2) {
		d.problem(f["temperature"].value, ErrInvalid, "", "llm.temperature must be between 0 and 2")
	}
	a.LLM.MaxTokens = d.intPtr(f["max_tokens"], "llm.max_tokens")
	a.LLM.TopP = d.floatPtr(f["top_p"], "llm.top_p")
	a.LLM.FrequencyPenalty = d.floatPtr(f["frequency_penalty"], "llm.frequency_penalty")
	a.LLM.PresencePenalty = d.floatPtr(f["presence_penalty"], "llm.presence_penalty")
	if st := f["stop"]; st.value != nil && st.value.Kind == yaml.ScalarNode {
		a.LLM.Stop = []string{d.str(st, "llm.stop")}
	} else {
		a.LLM.Stop = d.strList(st, "llm.stop")
	}
	a.LLM.Seed = d.intPtr(f["seed"], "llm.seed")
	a.LLM.Price = decodePrice(d, f["price"])
	decodeLLMTransport(d, f, a)
	decodeCost(d, f, &a.LLM)
	a.LLM.Images = d.boolPtr(f["images"], "llm.images")
	a.LLM.ContextWindow = d.intPtr(f["context_window"], "llm.context_window")
	if w := a.LLM.ContextWindow; w != nil && *w <= 0 {
		d.problem(f["context_window"].value, ErrInvalid, "for example  context_window: 128000", "llm.context_window must be a positive number of tokens")
	}
	a.LLM.ReasoningEffort = d.str(f["reasoning_effort"], "llm.reasoning_effort")
	if e := a.LLM.ReasoningEffort; e != "" && e != "low" && e != "medium" && e != "high" {
		d.problem(f["reasoning_effort"].value, ErrInvalid, "reasoning_effort: low, medium or high", "unknown llm.reasoning_effort %q", e)
	}
	for k, v := range f {
		if contains(llmKeys, k) {
			continue
		}
		// An unknown key close to a known one is a typo, not a pass-through
		// parameter (temprature: would otherwise be sent to the API).
		if s := suggest(k, llmKeys); s != "" && !contains(passThroughKeys, k) {
			d.unknownKey(v.key, "llm", llmKeys)
			continue
		}
		var x any
		if err := v.value.Decode(&x); err != nil {
			d.problem(v.value, ErrInvalid, "", "llm.%s: %v", k, err)
			continue
		}
		if a.LLM.Extra == nil {
			a.LLM.Extra = map[string]any{}
		}
		a.LLM.Extra[k] = x
	}
}

// decodeLoopDetection reads the loop_detection block.
func decodeLoopDetection(d *doc, fl field, a *Agent) {
	if fl.value == nil {
		return
	}
	f := d.fields(fl.value, "loop_detection", loopKeys)
	a.LoopWindow = d.positive(f["window"], "loop_detection.window")
	if a.LoopWindow == 1 {
		d.problem(f["window"].value, ErrInvalid, "for example  window: 10", "loop_detection.window must be at least 2: one call is no pattern")
	}
	if b := d.boolPtr(f["enabled"], "loop_detection.enabled"); b != nil && !*b {
		a.LoopWindow = -1
	}
}

// decodeEnv reads the env block (secret filtering, seeds/001 §4.2).
func (l *loader) decodeEnv(d *doc, fe field, a *Agent) {
	if fe.value == nil {
		return
	}
	f := d.fields(fe.value, "env", envKeys)
	a.Env.Passthrough = d.strList(f["passthrough"], "env.passthrough")
	a.Env.Deny = d.strList(f["deny"], "env.deny")
	for i, g := range a.Env.Deny {
		if _, err := filepath.Match(g, ""); err != nil {
			d.problem(f["deny"].value.Content[i], ErrInvalid, "", "env.deny: bad glob %q: %v", g, err)
		}
	}
	if b := d.boolPtr(f["inherit_secrets"], "env.inherit_secrets"); b != nil {
		a.Env.InheritSecrets = *b
	}
	switch a.Env.Inherit = d.str(f["inherit"], "env.inherit"); a.Env.Inherit {
	case "", InheritAll, InheritCore, InheritNone:
	default:
		d.problem(f["inherit"].value, ErrInvalid, "inherit: all (every variable but secrets), core (PATH, HOME, LANG … and tool-chain settings) or none",
			"env.inherit must be all, core or none, not %q", a.Env.Inherit)
	}
}

// decodePlugins reads the plugins list. A plugin's path may be anywhere
// (installed plugins live outside the agent); a relative one is relative to
// the agent home.
func (l *loader) decodePlugins(d *doc, fp field) []PluginRef {
	var out []PluginRef
	seen := map[string]bool{}
	for _, item := range d.list(fp, "plugins") {
		if item.Kind == yaml.ScalarNode && item.Tag == "!!str" {
			d.problem(item, ErrInvalid, "write the entry as a mapping: - name: "+item.Value, "plugins entry %q must be a mapping with a name: key", item.Value)
			continue
		}
		before := len(l.problems)
		f := d.fields(item, "a plugins entry", pluginKeys)
		if f == nil {
			continue
		}
		p := PluginRef{Name: d.str(f["name"], "plugin name"), Source: d.pos(item)}
		if p.Name == "" {
			if len(l.problems) == before { // not when the entry's mistake is already reported
				d.problem(item, ErrInvalid, "", "plugin entry needs a name")
			}
			continue
		}
		if seen[p.Name] {
			d.problem(f["name"].value, ErrInvalid, "", "plugin %q is listed twice", p.Name)
		}
		seen[p.Name] = true
		if path := d.str(f["path"], "plugin path"); path != "" {
			if !filepath.IsAbs(path) {
				path = filepath.Join(l.home, path)
			}
			p.Path = path
		}
		p.Tools = d.strList(f["tools"], "plugin tools")
		if c := f["config"].value; c != nil {
			if c.Kind != yaml.MappingNode {
				d.problem(c, ErrInvalid, "", "plugin config must be a mapping, not %s", kindName(c))
			} else if err := c.Decode(&p.Config); err != nil {
				d.problem(c, ErrInvalid, "", "plugin config: %v", err)
			}
		}
		if b := d.boolPtr(f["allow_path"], "allow_path"); b != nil {
			p.AllowPath = *b
		}
		out = append(out, p)
	}
	return out
}

var outputKeys = []string{"max_chars", "max_lines", "mode"}

// decodeOutput reads an output: block (agent-wide or a tool's).
func decodeOutput(d *doc, fo field, what string) *tool.OutputLimits {
	if fo.value == nil {
		return nil
	}
	f := d.fields(fo.value, what, outputKeys)
	if f == nil {
		return nil
	}
	o := &tool.OutputLimits{Mode: d.str(f["mode"], what+".mode"),
		MaxChars: d.integerPtr(f["max_chars"], what+".max_chars"), MaxLines: d.integerPtr(f["max_lines"], what+".max_lines")}
	switch o.Mode {
	case "", tool.OutputHeadTail, tool.OutputHead, tool.OutputTail:
	default:
		d.problem(f["mode"].value, ErrInvalid, "mode: head_tail (the beginning and the end), head or tail", "%s.mode must be head_tail, head or tail, not %q", what, o.Mode)
	}
	return o
}
