package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/plugins/lock"
)

// installedBin links (or copies) delta-run, its guard, its tool host and
// the first-party plugins into a new directory, as make install leaves them, with the
// first-party manifest when manifest is set.
func installedBin(t *testing.T, manifest bool) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range append([]string{"delta-run", "delta-exec-guard", "delta-toolhost"}, lock.FirstPartyBinaries...) {
		src, dst := filepath.Join(clitest.BinDir(t), name), filepath.Join(dir, name)
		if os.Link(src, dst) == nil {
			continue
		}
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(out, in)
		in.Close()
		if cerr := out.Close(); err != nil || cerr != nil {
			t.Fatal(err, cerr)
		}
	}
	if manifest {
		if err := lock.WriteManifest(dir, lock.FirstPartyBinaries...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runIn runs bin's delta-run in dir with only env set (and a private HOME),
// returning stderr and the exit code.
func runIn(t *testing.T, bin, dir, home string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "delta-run"), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + home, "NO_COLOR=1"}, env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return errb.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return errb.String(), 0
}

// TestZeroConfigRun: in an empty directory with only DELTA_BASE_URL set,
// delta run -m runs the built-in coding agent (codex's tools over Chat
// Completions), whose plugin the manifest beside delta-run trusts; the
// model's apply_patch creates a file there, the run lives in ./.delta, no
// agent file is written into the directory, and continue --last finds the
// run and its agent again.
func TestZeroConfigRun(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ReplyToolCalls(llm.ToolCall{ID: "c1", Name: "apply_patch",
		Arguments: `{"input":"*** Begin Patch\n*** Add File: hello.txt\n+Hello from Delta\n*** End Patch\n"}`})
	srv.ReplyText("Created hello.txt.")
	srv.ReplyText("Nothing else to do.")
	bin, project, home := installedBin(t, true), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "AGENTS.md"), []byte("Always greet politely.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"DELTA_BASE_URL=" + srv.URL}
	if stderr, code := runIn(t, bin, project, home, env, "run", "-m", "Create hello.txt"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if got, err := os.ReadFile(filepath.Join(project, "hello.txt")); err != nil || string(got) != "Hello from Delta\n" {
		t.Errorf("hello.txt = %q, %v; want the patched text", got, err)
	}
	entries, _ := os.ReadDir(project)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != ".delta AGENTS.md hello.txt" {
		t.Errorf("project holds %s, want .delta AGENTS.md hello.txt (no agent files)", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if tools := toolNames(reqs[0]); !strings.Contains(tools, "apply_patch") || !strings.Contains(tools, "shell") {
		t.Errorf("tools offered = %s, want codex's (apply_patch, shell …)", tools)
	}
	if reqs[0].Model != "gpt-5" || !strings.Contains(systemText(reqs[0]), "Always greet politely.") {
		t.Errorf("first request: model %q, AGENTS.md in the system messages %v; want gpt-5, true", reqs[0].Model, strings.Contains(systemText(reqs[0]), "Always greet politely."))
	}
	if stderr, code := runIn(t, bin, project, home, append(env, "DELTA_MODEL=local-model"), "continue", "--last", "-m", "Anything else?"); code != 0 {
		t.Fatalf("continue --last: exit %d\n%s", code, stderr)
	}
	if got := srv.Requests()[2].Model; got != "local-model" {
		t.Errorf("continue with DELTA_MODEL asked model %q, want local-model (the built-in model is the last default)", got)
	}
}

// TestZeroConfigNeedsManifest: without the manifest beside delta-run the
// coding plugin is not trusted, as any plugin missing from the lock.
func TestZeroConfigNeedsManifest(t *testing.T) {
	bin, project, home := installedBin(t, false), t.TempDir(), t.TempDir()
	stderr, code := runIn(t, bin, project, home, []string{"DELTA_BASE_URL=http://127.0.0.1:1"}, "run", "-m", "hi")
	if code != 126 || !strings.Contains(stderr, "not in the lock file") {
		t.Errorf("run without manifest: exit %d, stderr\n%s\nwant 126 and the plugin not in the lock file", code, stderr)
	}
}

// TestBuiltinAgentsLoad: every built-in agent's files, as materialise
// writes them, load as an agent with no provider or model of their own.
func TestBuiltinAgentsLoad(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for tmpl := range builtinModels {
		t.Run(tmpl, func(t *testing.T) {
			root, err := builtinRoot()
			if err != nil {
				t.Fatal(err)
			}
			b := &builtinAgent{template: tmpl, home: filepath.Join(root, tmpl)}
			if err := b.materialise(); err != nil {
				t.Fatal(err)
			}
			a, err := agent.Load(b.home)
			if err != nil {
				t.Fatalf("load %s: %v", tmpl, err)
			}
			if !a.LLM.DefaultProvider || a.LLM.Model != "" {
				t.Errorf("%s: provider %q (default %v), model %q; want neither set", tmpl, a.LLM.Provider, a.LLM.DefaultProvider, a.LLM.Model)
			}
			if builtinOf(a.Home) == nil {
				t.Errorf("builtinOf(%s) = nil, want the built-in agent", a.Home)
			}
		})
	}
}

// TestChooseBuiltin: the built-in agent follows the model family named by
// --llm, else the user config, else DELTA_MODEL; and its llm defaults give
// way to what is set.
func TestChooseBuiltin(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	tests := []struct {
		name, llmFlag, envModel string
		user                    *agent.UserConfig
		want                    string
	}{
		{"nothing", "", "", nil, "coding-openai"},
		{"--llm alias", "sonnet", "", &agent.UserConfig{Provider: "gemini"}, "coding-anthropic"},
		{"--llm scripted", "scripted:x.yaml", "", nil, "coding-openai"},
		{"user provider", "", "anthropic/x", &agent.UserConfig{Provider: "gemini"}, "coding-gemini"},
		{"user model", "", "", &agent.UserConfig{Model: "anthropic/claude-haiku-4-5"}, "coding-anthropic"},
		{"DELTA_MODEL", "", "flash", nil, "coding-gemini"},
		{"unknown family", "", "llama3", nil, "coding-openai"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(modelVar, tc.envModel)
			b, err := chooseBuiltin(tc.llmFlag, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if b.template != tc.want {
				t.Errorf("chooseBuiltin(%q, %+v) with DELTA_MODEL=%q = %s, want %s", tc.llmFlag, tc.user, tc.envModel, b.template, tc.want)
			}
		})
	}
	b := &builtinAgent{template: "coding-openai"}
	def := agent.LLMConfig{Provider: "openai", DefaultProvider: true}
	for _, tc := range []struct {
		name          string
		cfg           agent.LLMConfig
		env           map[string]string
		provider, mdl string
	}{
		{"defaults", def, nil, "openai", "gpt-5"},
		{"base URL", def, map[string]string{"DELTA_BASE_URL": "http://x"}, "openai-compatible", "gpt-5"},
		{"DELTA_MODEL left to resolve", def, map[string]string{modelVar: "m"}, "openai", ""},
		{"set provider kept", agent.LLMConfig{Provider: "anthropic", Model: "x"}, map[string]string{"DELTA_BASE_URL": "http://x"}, "anthropic", "x"},
	} {
		got := b.llm(tc.cfg, tc.env)
		if got.Provider != tc.provider || got.Model != tc.mdl {
			t.Errorf("%s: llm = %s/%s, want %s/%s", tc.name, got.Provider, got.Model, tc.provider, tc.mdl)
		}
	}
}
