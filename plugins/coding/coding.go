// Package coding is the logic of Delta's first-party coding-tools plugin
// (delta-plugin-coding): the shared core tools of seeds/001 §3.3 —
// read_file, write_file, edit_file, shell, grep, glob — the v4a apply_patch
// of its Appendix A, list_dir and read_many_files, with the output limits
// of §5.2. The config's profile presents them as one model family's own
// agent does (codex-rs, Claude Code, gemini-cli: profiles.go). Paths
// resolve against the run's workspace and may not leave it unless the
// plugin's config sets allow_outside_workspace.
package coding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/plugins/sdk"
)

// Version is the coding plugin's version, reported to delta plugin list.
const Version = "0.1.0"

// Config is the plugin's agent.yaml config.
type Config struct {
	// AllowOutsideWorkspace lets paths leave the workspace.
	AllowOutsideWorkspace bool `json:"allow_outside_workspace"`
	// NoRipgrep makes grep use its Go search even when rg is installed.
	NoRipgrep bool `json:"no_ripgrep"`
	// Profile selects the tool set: default, openai, anthropic or gemini.
	Profile string `json:"profile"`
	// ShellTimeoutMS is the shell's timeout for a call that sets none
	// (0: DefaultShellTimeoutMS).
	ShellTimeoutMS int `json:"shell_timeout_ms"`
	// RequireReadBeforeWrite (nil: true) refuses write_file of an
	// existing file, edit_file and apply_patch on a file the run has not
	// read, or that changed on disk since it was read.
	RequireReadBeforeWrite *bool `json:"require_read_before_write"`
}

// Tools is the coding tools' sdk.ToolProvider.
type Tools struct {
	Config Config
	// tools is the profile's tool set (nil: the default profile).
	tools []toolDef
	// reads is what the model has seen of the files it may change.
	reads readState
}

var (
	_ sdk.ToolProvider = (*Tools)(nil)
	_ sdk.Configurer   = (*Tools)(nil)
)

// Configure takes the agent's plugin config; an unknown key (a typo that
// would otherwise leave a setting silently off) is an error naming the
// known keys.
func (t *Tools) Configure(_ context.Context, raw json.RawMessage) error {
	var c Config
	if len(bytes.TrimSpace(raw)) == 0 {
		t.Config, t.tools = c, nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("coding plugin config: unknown key %s (known keys: %s)", key, strings.Join(configKeys(), ", "))
		}
		return fmt.Errorf("coding plugin config: %w", err)
	}
	p, err := profile(c.Profile)
	if err != nil {
		return err
	}
	if c.ShellTimeoutMS < 0 || c.ShellTimeoutMS > MaxShellTimeoutMS {
		return fmt.Errorf("coding plugin config: shell_timeout_ms must be between 1 and %d, not %d", MaxShellTimeoutMS, c.ShellTimeoutMS)
	}
	t.Config, t.tools = c, p
	return nil
}

// configKeys lists Config's keys, for the unknown-key error.
func configKeys() []string {
	var keys []string
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}

// profileTools is the configured profile's tool set.
func (t *Tools) profileTools() []toolDef {
	if t.tools == nil {
		return defaultProfile
	}
	return t.tools
}

// defaultTimeoutMark stands in the shell tools' descriptions for the
// timeout of a call that sets none (the config's shell_timeout_ms, else
// DefaultShellTimeoutMS), which Tools writes in.
const defaultTimeoutMark = "{DEFAULT_TIMEOUT_MS}"

// readFirstMark stands in the descriptions of the tools that change files
// for the sentence saying they must be read first, which Tools writes in
// when the config requires it (and removes when not).
const readFirstMark = "{READ_FIRST}"

// readFirstNote is the sentence readFirstMark stands for.
const readFirstNote = " A file this run has not read with read_file, or that changed on disk since, is refused: read it first."

// Tools lists the profile's tools, their descriptions naming the shell's
// default timeout and whether files must be read before they change.
func (t *Tools) Tools(context.Context) ([]sdk.Tool, error) {
	p := t.profileTools()
	ms, _ := t.shellTimeout(0, time.Time{}, "")
	note := readFirstNote
	if t.Config.RequireReadBeforeWrite != nil && !*t.Config.RequireReadBeforeWrite {
		note = ""
	}
	r := strings.NewReplacer(defaultTimeoutMark, strconv.FormatInt(ms, 10), readFirstMark, note)
	out := make([]sdk.Tool, len(p))
	for i, d := range p {
		out[i] = d.Tool
		out[i].Description = r.Replace(d.Description)
		out[i].Parameters = json.RawMessage(r.Replace(string(d.Parameters)))
	}
	return out, nil
}

// handler runs one tool with its decoded arguments.
type handler func(ctx context.Context, t *Tools, ws string, args json.RawMessage) (string, error)

// handlers are the capabilities but the shell (Tools.shellTool).
var handlers = map[string]handler{
	"read_file":       readFileTool,
	"write_file":      writeFileTool,
	"edit_file":       editFileTool,
	"apply_patch":     applyPatchTool,
	"grep":            grepTool,
	"glob":            globTool,
	"list_dir":        listDirTool,
	"read_many_files": readManyFilesTool,
}

// Call runs one tool of the profile; its errors become tool errors the
// model sees.
func (t *Tools) Call(ctx context.Context, req sdk.CallRequest) (sdk.CallResult, error) {
	d, ok := find(t.profileTools(), req.Name)
	if !ok {
		return sdk.Errorf("unknown tool %q", req.Name), nil
	}
	args, err := d.canonical(req.Arguments)
	if err == nil && d.Runs == "shell" {
		var res sdk.CallResult
		if res, err = t.shellTool(ctx, req, args, d.param("timeout_ms")); err == nil {
			return res, nil
		}
	}
	if err == nil {
		err = t.reads.load(req, req.RunDir(), t.profileTools())
	}
	if err != nil {
		return sdk.CallResult{Output: cutOutput(req, d.Runs, "error: "+err.Error()), IsError: true}, nil
	}
	ctx, seen := withCallSeen(ctx)
	ctx, parts := withCallParts(ctx)
	ctx = context.WithValue(ctx, readRootsKey{}, req.SkillDirs())
	out, err := handlers[d.Runs](ctx, t, req.WorkDir, args)
	if err != nil {
		return sdk.CallResult{Output: cutOutput(req, d.Runs, "error: "+err.Error()), IsError: true}, nil
	}
	t.reads.note(seen.stamps)
	return sdk.CallResult{Output: cutOutput(req, d.Runs, out), Data: seen.data(), Parts: parts.list()}, nil
}

// ErrArguments is wrapped when a call's JSON arguments are invalid.
var ErrArguments = errors.New("invalid arguments")

// decode unmarshals args into v, strictly.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%w: %v", ErrArguments, err)
	}
	return nil
}
