// Command smoke is Delta's integration smoke test against real model
// providers (make smoke): for every provider whose key is set
// (OPENAI_API_KEY or DELTA_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) it
// makes the provider's coding agent (delta init -t coding-PROVIDER) and,
// in one run driven through the binaries, has the model create, edit and
// run a file, edit two files, search, answer with a reasoning effort set,
// read a 100,000-character file (whose observation must be truncated),
// take a steering message mid-task, spawn a subagent and run a command
// past the shell's timeout. It prints the cross-provider
// parity matrix as a table and as JSON, and exits 1 when a check failed.
// With no key set, every provider is skipped, with the reason; when the
// first step fails before its run exists, the later steps, which continue
// that run, are skipped, naming the step that failed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Environ(), os.Stdout, os.Stderr)) }

// options are the command's flags.
type options struct {
	bin, jsonFile, only string
	keep, subagents     bool
	models              map[string]string
	stepTimeout         time.Duration
}

// run is the whole command, for tests.
func run(args, environ []string, stdout, stderr io.Writer) int {
	opts, ok := parseFlags(args, stderr)
	if !ok {
		return 2
	}
	providers, ok := selectProviders(opts, environ, stderr)
	if !ok {
		return 2
	}
	absBin, err := filepath.Abs(opts.bin)
	if err == nil {
		_, err = os.Stat(filepath.Join(absBin, "delta-plugin-coding"))
	}
	if err != nil {
		fmt.Fprintf(stderr, "smoke: no Delta binaries in %s (run make build, or give -bin DIR): %v\n", opts.bin, err)
		return 2
	}
	root, err := os.MkdirTemp("", "delta-smoke-")
	if err != nil {
		fmt.Fprintln(stderr, "smoke:", err)
		return 1
	}
	if !anyRun(providers) {
		fmt.Fprintln(stderr, "smoke: skipped: no provider key is set (set OPENAI_API_KEY or DELTA_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY to run the smoke test against that provider)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := Config{Bin: absBin, Root: root, Env: childEnv(environ), ShellTimeoutMS: 10_000, StepTimeout: opts.stepTimeout,
		Subagents: opts.subagents, Log: stderr}
	results, failed := Smoke(ctx, cfg, providers)
	if err := report(stdout, NewMatrix(results), opts.jsonFile); err != nil {
		fmt.Fprintln(stderr, "smoke:", err)
		return 1
	}
	if failed || opts.keep {
		fmt.Fprintf(stderr, "smoke: agents, workspaces and logs kept in %s\n", root)
	} else {
		os.RemoveAll(root)
	}
	if failed {
		return 1
	}
	return 0
}

// parseFlags parses the command line; false when it is wrong (the flag
// package said why on stderr).
func parseFlags(args []string, stderr io.Writer) (options, bool) {
	opts := options{models: map[string]string{}}
	fs := flag.NewFlagSet("smoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.bin, "bin", "bin", "directory of the Delta binaries (make build)")
	fs.StringVar(&opts.jsonFile, "json", "", "also write the results as JSON to `FILE`")
	fs.BoolVar(&opts.keep, "keep", false, "keep the agents, workspaces and logs (they are kept anyway when a check fails)")
	fs.StringVar(&opts.only, "providers", "", "comma-separated providers to drive (default: every provider with a key)")
	fs.Func("model", "`PROVIDER=MODEL` to drive (repeatable; defaults: openai="+DefaultModels["openai"]+
		", anthropic="+DefaultModels["anthropic"]+", gemini="+DefaultModels["gemini"]+")", func(s string) error {
		p, m, ok := strings.Cut(s, "=")
		if !ok || DefaultModels[p] == "" || m == "" {
			return fmt.Errorf("want PROVIDER=MODEL with PROVIDER openai, anthropic or gemini")
		}
		opts.models[p] = m
		return nil
	})
	fs.BoolVar(&opts.subagents, "subagents", true, "drive the subagent step")
	fs.DurationVar(&opts.stepTimeout, "step-timeout", 10*time.Minute, "time limit of each step")
	return opts, fs.Parse(args) == nil
}

// selectProviders are the providers to drive: those with a key in
// environ, less those -providers leaves out (skipped, with the reason);
// false when -providers names an unknown provider.
func selectProviders(opts options, environ []string, stderr io.Writer) ([]Provider, bool) {
	env := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	providers := Detect(env, opts.models)
	if opts.only == "" {
		return providers, true
	}
	want := strings.Split(opts.only, ",")
	for _, name := range want {
		if DefaultModels[name] == "" {
			fmt.Fprintf(stderr, "smoke: -providers: unknown provider %q: give a comma-separated list of openai, anthropic and gemini\n", name)
			return nil, false
		}
	}
	for i := range providers {
		if !contains(want, providers[i].Name) && providers[i].Skip == "" {
			providers[i].Skip = "not in -providers"
		}
	}
	return providers, true
}

// report prints the parity matrix as a table and as JSON, and writes the
// JSON to jsonFile too when one is given.
func report(stdout io.Writer, m Matrix, jsonFile string) error {
	if err := m.WriteTable(stdout); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	fmt.Fprintf(stdout, "\n%s\n", data)
	if jsonFile != "" {
		return os.WriteFile(jsonFile, append(data, '\n'), 0o644)
	}
	return nil
}

// Smoke drives each provider that is not skipped; failed says a check
// failed.
func Smoke(ctx context.Context, cfg Config, providers []Provider) ([]*ProviderResult, bool) {
	var results []*ProviderResult
	failed := false
	for _, p := range providers {
		res := Run(ctx, cfg, p)
		failed = failed || res.Failed()
		results = append(results, res)
	}
	return results, failed
}

// childEnv is environ without any provider's key or base URL: each run
// gets its own provider's alone (Provider.Env).
func childEnv(environ []string) []string {
	drop := map[string]bool{"DELTA_MODEL": true}
	for _, m := range []map[string][]string{providerKeys, providerURLs} {
		for _, names := range m {
			for _, n := range names {
				drop[n] = true
			}
		}
	}
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] && k != "PATH" && k != "DELTA_PLUGIN_DIR" {
			out = append(out, kv)
		}
	}
	return out
}

func anyRun(providers []Provider) bool {
	for _, r := range providers {
		if r.Skip == "" {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}
