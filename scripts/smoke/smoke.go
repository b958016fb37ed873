package main

import (
	"io"
	"slices"
	"strings"
	"time"
)

// Status of one check or matrix cell.
const (
	Pass    = "pass"
	Fail    = "FAIL"
	Skipped = "skipped"
	NotRun  = "-" // the smoke test does not exercise this case
)

// Provider is one model provider the smoke test may drive.
type Provider struct {
	Name     string   `json:"name"`     // openai, anthropic, gemini
	Template string   `json:"template"` // the delta init template of its coding agent
	Model    string   `json:"model"`
	Env      []string `json:"-"` // the provider variables its runs get
	Skip     string   `json:"skip,omitempty"`
}

// providerKeys are the variables that select a provider, in the order
// tried; every one of them (and the base URLs) is removed from a run's
// environment but those of the provider it drives, so that no key reaches
// another provider's endpoint.
var providerKeys = map[string][]string{
	"openai":    {"OPENAI_API_KEY", "DELTA_API_KEY"},
	"anthropic": {"ANTHROPIC_API_KEY"},
	"gemini":    {"GEMINI_API_KEY"},
}

var providerURLs = map[string][]string{
	"openai":    {"DELTA_BASE_URL", "OPENAI_BASE_URL"},
	"anthropic": {"ANTHROPIC_BASE_URL"},
	"gemini":    {"GEMINI_BASE_URL"},
}

// DefaultModels are the models driven unless -model says otherwise: the
// smaller model of each family, which is enough to exercise the tools.
var DefaultModels = map[string]string{
	"openai":    "gpt-5-mini",
	"anthropic": "claude-haiku-4-5",
	"gemini":    "gemini-2.5-flash",
}

// ProviderNames is the matrix's column order.
var ProviderNames = []string{"openai", "anthropic", "gemini"}

// Detect says which providers have a key in env, and with which model.
func Detect(env map[string]string, models map[string]string) []Provider {
	var out []Provider
	for _, name := range ProviderNames {
		p := Provider{Name: name, Template: "coding-" + name, Model: DefaultModels[name]}
		if m := models[name]; m != "" {
			p.Model = m
		}
		for _, k := range append(slices.Clone(providerKeys[name]), providerURLs[name]...) {
			if v := strings.TrimSpace(env[k]); v != "" {
				p.Env = append(p.Env, k+"="+v)
			}
		}
		if !slices.ContainsFunc(providerKeys[name], func(k string) bool { return strings.TrimSpace(env[k]) != "" }) {
			p.Skip = "no " + strings.Join(providerKeys[name], " or ") + " set"
		}
		out = append(out, p)
	}
	return out
}

// Config is one smoke test.
type Config struct {
	// Bin holds the Delta binaries (delta, delta-run …, delta-plugin-coding).
	Bin string
	// Root is where each provider's agent and workspace are made.
	Root string
	// Env is the environment of every command, provider variables removed.
	Env []string
	// ShellTimeoutMS is the agents' shell timeout, which the timeout step
	// expects to see (10 s).
	ShellTimeoutMS int
	// StepTimeout bounds each step's run.
	StepTimeout time.Duration
	// Subagents enables the subagent step (agent.yaml subagents: on).
	Subagents bool
	// Log receives progress.
	Log io.Writer
}

// Check is one verified expectation of a step.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// ProviderResult is what the smoke test found for one provider.
type ProviderResult struct {
	Provider
	Checks []Check `json:"checks"`
	// Dir keeps the agent, workspace and logs.
	Dir string `json:"dir,omitempty"`
}

func (r *ProviderResult) add(name, status, detail string) {
	r.Checks = append(r.Checks, Check{Name: name, Status: status, Detail: detail})
}

func (r *ProviderResult) status(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Failed reports whether any check failed.
func (r *ProviderResult) Failed() bool {
	return slices.ContainsFunc(r.Checks, func(c Check) bool { return c.Status == Fail })
}
