package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
	"github.com/deltakit/delta/lib/runs"
)

// modelVar names the model when --llm switches to a real provider without
// naming one, or when agent.yaml sets no llm.model. It is read through the
// .env chain like the keys.
const modelVar = "DELTA_MODEL"

// errNoModel: a real provider was chosen with no usable model name.
var errNoModel = errors.New("no model for the provider")

// newProviderEnv builds the model provider: the agent's llm block,
// possibly overridden by --llm PROVIDER[:ARG], with keys from the .env
// chain (never passed to tools). It also returns the resolved llm block
// (provider and model as used) and the variables the provider read
// (environment and .env files, as NAME=value), whose secrets the run
// redacts.
func newProviderEnv(a *agent.Agent, override, model, workDir string) (llm.Provider, agent.LLMConfig, []string, error) {
	env, err := provider.LoadEnv(workDir, a.Home, os.Environ())
	if err != nil {
		return nil, agent.LLMConfig{}, nil, cli.WithCode(runs.ExitConfig, "", err)
	}
	environ := make([]string, 0, len(env))
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	if override, err = replaySource(override, workDir); err != nil {
		return nil, agent.LLMConfig{}, nil, err
	}
	p, cfg, err := providerFrom(a, override, model, env)
	return p, cfg, environ, err
}

// replaySource resolves --llm replay:RUN to the run's directory: RUN is a
// run directory, or the id of a run of the workspace.
func replaySource(override, workDir string) (string, error) {
	name, arg, _ := strings.Cut(override, ":")
	if name != "replay" {
		return override, nil
	}
	hint := "give a run id of this workspace or a run directory: --llm replay:RUN"
	if arg == "" {
		return "", cli.Errorf(runs.ExitConfig, hint, "--llm replay needs the run to replay")
	}
	if fi, err := os.Stat(filepath.Join(arg, runs.JournalFile)); err == nil && fi.Mode().IsRegular() {
		abs, err := filepath.Abs(arg)
		return "replay:" + abs, err
	}
	runDir, err := runs.Find(workDir, arg)
	if err != nil {
		return "", cli.WithCode(runs.ExitConfig, hint, fmt.Errorf("--llm replay:%s: %w", arg, err))
	}
	return "replay:" + runDir, nil
}

// providerFrom resolves the provider of a (with --llm override) from env.
func providerFrom(a *agent.Agent, override, model string, env map[string]string) (llm.Provider, agent.LLMConfig, error) {
	base := a.LLM
	if b := builtinOf(a.Home); b != nil {
		base = b.llm(base, env)
	}
	cfg, err := resolveLLM(base, override, model, env)
	if err != nil {
		return nil, cfg, err
	}
	p, err := provider.New(cfg, env)
	if err != nil {
		hint := ""
		switch {
		case errors.Is(err, provider.ErrNoAPIKey):
			hint = "set DELTA_API_KEY (or run offline with --llm scripted:FILE)"
		case errors.Is(err, provider.ErrUnknownProvider):
			hint = "use --llm openai:MODEL, --llm anthropic:MODEL, --llm gemini:MODEL or --llm scripted:FILE, or fix llm.provider in agent.yaml"
		case errors.Is(err, fs.ErrNotExist) && cfg.Provider == "scripted":
			hint = "check the script's path: --llm scripted:FILE is relative to the current directory, llm.script in agent.yaml to the agent directory"
		case errors.Is(err, provider.ErrBadScript):
			hint = "a script is turns: a list of {content, tool_calls: [{name, args}], usage: {input_tokens, output_tokens}} (see examples/hello-world/script.yaml)"
		}
		return nil, cfg, cli.WithCode(runs.ExitConfig, hint, err)
	}
	return p, cfg, nil
}

// overrideOf is the resolved form of an --llm override, recorded in
// metadata.json so that continue uses the same provider, script or model
// ("" without an override).
func overrideOf(override string, cfg agent.LLMConfig) string {
	switch {
	case override == "":
		return ""
	case (cfg.Provider == "scripted" || cfg.Provider == "replay") && cfg.Script != "":
		return cfg.Provider + ":" + cfg.Script
	case cfg.Model != "":
		return cfg.Provider + ":" + cfg.Model
	}
	return cfg.Provider
}

// resolveLLM applies --llm, DELTA_MODEL and --model to the agent's llm
// block. --model (model, when not "") replaces the model once the
// provider is known, so that it keeps the provider.
//
//	--llm scripted:FILE      replays FILE (relative to the current directory)
//	--llm replay:RUNDIR      replays the model answers recorded in RUNDIR
//	--llm openai:MODEL       provider and model (openai/MODEL too, and
//	                         aliases such as sonnet: provider.ParseModel)
//	--llm openai             provider; model DELTA_MODEL, else llm.model
//	(no --llm)               DELTA_MODEL, else llm.model (a scripted or
//	                         replay agent keeps its script); without
//	                         llm.provider, a model naming its provider
//	                         (anthropic/claude-sonnet-4-5, sonnet) sets both
//
// A real provider whose model ends up empty or "scripted" (what offline
// agents such as hello-world name) is a configuration error: sending it
// would only earn an error from the API after a network round trip.
func resolveLLM(cfg agent.LLMConfig, override, model string, env map[string]string) (agent.LLMConfig, error) {
	envModel := strings.TrimSpace(env[modelVar])
	if override != "" {
		name, arg, err := provider.ParseModel(override)
		// An unknown provider is the error to report, not its model.
		if err != nil {
			return cfg, cli.WithCode(runs.ExitConfig, "use --llm openai/gpt-4o, --llm anthropic:claude-sonnet-4-5, --llm sonnet, --llm scripted:FILE or --llm replay:RUN",
				fmt.Errorf("--llm: %w", err))
		}
		cfg.Provider = name
		switch {
		case name == "scripted" && arg != "":
			abs, err := filepath.Abs(arg)
			if err != nil {
				return cfg, err
			}
			cfg.Script = abs
		case name == "scripted":
		case name == "replay":
			cfg.Script, cfg.Model = arg, "replay"
		case arg != "":
			cfg.Model = arg
		case envModel != "":
			cfg.Model = envModel
		}
	} else if envModel != "" && cfg.Provider != "scripted" && cfg.Provider != "replay" {
		// The environment beats agent.yaml (flags > environment >
		// agent.yaml > user config > defaults); an offline agent's
		// script has no model to replace.
		cfg.Model = envModel
	}
	if override == "" && (cfg.Provider == "" || cfg.DefaultProvider) {
		// llm.model (or DELTA_MODEL) may name its provider:
		// anthropic/claude-sonnet-4-5, an alias such as sonnet.
		if name, model, ok := provider.SplitModel(cfg.Model); ok {
			cfg.Provider, cfg.Model, cfg.DefaultProvider = name, model, false
		}
	}
	if model != "" {
		cfg.Model = model
	}
	if cfg.Provider != "scripted" && (cfg.Model == "" || cfg.Model == "scripted") {
		name := cfg.Provider
		if name == "" {
			name = "openai"
		}
		what := "no model"
		if cfg.Model != "" {
			what = fmt.Sprintf("model %q", cfg.Model)
		}
		return cfg, cli.WithCode(runs.ExitConfig,
			fmt.Sprintf("pass --llm %s:MODEL (e.g. --llm openai:gpt-4o-mini), set %s, or set llm.model in agent.yaml", name, modelVar),
			fmt.Errorf("%w: the %s provider has %s", errNoModel, name, what))
	}
	return cfg, nil
}
