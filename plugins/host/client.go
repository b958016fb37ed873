package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/sandbox"
	"github.com/deltakit/delta/lib/sys"
	"github.com/deltakit/delta/plugins/internal/wire"
	"github.com/deltakit/delta/plugins/proto"
)

// ErrChecksum is returned when a plugin binary does not match its locked
// checksum; nothing of such a binary is run.
var ErrChecksum = errors.New("checksum mismatch")

// ErrNotLocked is returned for a plugin binary that is not in the lock file
// (and not allowed from PATH).
var ErrNotLocked = errors.New("plugin not locked")

// ErrNotFound is returned when no binary is found for a plugin name.
var ErrNotFound = errors.New("plugin not found")

// Binary is a resolved plugin binary and the checksum it must have.
type Binary struct {
	Name string
	Path string
	// SHA256 is the hex checksum the binary must match to be run.
	SHA256 string
	// Locked is false for an unlocked binary allowed from PATH.
	Locked bool
}

// ToolSpec is one tool a plugin serves.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Client is one plugin process, started on first use and restarted on the
// next use after it crashed or was stopped for hanging.
type Client struct {
	bin    Binary
	config json.RawMessage
	stderr io.Writer
	// verbose shows go-plugin's debug messages and exit notices.
	verbose bool
	// env is the plugin's whole environment: secrets never reach it.
	env []string
	// sandbox confines the plugin process (sandbox.go); nil: nothing.
	sandbox *sandbox.Rules
	// sockDir is the sandboxed plugin's socket directory, removed when
	// the process stops.
	sockDir string

	mu      sync.Mutex
	pc      *plugin.Client
	cmd     *exec.Cmd
	tools   proto.ToolProviderClient
	hooks   proto.HookProviderClient
	starts  int
	version string
}

// NewClient returns a client for bin; config is sent to Configure at every
// start. Plugin stderr goes to stderr once, each line prefixed with
// "[plugin NAME] " (nil: discarded).
func NewClient(bin Binary, config map[string]any, stderr io.Writer) (*Client, error) {
	if config == nil {
		config = map[string]any{}
	}
	cfg, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: encode config: %w", bin.Name, err)
	}
	if stderr == nil {
		stderr = io.Discard
	}
	return &Client{bin: bin, config: cfg, stderr: stderr, env: agent.FilterEnv(os.Environ(), agent.EnvConfig{})}, nil
}

// Name is the plugin's name.
func (c *Client) Name() string { return c.bin.Name }

// Starts counts the processes started so far (restarts included).
func (c *Client) Starts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts
}

// Pid is the running plugin process's id, 0 when none runs.
func (c *Client) Pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pc == nil || c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// ensure starts the plugin process if none is running. Callers hold c.mu.
func (c *Client) ensure(ctx context.Context) error {
	if c.pc != nil && !c.pc.Exited() {
		return nil
	}
	c.stopLocked()
	if want, err := hex.DecodeString(c.bin.SHA256); err != nil || len(want) != sha256.Size {
		return fmt.Errorf("plugin %q: invalid locked checksum %q: %w", c.bin.Name, c.bin.SHA256, ErrChecksum)
	}
	// The process runs the very file that was hashed (see verifiedBinary):
	// no window in which a swapped binary could be started.
	f, exe, done, err := verifiedBinary(c.bin.Name, c.bin.Path, c.bin.SHA256)
	if err != nil {
		return err
	}
	defer done()
	defer f.Close()
	cmd := exec.Command(exe)
	cmd.Args[0] = c.bin.Path
	cmd.ExtraFiles = []*os.File{f}
	// The plugin and what it starts see what a command tool sees; go-plugin
	// adds only its handshake variables (SkipHostEnv).
	cmd.Env = append([]string(nil), c.env...)
	// Own process group (stopped as a whole). If the engine dies without
	// stopping it (SIGKILL included), the kernel sends SIGTERM, on which
	// the plugin (plugins/sdk) kills its whole group: itself and whatever
	// it started (Linux; macOS has no parent-death signal, see lib/sys).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sys.SetParentDeathSignal(cmd.SysProcAttr, syscall.SIGTERM)
	if err := c.confine(cmd); err != nil {
		return err
	}
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		Plugins:          wire.HostPlugins(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		// The process's stderr (panics, runtime errors), what the plugin
		// writes to os.Stderr and os.Stdout (go-plugin streams those over
		// gRPC) and go-plugin's own messages: each on its own line
		// buffer, so their partial lines do not mix.
		Stderr:       c.prefixed(),
		SyncStderr:   c.prefixed(),
		SyncStdout:   c.prefixed(),
		StartTimeout: 30 * time.Second,
		Logger:       pluginLogger(c.bin.Name, exe, c.prefixed(), c.verbose),
	})
	rpc, err := pc.Client()
	if err != nil {
		// Kill the whole group first: go-plugin's Kill waits for the
		// process's output to end, which a child holding it open (a
		// program that is no plugin, leaving a background job) would
		// delay forever.
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		pc.Kill()
		// go-plugin's message goes on with generic advice and the
		// /proc/self/fd path: its first line says what happened.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return fmt.Errorf("start plugin %q (%s): %s", c.bin.Name, c.bin.Path, msg)
	}
	c.pc, c.cmd = pc, cmd
	c.starts++
	if raw, err := rpc.Dispense(proto.ToolsPlugin); err == nil {
		c.tools, _ = raw.(proto.ToolProviderClient)
	}
	if raw, err := rpc.Dispense(proto.HooksPlugin); err == nil {
		c.hooks, _ = raw.(proto.HookProviderClient)
	}
	if c.tools != nil {
		_, err := c.tools.Configure(ctx, &proto.ConfigureRequest{ConfigJson: c.config})
		if err != nil && status.Code(err) != codes.Unimplemented {
			c.stopLocked()
			return fmt.Errorf("configure plugin %q: %s", c.bin.Name, rpcMessage(err))
		}
	}
	return nil
}

