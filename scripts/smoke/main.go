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

// run is the whole command, for tests.
func run(args, environ []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("smoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("bin", "bin", "directory of the Delta binaries (make build)")
	jsonFile := fs.String("json", "", "also write the results as JSON to `FILE`")
	keep := fs.Bool("keep", false, "keep the agents, workspaces and logs (they are kept anyway when a check fails)")
	only := fs.String("providers", "", "comma-separated providers to drive (default: every provider with a key)")
	models := map[string]string{}
	fs.Func("model", "`PROVIDER=MODEL` to drive (repeatable; defaults: openai="+DefaultModels["openai"]+
		", anthropic="+DefaultModels["anthropic"]+", gemini="+DefaultModels["gemini"]+")", func(s string) error {
		p, m, ok := strings.Cut(s, "=")
		if !ok || DefaultModels[p] == "" || m == "" {
			return fmt.Errorf("want PROVIDER=MODEL with PROVIDER openai, anthropic or gemini")
		}
		models[p] = m
		return nil
	})
	subagents := fs.Bool("subagents", true, "drive the subagent step")
	stepTimeout := fs.Duration("step-timeout", 10*time.Minute, "time limit of each step")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	env := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	providers := Detect(env, models)
	if *only != "" {
		want := strings.Split(*only, ",")
		for _, name := range want {
			if DefaultModels[name] == "" {
				fmt.Fprintf(stderr, "smoke: -providers: unknown provider %q: give a comma-separated list of openai, anthropic and gemini\n", name)
				return 2
			}
		}
		for i := range providers {
			if !contains(want, providers[i].Name) && providers[i].Skip == "" {
				providers[i].Skip = "not in -providers"
			}
		}
	}
	absBin, err := filepath.Abs(*bin)
	if err == nil {
		_, err = os.Stat(filepath.Join(absBin, "delta-plugin-coding"))
	}
	if err != nil {
		fmt.Fprintf(stderr, "smoke: no Delta binaries in %s (run make build, or give -bin DIR): %v\n", *bin, err)
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
	cfg := Config{Bin: absBin, Root: root, Env: childEnv(environ), ShellTimeoutMS: 10_000, StepTimeout: *stepTimeout,
		Subagents: *subagents, Log: stderr}
	results, failed := Smoke(ctx, cfg, providers)
	m := NewMatrix(results)
	if err := m.WriteTable(stdout); err != nil {
		fmt.Fprintln(stderr, "smoke:", err)
		return 1
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		fmt.Fprintln(stderr, "smoke:", err)
		return 1
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	fmt.Fprintf(stdout, "\n%s\n", data)
	if *jsonFile != "" {
		if err := os.WriteFile(*jsonFile, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "smoke:", err)
			return 1
		}
	}
	if failed || *keep {
		fmt.Fprintf(stderr, "smoke: agents, workspaces and logs kept in %s\n", root)
	} else {
		os.RemoveAll(root)
	}
	if failed {
		return 1
	}
	return 0
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
