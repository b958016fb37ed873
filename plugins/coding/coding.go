// Package coding is the logic of Delta's first-party coding-tools plugin
// (delta-plugin-coding): the shared core file tools of seeds/001 §3.3 —
// read_file, write_file, edit_file, grep, glob — and the v4a apply_patch of
// its Appendix A, with the output limits of §5.2. Paths resolve against the
// run's workspace and may not leave it unless the plugin's config sets
// allow_outside_workspace.
package coding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

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
}

// Tools is the coding tools' sdk.ToolProvider.
type Tools struct {
	Config Config
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
		t.Config = c
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
	t.Config = c
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

// Tools lists the six tools.
func (t *Tools) Tools(context.Context) ([]sdk.Tool, error) { return toolList, nil }

// handler runs one tool with its decoded arguments.
type handler func(ctx context.Context, t *Tools, ws string, args json.RawMessage) (string, error)

var handlers = map[string]handler{
	"read_file":   readFileTool,
	"write_file":  writeFileTool,
	"edit_file":   editFileTool,
	"apply_patch": applyPatchTool,
	"grep":        grepTool,
	"glob":        globTool,
}

// Call runs one tool; its errors become tool errors the model sees.
func (t *Tools) Call(ctx context.Context, req sdk.CallRequest) (sdk.CallResult, error) {
	h, ok := handlers[req.Name]
	if !ok {
		return sdk.Errorf("unknown tool %q", req.Name), nil
	}
	out, err := h(ctx, t, req.WorkDir, req.Arguments)
	if err != nil {
		return sdk.CallResult{Output: TruncateTool(req.Name, "error: "+err.Error()), IsError: true}, nil
	}
	return sdk.Text(TruncateTool(req.Name, out)), nil
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