// prefixed is a line writer onto the client's stderr that starts each
// line with "[plugin NAME] ".
func (c *Client) prefixed() io.Writer {
	return newPrefixWriter(c.stderr, "[plugin "+c.bin.Name+"] ")
}

// stopLocked stops the plugin process and its whole process group.
func (c *Client) stopLocked() {
	if c.pc == nil {
		return
	}
	c.pc.Kill()
	if c.cmd != nil && c.cmd.Process != nil {
		// Children the plugin started (rg, …) go with it.
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
	c.pc, c.cmd, c.tools, c.hooks = nil, nil, nil, nil
	c.removeSockDir()
}

// Stop stops the plugin process, if running. The next use starts a new one.
func (c *Client) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked()
}

// Tools starts the plugin if needed and lists its tools and version. A
// plugin that serves no tools lists none.
func (c *Client) Tools(ctx context.Context) ([]ToolSpec, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.ensure(ctx); err != nil {
		return nil, "", err
	}
	resp, err := c.tools.ListTools(ctx, &proto.ListToolsRequest{})
	if status.Code(err) == codes.Unimplemented {
		return nil, "", nil
	}
	if err != nil {
		c.afterFailure(err)
		return nil, "", fmt.Errorf("list tools of plugin %q: %s", c.bin.Name, rpcMessage(err))
	}
	var specs []ToolSpec
	for _, t := range resp.GetTools() {
		specs = append(specs, ToolSpec{Name: t.GetName(), Description: t.GetDescription(), Parameters: t.GetParametersJson()})
	}
	c.version = resp.GetVersion()
	return specs, resp.GetVersion(), nil
}

// CallResult is a plugin tool's answer.
type CallResult struct {
	Output  string
	IsError bool
	Data    json.RawMessage
	// Parts are the result's images and sounds.
	Parts []llm.Part
}

// Execute runs one tool call. Errors returned are failures of the plugin
// (crash, hang past ctx's deadline, error from the plugin's Call); the
// process is stopped on a crash or hang and restarted on the next call.
func (c *Client) Execute(ctx context.Context, req *proto.ExecuteRequest) (CallResult, error) {
	tools, err := c.toolsClient(ctx)
	if err != nil {
		return CallResult{}, err
	}
	if d, ok := ctx.Deadline(); ok {
		req.DeadlineUnixMs = d.UnixMilli()
	}
	// Not under c.mu: one plugin serves calls concurrently.
	resp, err := tools.Execute(ctx, req)
	if err != nil {
		c.mu.Lock()
		c.afterFailure(err)
		c.mu.Unlock()
		return CallResult{}, fmt.Errorf("plugin %q tool %q: %s", c.bin.Name, req.GetName(), rpcMessage(err))
	}
	res := CallResult{Output: resp.GetOutput(), IsError: resp.GetIsError(), Data: resp.GetDataJson()}
	for _, p := range resp.GetParts() {
		res.Parts = append(res.Parts, llm.Part{Type: p.GetType(), MediaType: p.GetMediaType(), Data: p.GetData(), Size: int64(len(p.GetData()))})
	}
	return res, nil
}

func (c *Client) toolsClient(ctx context.Context) (proto.ToolProviderClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	return c.tools, nil
}

// Hook runs one hook.
func (c *Client) Hook(ctx context.Context, req *proto.HookRequest) (*proto.HookResponse, error) {
	c.mu.Lock()
	if err := c.ensure(ctx); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	hooks := c.hooks
	c.mu.Unlock()
	resp, err := hooks.Hook(ctx, req)
	if err != nil {
		c.mu.Lock()
		c.afterFailure(err)
		c.mu.Unlock()
		return nil, fmt.Errorf("plugin %q hook %s: %s", c.bin.Name, req.GetName(), rpcMessage(err))
	}
	return resp, nil
}

// afterFailure stops a plugin that crashed or hung so that the next call
// starts a fresh process. Callers hold c.mu.
func (c *Client) afterFailure(err error) {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Internal:
		c.stopLocked()
	default:
		if c.pc != nil && c.pc.Exited() {
			c.stopLocked()
		}
	}
}

// rpcMessage is the readable part of a gRPC error.
func rpcMessage(err error) string {
	if s, ok := status.FromError(err); ok {
		switch s.Code() {
		case codes.DeadlineExceeded:
			return "timed out (the plugin was stopped and restarts on the next call)"
		case codes.Unavailable:
			return "plugin process exited or crashed (it restarts on the next call): " + s.Message()
		case codes.Canceled:
			return "cancelled"
		}
		return s.Message()
	}
	return err.Error()
}
